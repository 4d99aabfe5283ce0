// Package store is the bottom stage of the runtime: the Indexer, a thread-safe
// local cache of typed objects keyed by "namespace/name" with named indices.
//
// Ownership is visible in the types (an idea borrowed from kube-rs): New returns
// the single *Writer, which the informer owns; everyone else gets the *Indexer
// read side (Writer.Indexer) or a Lister over it.
//
// Objects returned by any read are shared with the cache and with every other
// reader. They are read-only: mutate a DeepCopy, never the object itself.
package store
