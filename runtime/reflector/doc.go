// Package reflector lists and watches a resource and feeds the changes to a
// Sink (the DeltaFIFO). It is the stage between the API server (a
// ListerWatcher: package listwatch, or runtimetest's fake) and package fifo.
//
// Design choices that differ from client-go's tools/cache.Reflector, and why:
//
//   - Typed: ListerWatcher[T] returns []T pages, so there is no
//     runtime.Object list to reflect over. T itself is the expected type;
//     Options.ObjectType narrows it for the informer's untyped core (where T
//     is cache.Obj). A watch event whose object is not of that type is
//     refused (ErrMalformedEvent; see "Hostile servers" below).
//   - One state machine (see "States" below), one goroutine, no resync (the
//     informer resyncs each handler from its cache): sync (WatchList, or a
//     LIST) → watch → on server close resume from the last resourceVersion,
//     on 410 Gone/Expired, 400 or 422 relist, on other errors back off and
//     watch again. client-go relists after most watch errors; resuming is
//     cheaper and just as safe, because a stale resourceVersion answers 410
//     and forces the relist.
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
//     doubling to 2s), it resets after a healthy watch that stayed open a
//     second rather than after two quiet minutes, a 429's Retry-After is
//     honoured exactly, and a watch that ends within a second of its start
//     is backed off whatever it delivered (client-go backs off only watches
//     without events, so a server that closes each watch after one event
//     is hammered).
//   - Retries are paced per informer, not per Reflector: the Reflectors
//     of an informer (one per namespace of a multi-namespace one) share a
//     request budget (the informer's; a Reflector alone has its own) of one request a second for every
//     request they make while backing off, so N failing namespaces do not
//     make N times the requests (controller-runtime's multi-namespace
//     cache runs an informer, and a backoff, per namespace).
//   - A watch the server rejects (400, 422, 410) relists; client-go retries
//     a rejected resourceVersion forever.
//   - What a broken server or proxy sends is refused by one rule, below
//     (client-go stores objects without a name under "ns/", resumes from
//     any resourceVersion an event carries, older or not a number, and
//     stores a LIST whatever its items).
//   - Time comes from the time package, so tests run Reflectors inside a
//     testing/synctest bubble instead of injecting a clock.
//   - WatchList refusals are remembered for the Reflector's lifetime. An
//     initial stream is given up only when it stalls: no event or bookmark
//     for Options.WatchListTimeout, counted from the last one, so a stream
//     that takes ten minutes to send a million objects runs to its end
//     (client-go's bound counts from the start). A stalled stream
//     (ErrInitialEventsTimeout), like any transient WatchList failure, is
//     reported and falls back to LIST for that sync only; the next relist
//     tries WatchList again. The WatchList request asks the server for a
//     timeout in [30m, 60m), not the 5 to 10 minutes of other watches: the
//     server ends a watch at its timeout, initial events included. The
//     initial events build the list without a key index while their keys
//     rise, as kube-apiserver sends them (client-go keeps them in a
//     temporary store): at a sync's peak, ~50 B an object less.
//   - Errors never stop a Reflector: every one goes to
//     Options.WatchErrorHandler and LastError and is followed by a wait (a
//     429's Retry-After exactly, else a backoff step and a turn of the
//     Budget); a 403 or 404 on LIST is retried forever, and the informer
//     surfaces LastError. Watches ask for bookmarks (they move
//     LastSyncResourceVersion) and a server-side timeout random in
//     [5m, 10m), as client-go's, so that many clients' watches do not end
//     together.
//   - ListOptions may change while it runs (a ListerWatcher whose Tweak
//     reads a shard's selector): the trigger in Options.Relist stops the
//     watch and relists with them. client-go's Reflector cannot be told.
//
// # States
//
// Run is a loop over four states; each does one thing and its outcome
// alone decides the next. This is the one description of the behaviour;
// state.go holds the states, each with its own data, and one transition
// function, next, of (state, outcome) only, and TestNext lists every
// transition as a table:
//
//   - initialEvents (a sync by WatchList): opens a watch with
//     sendInitialEvents=true and reads its events up to the
//     initial-events-end bookmark, then hands them to Sink.Replace. Synced:
//     watching, on the same watch, and the Reflector is synced. The server
//     refusing WatchList (400, 422, 405, 406): listing, at once, and LIST
//     from then on. The stream's content refused: listing after a backoff
//     step, WatchList again at the next sync. The stream stalling (no event
//     or bookmark for Options.WatchListTimeout; ErrInitialEventsTimeout,
//     reported after 10s without progress and when given up) or another
//     failure: listing at once, this time only.
//   - listing (a sync by LIST, when WatchList is off, given up or failed
//     this time): a LIST of every page, handed to Sink.Replace. Synced:
//     resume. Failed, or an item refused: a backoff step, then the sync
//     again (initialEvents unless WatchList is off or given up).
//   - resume (the Sink holds the server's state up to
//     LastSyncResourceVersion, no watch is open): opens a watch from there.
//     Accepted: watching, and the Reflector is synced. 410: relist (cause
//     "expired"); 400 or 422: relist ("rejected"); both after a backoff
//     step; another failure (a 403, a 503): a backoff step and resume again.
//     Options.Relist having fired: relist ("requested") at once.
//   - watching (a watch is open): applies its events to the Sink, bookmarks
//     moving LastSyncResourceVersion. Closed by the server: resume, after a
//     backoff step if it lasted less than a second, at the next free turn
//     of the Budget if less than a minute, else at once. An event refused:
//     a backoff step, then resume from the last resourceVersion applied, or
//     relist ("undecodable") when more than three watches in a row ended so
//     without progress. An ERROR event: as a failure in resume, except that
//     a relist after a watch that stayed open a minute goes at once.
//     Options.Relist firing: relist ("requested") at once. A watch that
//     stayed open a second and did not end in a refused event resets the
//     backoff.
//
// Run starts with a sync (cause "initial"). The causes are what
// Metrics.Relist receives.
//
// A relist does not decode again what the cache holds already. Its LIST or
// WatchList requests carry the Sink's lookup (the informer's FIFO) in their
// context, and a codec that reads an item's metadata first (wire's protobuf
// and JSON codecs; CBOR decodes every item) hands on the cached object for
// an item at the same resourceVersion: the etcd revision of the object's
// last write, so the same object. The relist then allocates only what
// changed, instead of a second copy of the whole cache next to the first
// (which a relist, applied atomically, holds live until it is applied):
// the peak a relist adds to a process, and its decoding CPU, are those of
// the objects that changed since the last sync.
//
// # Hostile servers
//
// One rule covers every watch event the Reflector does not apply: an
// undecodable one (MalformedObject), one whose object is not T, one whose
// object has no valid key (no metadata.name, a "/" in it, a namespace that
// contradicts the resource's scope, which the
// factory's informers know), one whose resourceVersion is not a decimal
// uint64 (empty included) or is not newer than the last one applied (older,
// or repeated), a bookmark without metadata or older than the last
// resourceVersion, an event of unknown type. Such an event
//
//  1. is not applied: the cache never holds it, and it never becomes the
//     resourceVersion to resume from;
//  2. is reported (LastError, Options.WatchErrorHandler; the error wraps
//     ErrMalformedEvent, ErrInvalidObject, ErrInvalidResourceVersion or
//     ErrStaleResourceVersion and names the resource and key, never the
//     object's content) and counted (Metrics.Rejected, and
//     Metrics.WatchDone with that error);
//  3. ends the watch, and the next one waits a backoff step, exactly as
//     after a failed request, and its turn of the informer's request
//     Budget; it resumes from the last resourceVersion applied, so a change
//     the event garbled is read again; when more than three watches in a
//     row end so without progress, the Reflector relists ("undecodable").
//
// Only a watch that stayed open a second and did not end in a refused event
// resets the backoff, and until then every request (a LIST after a failure,
// the watch that follows it) waits for a turn of the Budget the Reflector
// shares with the other Reflectors of its informer, turns being a second
// apart; resuming or relisting after a watch that ended within a minute
// waits for a turn too (at once unless the informer is backing off). So
// whatever a server sends, and however many of an informer's namespaces it
// garbles, the informer opens at most about one request a second, the
// budget being per informer, not per Reflector; and as no wait exceeds
// max(Options.MaxBackoff, one second per Reflector of the informer), 2s for
// one or two namespaces, its cache equals the server's within that bound
// once the server is healthy again (see Options.InitialBackoff). A LIST, or a
// WatchList's initial stream, with an item that would be refused the same
// way is not applied at all (a partial list would delete what it lacks):
// it fails, is reported and counted the same way (Metrics.ListDone gets the
// error), and is retried with backoff until the server sends a valid one;
// until then a new informer does not sync and WaitForCacheSync's error
// names the fault.
// An ERROR event is not a refusal but the server's answer, handled as a
// failed request (relisting for 410, 400 and 422). A page's
// remainingItemCount only sizes the list being collected, once, on the
// first page: a negative one is ignored and the room it buys is bounded
// (2^20 items), so a false count costs at most that allocation.
//
// # Synced
//
// A Reflector is synced (HasSynced, Synced) once its initial list has been
// handed to the Sink and the server has accepted a watch after it: with
// WatchList, the stream that carried the list (its initial-events-end
// bookmark arrived); after a LIST, the watch that follows it, once the
// server answered it 200 (the REST client returns the watch after the
// response headers). The informer is synced when its cache holds the list
// and each of its Reflectors is synced. So a client that may list but not
// watch (RBAC) is never reported synced over a cache it could not keep up
// to date: the list is applied, the 401 or 403 on the watch is reported
// (LastError, so WaitForCacheSync's error is the server's, naming the verb,
// the resource and the namespace or cluster scope refused) and the watch is
// retried with backoff like any failed one. client-go reports such a cache
// synced while every watch is refused. The watch after the initial LIST
// takes no turn of the Budget, even while the Reflector backs off from
// failed LISTs, so that the sync is not held back a further turn; it is one
// request in the Reflector's lifetime, so the Budget's bound stands. Synced
// stays true once true: later relists and refused watches show in LastError,
// as in client-go.
//
// A source whose objects carry no resourceVersions, client-go's fake
// clientsets (whose tracker leaves them empty), is recognised by the marker
// its ListerWatcher carries (IsWatchListSemanticsUnSupported, see
// listwatch.Funcs): the Reflector does not check its objects'
// resourceVersions, and resumes only from valid ones.
//
// Logging goes to klog.FromContext(ctx), with the resource named once under
// the key "resource": Run adds resource=Name unless an outer component (the
// informer, the factory) already named it. Errors at the default level,
// lifecycle at V(2), per-watch chatter at V(4). What a log line or an error
// may say is one rule for the whole runtime: docs/guide.md, "What reaches a
// log or an error" (names, keys, resourceVersions; never object contents).
package reflector
