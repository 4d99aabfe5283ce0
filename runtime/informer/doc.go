// Package informer is the SharedIndexInformer stage: it runs a Reflector into
// a DeltaFIFO, applies the deltas to the Indexer and fans them out to handlers.
//
// Its API is typed: Informer[T] (built by New, or NewMultiNamespace for a set
// of namespaces; generated code and the factory build them for you), its
// Options[T], Handler[T] and HandlerFuncs[T], the Registration each handler
// gets, and WaitForCacheSync.
//
// Design choices that are not obvious:
//
//   - Typed view, untyped core. The runtime's informer core
//     (runtime/internal/engine/core) does the work on untyped objects and is not
//     generic; Informer[T] is a defined type over it whose methods convert
//     (handlers and index funcs are wrapped once, at registration). Go
//     compiles generic code again in every package that instantiates it, so
//     this keeps the informer, its FIFO and its Reflectors compiled once, in
//     the runtime, however many generated packages use them
//     (docs/generated-code.md). The core stores only Ts: the Reflector
//     refuses events of another type, and a Transform returning another type
//     is an error naming both types (the event is not applied), so no
//     conversion hands a handler or a reader a nil T.
//   - One lock cuts the stream. The pop loop applies a batch to the cache and
//     appends the resulting notifications to every handler's buffer under one
//     mutex, which AddHandler and handler resyncs also take. A handler added
//     late therefore gets synthetic adds for exactly the cache at that point
//     of the stream, then every later change: no gap, no duplicate. The
//     critical section never runs user code.
//   - One goroutine and one unbounded buffer per handler. The informer never
//     waits for a handler; a slow handler only grows its own buffer. The pop
//     loop appends each batch's notes to every handler's buffer (one copy; a
//     note is 24 bytes, an update's old object in a side slice), and the
//     handler's goroutine swaps that buffer with its drained spare, so
//     steady-state delivery allocates nothing. A pending notification holds
//     its note and no copy of an object: it points to the object the cache
//     got (an update also to the one it replaced, a delete to the last
//     known one, which only pending notes then keep alive). A note's objects
//     are dropped as soon as it is delivered, not when its batch ends, and a
//     drained buffer above 4,096 notes is given back, so what a backlog
//     costs goes when it does. Its length is Registration.Backlog. The
//     number of pending notifications has no bound: holding the informer
//     back would stale the cache and every other handler (client-go's
//     listener buffer has none either, at 45 bytes per pending notification
//     to our 24; docs/performance.md).
//   - Old objects come from the cache. Each Set/Delete returns the previous
//     object, which becomes OnUpdate's oldObj; a delete of a key the cache
//     never held is not delivered (no handler has seen it).
//   - HasSynced needs more than the initial list in the cache: the server
//     must also have accepted a watch after it, in every namespace (see
//     reflector's package doc, "Synced"), so a client that may list but
//     not watch (RBAC) is not synced and WaitForCacheSync's error names the
//     refused watch. client-go's informer reports such a cache synced.
//   - Per-handler HasSynced is a marker in the handler's own buffer, queued
//     when the informer syncs (or, for a late handler, after its synthetic
//     adds): the registration is synced when the handler has processed it.
//   - Resync is per handler and comes from the cache, not the FIFO: when a
//     handler's timer fires, its goroutine queues OnUpdate(obj, obj) for the
//     cache as it stands at that point of the stream (under the same lock).
//     Other handlers and the queue are not disturbed, and a resync can never
//     carry an object older than one the handler was already given. At most
//     one resync per handler is outstanding, so a handler slower than its
//     period gets fewer resyncs rather than an ever-growing buffer.
//   - The default transform drops managedFields (not with
//     KeepManagedFields); with InternStrings it also interns repeated
//     strings and label maps (store.InternStrings, also with
//     KeepManagedFields). It runs after Options.Transform, before
//     queueing. Interning is opt-in because it costs about as much CPU per
//     event as the rest of the informer, for a memory saving only where
//     labels repeat (docs/performance.md has the figures).
//   - Stop, when Run's ctx ends: delivery stops at once, not after the
//     backlog. Each handler finishes the call it is in and is not called
//     again (its buffer is dropped); the Reflector stops; the pop loop stops
//     after its current batch (the FIFO's remaining changes are dropped);
//     Run returns when the slowest call in progress has. client-go v0.37
//     stops the same way (its listeners drop their pending notifications);
//     work that must finish belongs in the work queue (ShutDownWithDrain).
//   - Logging is contextual (klog.FromContext of Run's ctx) and names the
//     resource once, under "resource" (logctx.With, internal): Run adds it
//     unless its caller (the factory) already did for the same name, and
//     its Reflectors add nothing more (each namespace's Reflector of a
//     multi-namespace informer adds "namespace"). Handler goroutines add
//     "handler" (its number in the informer, from 1).
//   - A panicking handler is recovered per call, logged (kind of event, key,
//     the panic value's type and the stack, never the value: docs/guide.md,
//     "What reaches a log or an error") and reported to
//     Options.HandlerPanic; that handler goes on with its next
//     notification.
//   - Several namespaces (NewMultiNamespace) are one informer, not one per
//     namespace behind a merged view: the API server has no resourceVersion
//     spanning namespaces, so each namespace gets its own Reflector, but they
//     all feed one FIFO partitioned by namespace (a relist tombstones only
//     its own namespace) and one cache. Listers, indexes, handlers and
//     HasSynced then work unchanged, and a cross-namespace List or index
//     lookup is one query, not a merge. Its Reflectors share one request
//     budget (budget.Budget, internal): while they back off, the informer makes
//     about one request a second however many namespaces fail, not one
//     per namespace.
//
// Freshness: after each batch it applies (a relist, events, a bookmark,
// which the FIFO carries in order with the events), the pop loop records in
// the cache the resourceVersion the cache has reached
// (LastStoreSyncResourceVersion; per namespace for a multi-namespace
// informer), never before the writes are visible, and wakes whoever waits
// for it (WaitForResourceVersion, store.Indexer.AfterResourceVersion).
// LastSyncResourceVersion is the Reflector's and may be ahead of the cache.
package informer
