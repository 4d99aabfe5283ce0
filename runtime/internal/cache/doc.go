// Package cache is the runtime's untyped cache: Cache (the read side) and
// Writer (its single write side) hold objects as Obj, an interface, and are
// not generic, so that the hash table, the indexes and the freshness
// bookkeeping are compiled once, here, however many types use them. The
// public, typed API is package store (Indexer[T], Writer[T], Lister[T]),
// whose views are defined types over Cache and Writer; the informer's core
// (runtime/internal/engine/core) owns a Writer.
//
// Between the untyped core and a typed view, a type mismatch is an error
// naming both types (TypeError), never a silent nil: As converts with an
// error, IndexersOf wraps typed index funcs that way, and MustAs panics with
// the TypeError for reads of a cache whose writes were all checked.
//
// See package store's documentation for the memory layout, concurrency,
// label selectors, interning and freshness: they are this package's.
package cache
