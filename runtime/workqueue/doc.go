// Package workqueue is the last runtime stage: the queue of keys between an
// informer's handlers and a controller's workers.
//
// One type, Queue[K], does what client-go spreads over three twins (plain,
// delaying, rate-limiting queue, each also in an untyped and a Typed form):
// Add/Get/Done with deduplication and the one-worker-per-key guarantee,
// AddAfter, and AddRateLimited/Forget/NumRequeues over a pluggable
// RateLimiter[K].
//
// Design choices:
//   - Semantics follow client-go's workqueue exactly where controllers depend
//     on them: a key waiting in the queue is stored once; a key handed out by
//     Get is not handed out again before Done, and adds meanwhile requeue it
//     once at Done; after ShutDown, Get still returns the queued keys and only
//     then reports shutdown; ShutDownWithDrain also waits for in-flight keys.
//     Unlike client-go, ShutDownWithDrain also waits for keys that are queued
//     but not yet taken, which is what "drain" promises.
//   - Queued keys live in a ring buffer that carries its own hash index
//     (keyRing): 8-byte open-addressing slots holding a hash tag and the
//     key's position, so Add's dedup lookup-and-insert reads one cache line
//     of slots, and Get removes the key's slot using the tag stored beside it
//     without hashing again. A map[K]struct{} beside the ring, as before,
//     cost a cache miss or two per Add and per Get once the backlog outgrew
//     the CPU cache: BenchmarkWorkQueueWorkers1 ran at 1.8x client-go's
//     throughput with it. Keys are hashed with hash/maphash.Comparable, once
//     per Add and Done and outside the lock. Keys being processed are a
//     small slice, searched by tag, whose entries record a re-add; one index
//     for both states was not tried with this layout (with maps it measured
//     no better).
//   - One mutex guards it all; Add, Get and Done take it once each, retrying
//     TryLock before parking (sync.Mutex would park at once whenever there
//     are more workers than cores), and only workers nobody has woken yet
//     are signalled. With 8 workers on 2 cores this runs at about the speed
//     of a bare mutex-and-slice queue that keeps none of the guarantees
//     (BenchmarkWorkQueueFloorWorkers8). Sharding the lock was measured: it
//     only pays if keys may be handed out out of order, and lock-free Done
//     lost more with one worker than it won with eight
//     (docs/performance.md).
//   - No goroutine unless needed: the delay goroutine (one timer, one heap) is
//     started by the first AddAfter/AddRateLimited with a positive delay, the
//     metrics goroutine only when a MetricsProvider is set. ShutDown stops
//     both and waits for them. To stop a queue with a context, use
//     context.AfterFunc(ctx, q.ShutDown) (or ShutDownWithDrain).
//   - Run(ctx, workers, reconcile) is the controller loop most users write
//     by hand (Get, reconcile, AddRateLimited or Forget, Done), with panics
//     recovered and ctx tied to ShutDown; the methods stay public for loops
//     it does not fit.
//   - The token bucket is written here (golang.org/x/time/rate is not a
//     dependency) with the reservation semantics client-go relies on.
//   - Metrics have client-go's set and meaning, through a MetricsProvider
//     whose methods return tiny interfaces that Prometheus types satisfy.
//     Without a provider, the hot path pays one nil check.
package workqueue
