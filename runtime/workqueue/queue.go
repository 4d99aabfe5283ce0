package workqueue

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	clientgo "k8s.io/client-go/util/workqueue"
)

// Options configures New. The zero value is a usable queue with
// DefaultRateLimiter and no metrics.
type Options[K comparable] struct {
	// Name identifies the queue to the Metrics provider (the "name" label
	// of client-go's workqueue metrics).
	Name string
	// RateLimiter decides the delay of AddRateLimited; nil means
	// DefaultRateLimiter[K]().
	RateLimiter RateLimiter[K]
	// Metrics, when not nil, receives the queue's metrics: client-go's
	// workqueue.MetricsProvider itself, so a provider written for
	// client-go's queues (controller-runtime's, a Prometheus one) is used
	// as it is. Each of its methods is called once, from New; a provider
	// that is also a PriorityMetricsProvider reports the depth per
	// priority. With metrics the queue runs one goroutine that refreshes
	// the unfinished-work and longest-running gauges every
	// MetricsUpdatePeriod until ShutDown.
	Metrics clientgo.MetricsProvider
	// MetricsUpdatePeriod defaults to 500ms, as in client-go.
	MetricsUpdatePeriod time.Duration
	// StarvationLimit bounds how long keys of a low priority wait behind
	// keys of higher priorities: while keys of a priority are queued, at
	// most StarvationLimit keys of higher priorities are handed out in a
	// row before one of them. 0 means 16. It does not
	// matter to a queue whose keys are all added at one priority.
	StarvationLimit int
}

// Queue is a work queue of keys K for controllers: Add deduplicates keys
// that are waiting, Get hands each key to one worker at a time, AddAfter and
// AddRateLimited delay keys, and the shutdown methods stop it.
//
// Guarantees, the same as client-go's workqueue:
//   - A key waiting in the queue is stored once however often it is added.
//   - A key is never handed to two workers at once: between Get returning k
//     and Done(k), k is not returned again. If k is added meanwhile, it is
//     queued once more when Done(k) is called.
//   - Among keys of one priority, keys are handed out in the order they
//     became ready (FIFO). Add's keys have priority 0; AddWithOpts sets
//     another (see Priorities).
//
// All methods are safe for concurrent use. Every key returned by Get must be
// passed to Done exactly once, or it is never processed again and
// ShutDownWithDrain blocks.
//
// The queue runs a goroutine only for AddAfter/AddRateLimited (started on the
// first delayed add) and for metrics; ShutDown and ShutDownWithDrain stop them
// and return only after they have exited. To tie a queue to a context, call
// context.AfterFunc(ctx, q.ShutDown).
type Queue[K comparable] struct {
	// Producer side: Add, the delayed keys, and Done's requeue. Each lock
	// has a cache line of its own, away from the fields its holder writes.
	_   [56]byte
	pmu sync.Mutex
	_   [56]byte

	rl RateLimiter[K]

	// delayed holds AddAfter keys until they are ready; the delay goroutine
	// moves them to the queue. Started lazily.
	delayed      delayHeap[K]
	delayedIndex map[K]int
	delayRunning bool
	wake         chan struct{} // cap 1: nudges the delay goroutine
	stop         chan struct{} // closed by shutdown
	wg           sync.WaitGroup

	// lanes are the priorities keys were added with, highest first; lanes
	// other than def exist only once a key was added with a priority other
	// than 0, and from then on prioMode is true. Both are written under
	// pmu and cmu, so either lock is enough to read them.
	lanes    []*lane[K]
	prioMode bool
	// starvationLimit: see Options.StarvationLimit.
	starvationLimit int

	// Consumer side: Get.
	_   [56]byte
	cmu sync.Mutex
	_   [56]byte
	// cond: workers in Get wait for a key or shutdown. drained:
	// ShutDownWithDrain waits for the end. Both have L = &cmu.
	cond    sync.Cond
	drained sync.Cond
	// waiters counts workers blocked in Get that no Signal has been sent
	// to yet: whoever signals decrements it, a Broadcast zeroes it. Changed
	// under cmu; Add reads it without, after publishing a key, and takes
	// cmu to signal only when it is positive.
	waiters atomic.Int32

	// def is the lane of priority 0, the only one of a FIFO queue.
	def lane[K]

	// Shared, read without locks.
	// tombs counts queued slots whose key moved to a higher priority and
	// that no Get has skipped yet (for Len).
	tombs atomic.Int64
	// requeues counts Dones between taking their key out of processing and
	// queueing it again, so ShutDownWithDrain does not see "nothing left"
	// in between.
	requeues     atomic.Int32
	shuttingDown atomic.Bool // set under pmu
	drain        atomic.Bool // ShutDownWithDrain is waiting
	seed         maphash.Seed
	m            *metrics[K] // nil without Options.Metrics
	mmu          sync.Mutex  // guards m
	_            [56]byte
	processing   inflightSet[K]
}

