// Package runtimetest helps test code built on the informer-gen runtime
// without an API server.
//
//   - Source[T] is a deterministic in-memory API server for one resource. It
//     implements reflector.ListerWatcher[T], so a generated NewFooInformer, an
//     informer.New or a reflector.New runs against it unchanged. The test
//     writes objects (Add, Update, Delete) and provokes the hard cases: expired
//     resourceVersions (Compact), dropped watches (DropWatches), bookmarks,
//     servers without WatchList (RefuseWatchList), injected errors (FailNext)
//     and malformed events (Inject). It pages LISTs, honours label selectors
//     and metadata.name/namespace field selectors, and records every request
//     it serves. It keeps its objects and a bounded event log, not what it
//     served, so a test at scale (a million objects) measures the informer.
//   - Project[P](src) serves a Source's objects as P, a projection of its kind
//     (a type informer-gen generates under projections/), decoded from the
//     kind's JSON by the runtime's wire decoder as on a real server, so one
//     Source drives the kind's informer and its projections' together.
//   - Recorder[T] is an informer handler that remembers the last object it saw
//     per key and every call, checks the handler contract, and lets a test
//     wait for a condition (WaitFor) instead of sleeping.
//
// A controller test that only needs a filled cache (client-go's
// GetIndexer().Add(obj) in sample-controller's tests) does not run the
// informer at all: informer.Informer.Seed stores objects in the cache of one
// not yet run (a generated FooInformer's Informer().Seed(foo)), and the
// test calls its sync function, which reads through listers and indexes.
//
// The usual shape of a test: build a Source with the starting objects, run the
// informer with a Recorder, wait for the Recorder to equal Source.Snapshot,
// then write to the Source and wait again. Every wait is signalled by the
// event itself, so tests are fast and not flaky; for backoff and timeouts run
// the test inside testing/synctest, where the Source's and the runtime's
// timers use the bubble's fake clock.
package runtimetest
