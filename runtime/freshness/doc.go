// Package freshness keeps a controller from acting on what it just changed:
// "read your own writes" over an informer's cache, KEP-5647's approach
// (stale controller mitigation, as the DaemonSet, StatefulSet, ReplicaSet and
// Job controllers do it), typed and without polling.
//
// A worker records the resourceVersion each of its writes returned, under
// the key it was reconciling (Tracker.Wrote). Before the key's next
// reconcile, Tracker.Reconciler checks that every cache written to has
// applied that resourceVersion (store.Indexer.AfterResourceVersion, which the
// informer advances after each list, event and bookmark it applies). If one
// has not, the reconcile is skipped and the key is requeued at the moment
// the cache catches up: no goroutine, no timer, no polling loop. Keys with
// nothing recorded cost one map lookup.
//
// resourceVersions are compared as KEP-5504 defines (store.CompareResourceVersions);
// a write whose resourceVersion cannot be compared is never waited for, and
// is reported (Metrics.NotComparable) rather than guessed about.
//
// The Tracker sits beside the workqueue: its Reconciler wraps the func given
// to workqueue.Queue.Run, and composes with shard.Shard.Reconciler.
package freshness