// New returns an empty queue configured by opts. See Queue for its contract.
func New[K comparable](opts Options[K]) *Queue[K] {
	q := &Queue[K]{
		rl:   opts.RateLimiter,
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
		seed: maphash.MakeSeed(),
	}
	q.cond.L = &q.cmu
	q.drained.L = &q.cmu
	q.def.init(0)
	q.lanes = []*lane[K]{&q.def}
	q.starvationLimit = opts.StarvationLimit
	if q.starvationLimit <= 0 {
		q.starvationLimit = defaultStarvationLimit
	}
	if q.rl == nil {
		q.rl = DefaultRateLimiter[K]()
	}
	if opts.Metrics != nil {
		q.m = newMetrics[K](opts.Metrics, opts.Name)
		period := opts.MetricsUpdatePeriod
		if period <= 0 {
			period = 500 * time.Millisecond
		}
		q.wg.Go(func() { q.metricsLoop(period) })
	}
	return q
}

// tag is a key's 32-bit hash, never 0 (a free slot is 0). It only reads
// the seed, so callers compute it before taking a lock.
func (q *Queue[K]) tag(key K) uint32 {
	return uint32(maphash.Comparable(q.seed, key)) | 1
}

// Add marks key as needing processing. It never blocks on workers. After
// ShutDown or ShutDownWithDrain, Add does nothing (as client-go).
func (q *Queue[K]) Add(key K) {
	tag := q.tag(key) // hashed before taking the lock
	lock(&q.pmu)
	queued := q.addLocked(key, tag, 0)
	q.pmu.Unlock()
	if queued {
		q.wakeOne()
	}
}

// addLocked adds key (tag) at priority prio under pmu and reports whether
// it published a key for Get (queued it, or moved it to a higher priority).
func (q *Queue[K]) addLocked(key K, tag uint32, prio int) bool {
	if q.shuttingDown.Load() {
		return false
	}
	l := q.laneLocked(prio)
	// Look at the queue before processing: Get claims a processing slot
	// for a key before it moves a lane's headSeq past it, so a key that is
	// not queued by a headSeq loaded earlier (headSeen, or the fresh load
	// that checks a hit) is in processing now, unless its Done has
	// finished.
	queued, published, noted := q.queuedLocked(key, tag, l)
	if queued {
		return published
	}
	// A key no lane's filter holds is not processing either (see
	// pending.go): most new keys skip the processing set.
	if noted {
		if found, wasAgain, old := q.processing.markAgain(key, tag, l.prio); found {
			// Its Done queues it again, at the highest priority it was
			// re-added with.
			if q.m != nil {
				q.mmu.Lock()
				switch {
				case !wasAgain:
					q.m.add(key, l.prio)
				case old < l.prio:
					q.m.move(old, l.prio)
				}
				q.mmu.Unlock()
			}
			return false
		}
	}
	if q.m != nil {
		q.mmu.Lock()
		q.m.add(key, l.prio) // before the key is published, so before its Get
		q.mmu.Unlock()
	}
	q.pushLocked(l, key, tag)
	return true
}

// queuedLocked reports whether key (tag) is queued. When it is queued at a
// lower priority than want's, it moves it to want (the highest priority
// wins) unless a Get has taken it since the look, and reports published.
// noted is false when no lane's filter holds tag: then key is neither
// queued nor processing. The caller holds pmu.
func (q *Queue[K]) queuedLocked(key K, tag uint32, want *lane[K]) (queued, published, noted bool) {
	for _, l := range q.lanes {
		if !l.pend.filter.mayHold(tag) {
			continue
		}
		noted = true
		slot, ok := l.pend.find(key, tag, l.headSeen, l.tail)
		if !ok {
			continue
		}
		h := l.headSeq.Load()
		if h != l.headSeen {
			l.headSeen = h
			if slot, ok = l.pend.find(key, tag, h, l.tail); !ok {
				// Handed out since: in processing, or done and perhaps
				// queued again in another lane.
				continue
			}
		}
		if want.prio <= l.prio {
			return true, false, true // queued at this priority or a higher one
		}
		// Move it: under cmu, so that no Get takes it meanwhile (a Get
		// then reads the head of a lane without writing to it). Moves
		// are rare: a key queued at a low priority, added at a higher.
		lock(&q.cmu)
		moved := l.pend.tombstone(slot, l.headSeq.Load(), l.tail)
		q.cmu.Unlock()
		if !moved {
			continue // handed out since, as above
		}
		q.tombs.Add(1)
		if q.m != nil {
			q.mmu.Lock()
			q.m.move(l.prio, want.prio)
			q.mmu.Unlock()
		}
		q.pushLocked(want, key, tag)
		return true, true, true
	}
	return false, false, noted
}

