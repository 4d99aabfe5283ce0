// Package workqueue is the last runtime stage: the queue of keys between an
// informer's handlers and a controller's workers.
//
// One type, Queue[K], does what client-go spreads over three twins (plain,
// delaying, rate-limiting queue, each also in an untyped and a Typed form):
// Add/Get/Done with deduplication and the one-worker-per-key guarantee,
// AddAfter, and AddRateLimited/Forget/NumRequeues over a pluggable
// RateLimiter[K]. Priorities are built in: AddWithOpts sets a key's
// priority (higher first, the highest a waiting key was added with wins,
// delayed and requeued keys keep theirs, and Options.StarvationLimit keeps
// low priorities from starving); Handler is the informer handler that gives
// an initial list and resyncs LowPriority. See priority.go for the rules.
//
// Design choices:
//   - Semantics follow client-go's workqueue exactly where controllers depend
//     on them: a key waiting in the queue is stored once; a key handed out by
//     Get is not handed out again before Done, and adds meanwhile requeue it
//     once at Done; after ShutDown, Get still returns the queued keys and only
//     then reports shutdown; ShutDownWithDrain also waits for in-flight keys.
//     Unlike client-go, ShutDownWithDrain also waits for keys that are queued
//     but not yet taken, which is what "drain" promises.
//   - Producer and workers do not share a lock. Add (and the delay
//     goroutine, and Done when it requeues) holds the producer lock; Get
//     holds the consumer lock; Done of a key nobody re-added holds none.
//     An Add that creates a priority's lane or moves a queued key to a
//     higher priority (rare) takes the consumer lock too, after its own.
//     With one lock for everything, workers contend with the producer on
//     every key, and with more workers than cores that lock is the queue's
//     speed; docs/performance.md ("In memory: the runtime") has the
//     figures. The pieces (pending.go, inflight.go, delay.go):
//   - Queued keys sit in a lane per priority (one, priority 0, until
//     another priority is used; only then does Get look at several): a
//     FIFO of 128-key chunks, each key with a sequence number. Add writes
//     a key and publishes it by storing its tag beside it; Get reads the
//     next slot and moves headSeq past it. A key reaches a worker in the
//     cache line the worker reads anyway, with no shared tail counter.
//     Consumed chunks are reused.
//   - Deduplication is Add's alone: an open-addressing index from tag to
//     sequence number (8 bytes a slot: the seq's low 32 bits) that Get
//     never touches. An entry below headSeq is stale (its key was handed
//     out) and counts as absent; stale entries are overwritten, and the
//     index is rebuilt when three quarters full: from the old table in
//     slot order when it grows, from the queued keys when it keeps its
//     size. It does not shrink below what the lane's recent peak needed,
//     so a backlog that drains and fills again reuses its table. Add
//     decides "not queued" from the headSeq it loaded last and confirms
//     "queued" with a fresh load, so most Adds do not read the line every
//     Get writes.
//   - In front of the index, a tag filter (a Bloom filter, an eighth of
//     the index's size) holds every key queued or being processed: a new
//     key's Add, the common case, looks in neither the index (megabytes
//     for a long queue: a cache miss per key) nor the processing set (a
//     line the workers write). The index is filled late, in batches, when
//     a lookup needs it, so that its cache misses overlap.
//   - Keys being processed are slots with an atomic state word (tag, used,
//     re-added, pinned). Get claims a slot before it moves headSeq, so an
//     Add that finds a key no longer queued finds it there; Add marks a
//     re-add by pinning the slot; Done pins, frees, and only when the key
//     was re-added takes the producer lock to queue it again.
//   - Queue memory is reused: a lane keeps the chunks a drain frees, up to
//     the most it held lately, so a backlog that workers catch up with and
//     that fills again (the usual shape with one fast producer) does not
//     allocate its chunks again.
//   - Locks are taken by retrying TryLock before Lock (sync.Mutex parks at
//     once whenever there are more goroutines than cores), and only
//     workers nobody has woken yet are signalled. Keys are hashed with
//     hash/maphash.Comparable, once per Add and Done, outside the locks.
//   - Measured and dropped: sharding by key (pays
//     only if FIFO order across keys goes), lock-free Done on the one-lock
//     queue, a producer-side buffer that Get moved into the indexed
//     ring (the backlog's index then outgrew the cache), sweeping the
//     index in place at a rebuild instead of inserting its live keys again
//     (no gain: a new queue's rebuilds are growths, and the keys then wait
//     for a flush), an index in generations (keys inserted once into
//     the newest table, old tables dropped once handed out, instead of
//     every queued key inserted again at each growth: no gain beyond the
//     noise, since a key's insert into a table of megabytes, its cache and
//     TLB misses, costs about the same at a flush as at a rebuild), and
//     processing slots on cache lines of their own, each key searched from
//     a home slot chosen by its tag (no gain on a busy machine, and more
//     CPU per key with no work: a lookup of a key not processing reads
//     every slot's line instead of one line of state words), nor from a
//     home slot per goroutine (the stack's 8 KB block, so that a worker's
//     Get and Done write a line its own core wrote last: Done's share of a
//     profile of 8 workers with 2 µs of work fell from 0.16 to 0.06 µs a
//     key, but the workers' loop cost the same, its time moving to the
//     next line both cores write, the harness's own counter of processed
//     keys; end to end within the noise).
//     Two other growth policies for the index, against the producer's
//     rebuilds when a backlog drains and fills again: growing straight to
//     the largest size a rebuild needed lately (one growth a refill
//     instead of a doubling each step: the table that fills at that size
//     grows again with every entry, so the rebuilds' time did not fall,
//     0.24 s against 0.15 s in a profile of the 8-worker 2 µs shape, and
//     producer CPU in BenchmarkPendingBacklogCycles moved within the
//     noise), and growing fourfold instead of twofold (about 15% less
//     producer CPU in BenchmarkPendingBacklogCycles with a backlog of
//     16,384 keys, none with 130,000; in the 8-worker harness the queue's
//     CPU per key beyond the work unchanged with 2 µs of work, and with no
//     work 158–224 ns a key against 157–167: the sparser table's inserts
//     and lookups miss the cache more). Done without hashing its key
//     was not built: Done gets only the key, and finding its slot without
//     the tag means comparing the key of every used slot, each behind a pin
//     (a compare-and-swap on the line other workers' Dones write), which
//     costs more than the hash (about 7 ns for a string key).
//     One map from key to all its state (queued, processing,
//     priority) was not built: Get and Done would each touch the key's
//     entry in it, a cache miss a key on a long queue, where here Get reads
//     the FIFO in order and Done a processing set of a line or two.
//   - No goroutine unless needed: the delay goroutine (one timer, one heap) is
//     started by the first AddAfter/AddRateLimited with a positive delay, the
//     metrics goroutine only when Options.Metrics is set. ShutDown stops
//     both and waits for them. To stop a queue with a context, use
//     context.AfterFunc(ctx, q.ShutDown) (or ShutDownWithDrain).
//   - Run(ctx, workers, reconcile) is the controller loop most users write
//     by hand (Get, reconcile, AddRateLimited or Forget, Done), with panics
//     recovered (logged with the key, the value's type and the stack, never
//     the value) and ctx tied to ShutDown; the methods stay public for loops
//     it does not fit.
//   - The token bucket is written here (not golang.org/x/time/rate's) with
//     the reservation semantics client-go relies on.
//   - Metrics have client-go's set and meaning, through client-go's own
//     workqueue.MetricsProvider interface (its methods return tiny
//     interfaces that Prometheus types satisfy), so a provider written for
//     client-go's queues needs no change; the queue imports that package
//     for its interfaces only. Without a provider, the hot path pays one
//     nil check.
package workqueue
