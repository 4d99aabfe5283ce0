// Package internal is the map of the runtime's layers; read it first. It
// holds no code: its subdirectories are the runtime's private packages, in
// two layers, one below and one above the public packages.
//
// From the bottom up, every package imports only packages of its own layer
// or below (TestLayers checks it, and fails for a package it does not know,
// so a new package is placed here first):
//
//  0. Parts, runtime/internal/<name>: small mechanisms that know nothing of
//     informers — budget (the request budget Reflectors share), cache (the
//     indexed store behind store.Indexer, with freshness waiters), codecopts
//     (wire's decoder options), fifo (the DeltaFIFO), known (a relist's
//     lookup of the objects the cache holds), listpage (LIST page
//     appending), logctx (the resource key in loggers), redact (what an
//     error may say), relist (the relist trigger and marks), scope (cluster
//     or namespace scope), settings (what the runtime sets on a Reflector
//     beside the public reflector.Options: scope, request budget).
//  1. Primitives, public: store, wire (and wire/corev1), reflector,
//     listwatch, workqueue, freshness, clientsetconfig,
//     runtimetest. Each is usable alone.
//  2. Engines, runtime/internal/engine/<name>: what the assemblies are built
//     from, above the primitives — core (the shared informer: FIFO, pop
//     loop, handlers), restsource (a typed REST source: listwatch + wire +
//     reflector options), untypedlw (a typed ListerWatcher seen untyped);
//     and runtime/internal/leasefake, an in-memory Lease API over
//     runtimetest's source for the tests of shard and fleet (never linked
//     into a program).
//  3. Assemblies, public: informer (and informer/clientgo), factory, shard,
//     fleet: what a controller author uses.
//
// So a change in a part can break anything; a change in an assembly breaks
// only what imports it. A part that needs a primitive is in the wrong layer
// (move the code down or up), and a primitive never imports an engine.
package internal