// pushLocked appends key (tag), which is neither queued nor processing, to
// lane l and publishes it. The caller holds pmu.
func (q *Queue[K]) pushLocked(l *lane[K], key K, tag uint32) {
	if l.pend.needsHead(l.tail) {
		l.headSeen = l.headSeq.Load() // to drop handed-out chunks and index entries
	}
	l.pend.append(key, tag, l.tail, l.headSeen, &q.processing)
	l.tail++
}

// wakeOne wakes a worker blocked in Get, if one is and none has been woken
// for it yet. Called after publishing a key, without pmu: a worker that
// found the queue empty counted itself in waiters before it looked, so it
// is either seen here or it saw the key.
func (q *Queue[K]) wakeOne() {
	if q.waiters.Load() > 0 {
		lock(&q.cmu)
		q.signalLocked()
		q.cmu.Unlock()
	}
}

// signalLocked wakes one worker blocked in Get that has not been woken yet,
// if there is one. The caller holds cmu.
func (q *Queue[K]) signalLocked() {
	if q.waiters.Load() > 0 {
		q.waiters.Add(-1)
		q.cond.Signal()
	}
}

// Get blocks until a key is ready and returns it; the caller must call
// Done(key) when finished with it. After ShutDown, Get keeps returning the
// keys still queued and then returns shutdown=true (client-go semantics): a
// worker loop ends when shutdown is true. Get has no ctx: shut the queue down
// to release blocked workers. Keys of higher priority come first, within
// the bound of Options.StarvationLimit.
func (q *Queue[K]) Get() (key K, shutdown bool) {
	key, _, shutdown = q.GetWithPriority()
	return key, shutdown
}

// GetWithPriority is Get that also returns the priority key was queued at,
// so that a worker can requeue it at the same priority (as Run does with
// AddWithOpts{RateLimited: true, Priority: priority}).
func (q *Queue[K]) GetWithPriority() (key K, priority int, shutdown bool) {
	lock(&q.cmu)
	for {
		if k, prio, ok := q.takeLocked(); ok {
			q.cmu.Unlock()
			return k, prio, false
		}
		if q.shuttingDown.Load() {
			q.cmu.Unlock()
			return key, 0, true
		}
		// Count ourselves before looking again: an Add that publishes after
		// this look sees waiters > 0 and signals, under cmu, which it gets
		// only once Wait has released it.
		q.waiters.Add(1)
		if q.readyLocked() || q.shuttingDown.Load() {
			q.waiters.Add(-1) // nobody signalled us: that needs cmu
			continue
		}
		q.cond.Wait() // whoever woke us decremented waiters
	}
}

// Done marks key as finished. If key was added while it was being processed,
// it is queued again now (once, however many adds there were). Done of a key
// that is not being processed does nothing.
func (q *Queue[K]) Done(key K) {
	tag := q.tag(key)
	c, i, st := q.processing.pin(key, tag)
	if c == nil {
		return
	}
	if st&slotAgain == 0 {
		// Nobody re-added it: done without a lock. Metrics first, while the
		// slot is pinned: once it is free, a new Get of key may start.
		q.metricsDone(key)
		q.processing.release(c, i)
		q.wakeDrainer()
		return
	}
	// Requeue it under pmu, so that no Add sees it neither processing nor
	// queued. Unpin first: Add spins on pins while holding pmu. Only this
	// Done clears slotAgain, so it is still set below.
	c.states[i].Store(st)
	q.requeues.Add(1)
	lock(&q.pmu)
	c, i, _ = q.processing.pin(key, tag)
	// The highest priority key was re-added with, read now: an Add may
	// have raised it while we waited for pmu.
	prio := c.prios[i]
	q.metricsDone(key)
	q.processing.release(c, i)
	q.pushLocked(q.laneLocked(prio), key, tag) // queued even after ShutDown, for the drain
	q.pmu.Unlock()
	q.requeues.Add(-1)
	q.wakeOne()
	q.wakeDrainer()
}

// wakeDrainer wakes ShutDownWithDrain, if it waits, when nothing is left.
// Called after a Done without cmu: ShutDownWithDrain sets drain before it
// looks, so either it sees this Done's effect or this sees drain.
func (q *Queue[K]) wakeDrainer() {
	if q.drain.Load() {
		lock(&q.cmu)
		q.drainedLocked()
		q.cmu.Unlock()
	}
}

