// Package reflector lists and watches a resource and feeds the changes to a
// Sink (the DeltaFIFO). It is the stage between the API server (a
// ListerWatcher: package listwatch, or runtimetest's fake) and package fifo.
//
// Design choices that differ from client-go's tools/cache.Reflector, and why:
//
//   - Typed: ListerWatcher[T] returns []T pages, so there is no
//     runtime.Object list to reflect over and no expectedType check; a watch
//     event whose object is not T is reported (ErrMalformedEvent) and skipped.
//   - One state machine, one goroutine (plus a resync ticker): sync (WatchList
//     or paged LIST) → watch → on server close resume from the last
//     resourceVersion, on 410 resync, on other errors wait and watch again.
//     client-go relists after most watch errors; resuming is cheaper and just
//     as safe, because a stale resourceVersion answers 410 and forces the relist.
//   - Lists are consistent reads (resourceVersion ""), in one request unless
//     Options.PageSize asks for pages. client-go's first list uses "0" (any
//     staleness) and turns paging off for later relists to hit the watch
//     cache; since API servers answer consistent reads from the watch cache
//     (the ConsistentListFromCache feature, on by default since Kubernetes
//     1.31) that trade-off is gone, and a relist can never go back in time.
//     Unpaged, because every page is a request of its own: measured against
//     apiserver v0.37, 100 pages of 500 cost the server more CPU than one
//     LIST of 50,000 (docs/performance.md, "End to end"). The cost on an
//     older server is a LIST that reads etcd whole; set a PageSize there.
//   - Backoff jitter stays below the cap (see Options.MaxBackoff: 500ms
//     doubling to 2s), it resets on success rather than after two quiet
//     minutes, a 429's Retry-After is honoured exactly, and a watch that
//     ends within a second of its start is backed off whatever it delivered
//     (client-go backs off only watches without events, so a server that
//     closes each watch after one event is hammered).
//   - A resourceVersion that is not a decimal uint64 is reported and never
//     resumed from, and a watch the server rejects (400, 422, 410) relists;
//     client-go retries a rejected resourceVersion forever.
//   - An event the ListerWatcher could not decode (MalformedObject) ends the
//     watch, which is resumed at once from the last resourceVersion: the
//     event is read again rather than missed.
//   - Objects without a name, or whose namespace contradicts Options.Scope,
//     are reported and not stored (client-go files them all under "ns/").
//   - Time comes from the time package, so tests run Reflectors inside a
//     testing/synctest bubble instead of injecting a clock.
//   - After a LIST the watch is opened before the list is applied: a 401 or
//     403 on it (RBAC lets the client list but not watch) is reported and
//     retried with backoff while the list waits, so the informer is not
//     synced over a cache that cannot be kept up to date and
//     WaitForCacheSync names the refused verb. client-go applies the list
//     and reports the cache synced while every watch is refused.
//   - WatchList refusals are remembered for the Reflector's lifetime; a
//     transient WatchList failure falls back to LIST once.
//   - ListOptions may change while it runs (a ListerWatcher whose Tweak
//     reads a shard's selector): a RelistTrigger (Options.Relist) stops the
//     watch and relists with them. client-go's Reflector cannot be told.
//
// Logging goes to klog.FromContext(ctx), with the resource named once under
// the key "resource" (LogKey): Run adds resource=Name unless an outer
// component (the informer, the factory) already named it (LogContext). Errors
// at the default level, lifecycle at V(2), per-watch chatter at V(4). Only
// resource names, keys and resourceVersions are logged, never object contents.
package reflector