func (q *Queue[K]) metricsDone(key K) {
	if q.m != nil {
		q.mmu.Lock()
		q.m.done(key)
		q.mmu.Unlock()
	}
}

// drainedLocked wakes ShutDownWithDrain if nothing is left. Caller holds cmu.
func (q *Queue[K]) drainedLocked() {
	if q.drain.Load() && q.emptyAndIdle() {
		q.drained.Broadcast()
	}
}

// emptyAndIdle reports that nothing is queued, processing or being requeued.
// The order of the loads matters: a requeueing Done counts itself in
// requeues before it leaves processing and uncounts itself after the key is
// queued, so whichever of its steps this falls between, one load sees it.
// The caller holds cmu, so no Get moves a key meanwhile.
func (q *Queue[K]) emptyAndIdle() bool {
	if q.processing.len() != 0 || q.requeues.Load() != 0 {
		return false
	}
	return !q.readyLocked()
}

// Len returns the number of keys ready to be handed out (not those being
// processed or waiting in AddAfter). Informational only: do not gate Add or
// Get on it.
func (q *Queue[K]) Len() int {
	lock(&q.pmu)
	defer q.pmu.Unlock()
	n := -q.tombs.Load()
	for _, l := range q.lanes {
		n += int64(l.tail - l.headSeq.Load())
	}
	return int(max(n, 0))
}

// AddRateLimited adds key after the delay the RateLimiter gives it (for the
// default limiter: 5ms doubling per failure of key up to 1000s, and at most
// 10 per second overall with bursts of 100), at priority 0. To keep a key's
// priority, use AddWithOpts(AddOpts{RateLimited: true, Priority: p}, key).
func (q *Queue[K]) AddRateLimited(key K) {
	q.addAfter(key, q.rl.When(key), 0, true)
}

// Forget tells the RateLimiter that key succeeded, resetting its backoff.
// It does not remove key from the queue.
func (q *Queue[K]) Forget(key K) { q.rl.Forget(key) }

// NumRequeues returns how many times key was rate-limited since its last
// Forget.
func (q *Queue[K]) NumRequeues(key K) int { return q.rl.NumRequeues(key) }

// ShutDown makes Add and AddAfter no-ops, drops delayed keys, and releases
// workers: Get returns the keys still queued, then shutdown=true. It does
// not wait for workers, only for the queue's own goroutines. Safe to call
// more than once; it ends a concurrent ShutDownWithDrain's wait.
func (q *Queue[K]) ShutDown() {
	q.drain.Store(false)
	q.shutdown()
	q.wg.Wait()
}

// ShutDownWithDrain is ShutDown, then it blocks until every queued key has
// been handed out and every handed-out key is Done (including keys requeued
// by Done). Workers must keep calling Get and Done, or it blocks forever; a
// concurrent ShutDown ends the wait early.
func (q *Queue[K]) ShutDownWithDrain() {
	// Set before looking: a lock-free Done that empties the queue after
	// the look sees drain and takes cmu to wake this wait.
	q.drain.Store(true)
	q.shutdown()
	lock(&q.cmu)
	for q.drain.Load() && !q.emptyAndIdle() {
		q.drained.Wait()
	}
	q.cmu.Unlock()
	q.wg.Wait()
}

// shutdown stops Add, the delay goroutine and the metrics goroutine, and
// wakes everyone blocked on the queue.
func (q *Queue[K]) shutdown() {
	lock(&q.pmu)
	if !q.shuttingDown.Load() {
		q.shuttingDown.Store(true)
		close(q.stop)
		q.delayed.items = nil
		q.delayedIndex = nil
	}
	q.pmu.Unlock()
	lock(&q.cmu)
	q.waiters.Store(0)
	q.cond.Broadcast()
	q.drained.Broadcast()
	q.cmu.Unlock()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[K]) ShuttingDown() bool { return q.shuttingDown.Load() }

// lock takes m, for the queue's short critical sections. sync.Mutex spins
// only while the P has no other runnable goroutine, so with more workers
// than cores (the usual controller setup) a contended Lock parks at once,
// and the park plus the wake-up in Unlock cost ten times the critical
// section. Retrying TryLock a bounded number of times first (lockSpins, a
// few hundred nanoseconds at most) gets the lock from a holder on another
// core without parking; after that Lock parks as before.
func lock(m *sync.Mutex) {
	for range lockSpins {
		if m.TryLock() {
			return
		}
	}
	m.Lock()
}

const lockSpins = 64
