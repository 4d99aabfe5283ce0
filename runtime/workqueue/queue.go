package workqueue

import (
	"sync"
	"time"
)

// Options configures New. The zero value is a usable queue with
// DefaultRateLimiter and no metrics.
type Options[K comparable] struct {
	// Name identifies the queue to the MetricsProvider (the "name" label of
	// client-go's workqueue metrics).
	Name string
	// RateLimiter decides the delay of AddRateLimited; nil means
	// DefaultRateLimiter[K]().
	RateLimiter RateLimiter[K]
	// Metrics, when not nil, receives the queue's metrics. With metrics the
	// queue runs one goroutine that refreshes the unfinished-work and
	// longest-running gauges every MetricsUpdatePeriod until ShutDown.
	Metrics MetricsProvider
	// MetricsUpdatePeriod defaults to 500ms, as in client-go.
	MetricsUpdatePeriod time.Duration
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
//   - Keys are handed out in the order they became ready (FIFO).
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
	// mu has a cache line of its own: workers waiting for it read it while
	// the holder writes the fields below, and with them on its line each of
	// those writes took the line back from the waiters (8 workers: about
	// 10% more keys per second with the padding).
	_       [56]byte
	mu      sync.Mutex
	_       [56]byte
	cond    sync.Cond // L is &mu; workers in Get wait on it for a key or shutdown
	drained sync.Cond // L is &mu; ShutDownWithDrain waits on it

	// ready holds the queued keys in order and deduplicates them (see
	// keyRing): it grows with the backlog. processing holds the keys between
	// Get and Done (at most one per worker, so it stays small) with whether
	// they were added again meanwhile. Keeping the re-add flag there leaves
	// one index operation per key at Add and one at Get; the small
	// processing set is searched by the keys' tags (see procSet).
	ready      keyRing[K]
	processing procSet[K]
	// waiters counts workers blocked in Get that no Signal has been sent
	// to yet: whoever signals decrements it, and a Broadcast zeroes it. Add
	// signals only while it is positive, so a worker that has been woken
	// but has not yet got the lock back is not signalled again by every
	// Add meanwhile (with 8 busy workers that was 0.75 futile Signals, each
	// taking the runtime's notify-list lock, per key).
	waiters int

	shuttingDown bool
	drain        bool

	rl RateLimiter[K]

	// delayed holds AddAfter keys until they are ready; the delay goroutine
	// moves them to ready. Started lazily.
	delayed      delayHeap[K]
	delayedIndex map[K]int
	delayRunning bool
	wake         chan struct{} // cap 1: nudges the delay goroutine
	stop         chan struct{} // closed by shutdown
	wg           sync.WaitGroup

	m *metrics[K] // nil without a MetricsProvider
}

// New returns an empty queue configured by opts. See Queue for its contract.
func New[K comparable](opts Options[K]) *Queue[K] {
	q := &Queue[K]{
		rl:   opts.RateLimiter,
		wake: make(chan struct{}, 1),
		stop: make(chan struct{}),
	}
	q.cond.L = &q.mu
	q.drained.L = &q.mu
	q.ready.init()
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

// Add marks key as needing processing. It never blocks on workers. After
// ShutDown or ShutDownWithDrain, Add does nothing (as client-go).
func (q *Queue[K]) Add(key K) {
	tag := q.ready.tag(key) // hashed before taking the lock
	q.lock()
	q.addLocked(key, tag)
	q.mu.Unlock()
}

// addLocked adds key, whose q.ready.tag is tag.
func (q *Queue[K]) addLocked(key K, tag uint32) {
	if q.shuttingDown {
		return
	}
	if i := q.processing.find(key, tag); i >= 0 {
		if e := &q.processing.entries[i]; !e.again {
			e.again = true // queued again by Done
			if q.m != nil {
				q.m.add(key)
			}
		}
		return
	}
	if !q.ready.pushTagged(key, tag, true) {
		return // already queued
	}
	if q.m != nil {
		q.m.add(key)
	}
	q.signalLocked()
}

// signalLocked wakes one worker blocked in Get that has not been woken yet,
// if there is one.
func (q *Queue[K]) signalLocked() {
	if q.waiters > 0 {
		q.waiters--
		q.cond.Signal()
	}
}

// wakeAllLocked wakes every goroutine blocked in Get or ShutDownWithDrain.
func (q *Queue[K]) wakeAllLocked() {
	q.waiters = 0
	q.cond.Broadcast()
	q.drained.Broadcast()
}

// Get blocks until a key is ready and returns it; the caller must call
// Done(key) when finished with it. After ShutDown, Get keeps returning the
// keys still queued and then returns shutdown=true (client-go semantics): a
// worker loop ends when shutdown is true. Get has no ctx: shut the queue down
// to release blocked workers.
func (q *Queue[K]) Get() (key K, shutdown bool) {
	q.lock()
	for q.ready.len() == 0 && !q.shuttingDown {
		q.waiters++
		q.cond.Wait() // whoever woke us decremented waiters
	}
	if q.ready.len() == 0 {
		q.mu.Unlock()
		return key, true
	}
	key, tag := q.ready.pop()
	q.processing.add(key, tag)
	if q.m != nil {
		q.m.get(key)
	}
	q.mu.Unlock()
	return key, false
}

// Done marks key as finished. If key was added while it was being processed,
// it is queued again now (once, however many adds there were). Done of a key
// that is not being processed does nothing.
func (q *Queue[K]) Done(key K) {
	tag := q.ready.tag(key) // hashed before taking the lock
	q.lock()
	i := q.processing.find(key, tag)
	if i < 0 {
		q.mu.Unlock()
		return
	}
	again := q.processing.remove(i)
	if q.m != nil {
		q.m.done(key)
	}
	if again {
		q.ready.pushTagged(key, tag, false) // not queued: Add does not queue a key being processed
		q.signalLocked()
	} else if q.drain && q.processing.len() == 0 && q.ready.len() == 0 {
		q.drained.Broadcast()
	}
	q.mu.Unlock()
}

// Len returns the number of keys ready to be handed out (not those being
// processed or waiting in AddAfter). Informational only: do not gate Add or
// Get on it.
func (q *Queue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready.len()
}

// AddAfter adds key once delay has passed; delay <= 0 adds it now. If key is
// already waiting, the earlier of the two deadlines wins. Keys still waiting
// at shutdown are dropped. The first delayed add starts the queue's timer
// goroutine, which ShutDown stops.
func (q *Queue[K]) AddAfter(key K, delay time.Duration) {
	q.addAfter(key, delay, false)
}

func (q *Queue[K]) addAfter(key K, delay time.Duration, retry bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	if retry && q.m != nil {
		q.m.retry()
	}
	if delay <= 0 {
		q.addLocked(key, q.ready.tag(key))
		return
	}
	at := time.Now().Add(delay)
	if q.delayedIndex == nil {
		q.delayedIndex = make(map[K]int)
	}
	if i, ok := q.delayedIndex[key]; ok {
		if !at.Before(q.delayed.items[i].at) {
			return
		}
		q.delayed.items[i].at = at
		q.delayed.fix(i, q.delayedIndex)
	} else {
		q.delayed.push(delayed[K]{key: key, at: at}, q.delayedIndex)
	}
	if !q.delayRunning {
		q.delayRunning = true
		q.wg.Go(q.delayLoop)
		return
	}
	if q.delayed.items[0].key == key {
		// New earliest deadline: re-arm the timer.
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// AddRateLimited adds key after the delay the RateLimiter gives it (for the
// default limiter: 5ms doubling per failure of key up to 1000s, and at most
// 10 per second overall with bursts of 100).
func (q *Queue[K]) AddRateLimited(key K) {
	q.addAfter(key, q.rl.When(key), true)
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
	q.mu.Lock()
	q.drain = false
	q.shutdownLocked()
	q.mu.Unlock()
	q.wg.Wait()
}

// ShutDownWithDrain is ShutDown, then it blocks until every queued key has
// been handed out and every handed-out key is Done (including keys requeued
// by Done). Workers must keep calling Get and Done, or it blocks forever; a
// concurrent ShutDown ends the wait early.
func (q *Queue[K]) ShutDownWithDrain() {
	q.mu.Lock()
	q.drain = true
	q.shutdownLocked()
	for q.drain && (q.processing.len() > 0 || q.ready.len() > 0) {
		q.drained.Wait()
	}
	q.mu.Unlock()
	q.wg.Wait()
}

func (q *Queue[K]) shutdownLocked() {
	if !q.shuttingDown {
		q.shuttingDown = true
		close(q.stop)
		q.delayed.items = nil
		q.delayedIndex = nil
	}
	q.wakeAllLocked()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// delayLoop moves delayed keys to the ready ring when their time comes.
func (q *Queue[K]) delayLoop() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		q.mu.Lock()
		if q.shuttingDown {
			q.mu.Unlock()
			return
		}
		now := time.Now()
		for len(q.delayed.items) > 0 && !q.delayed.items[0].at.After(now) {
			d := q.delayed.pop(q.delayedIndex)
			q.addLocked(d.key, q.ready.tag(d.key))
		}
		wait := time.Duration(-1)
		if len(q.delayed.items) > 0 {
			wait = q.delayed.items[0].at.Sub(now)
		}
		q.mu.Unlock()

		if wait < 0 {
			select {
			case <-q.wake:
			case <-q.stop:
				return
			}
			continue
		}
		timer.Reset(wait) // Go 1.23+: Reset drains, no stale fire
		select {
		case <-timer.C:
		case <-q.wake:
		case <-q.stop:
			return
		}
	}
}

type delayed[K comparable] struct {
	key K
	at  time.Time
}

// delayHeap is a min-heap on at that keeps index (key → position) current, so
// a re-added key's deadline can be moved earlier in O(log n).
type delayHeap[K comparable] struct{ items []delayed[K] }

func (h *delayHeap[K]) push(d delayed[K], index map[K]int) {
	h.items = append(h.items, d)
	index[d.key] = len(h.items) - 1
	h.up(len(h.items)-1, index)
}

func (h *delayHeap[K]) pop(index map[K]int) delayed[K] {
	top := h.items[0]
	last := len(h.items) - 1
	h.swap(0, last, index)
	h.items[last] = delayed[K]{}
	h.items = h.items[:last]
	delete(index, top.key)
	if last > 0 {
		h.down(0, index)
	}
	return top
}

func (h *delayHeap[K]) fix(i int, index map[K]int) {
	if !h.up(i, index) {
		h.down(i, index)
	}
}

func (h *delayHeap[K]) swap(i, j int, index map[K]int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	index[h.items[i].key] = i
	index[h.items[j].key] = j
}

func (h *delayHeap[K]) up(i int, index map[K]int) bool {
	moved := false
	for i > 0 {
		p := (i - 1) / 2
		if !h.items[i].at.Before(h.items[p].at) {
			break
		}
		h.swap(i, p, index)
		i = p
		moved = true
	}
	return moved
}

func (h *delayHeap[K]) down(i int, index map[K]int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.items[r].at.Before(h.items[l].at) {
			m = r
		}
		if !h.items[m].at.Before(h.items[i].at) {
			return
		}
		h.swap(i, m, index)
		i = m
	}
}

// procSet is the set of keys being processed, each with its re-added flag.
// It holds at most one key per worker, so it is a slice searched linearly,
// comparing the keys' keyRing tags before the keys themselves, until it
// grows past procIndexAt, when a map index takes over.
type procSet[K comparable] struct {
	entries []procEntry[K]
	index   map[K]int // nil while small
}

type procEntry[K comparable] struct {
	key   K
	tag   uint32
	again bool
}

const procIndexAt = 32

func (p *procSet[K]) len() int { return len(p.entries) }

// find returns the position of key, whose tag is tag, or -1.
func (p *procSet[K]) find(key K, tag uint32) int {
	if p.index != nil {
		if i, ok := p.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range p.entries {
		if e := &p.entries[i]; e.tag == tag && e.key == key {
			return i
		}
	}
	return -1
}

// add inserts key with its tag; key must not be present.
func (p *procSet[K]) add(key K, tag uint32) {
	p.entries = append(p.entries, procEntry[K]{key: key, tag: tag})
	switch {
	case p.index != nil:
		p.index[key] = len(p.entries) - 1
	case len(p.entries) > procIndexAt:
		p.index = make(map[K]int, len(p.entries))
		for i, e := range p.entries {
			p.index[e.key] = i
		}
	}
}

// remove deletes the entry at i and returns its re-added flag.
func (p *procSet[K]) remove(i int) (again bool) {
	e := p.entries[i]
	last := len(p.entries) - 1
	if i != last {
		p.entries[i] = p.entries[last]
		if p.index != nil {
			p.index[p.entries[i].key] = i
		}
	}
	p.entries[last] = procEntry[K]{}
	p.entries = p.entries[:last]
	if p.index != nil {
		delete(p.index, e.key)
		if len(p.entries) == 0 {
			p.index = nil
		}
	}
	return e.again
}

// lock takes mu for Add, Get and Done, whose critical sections are tens of
// nanoseconds. sync.Mutex spins only while the P has no other runnable
// goroutine, so with more workers than cores (the usual controller setup)
// a contended Lock parks at once, and the park plus the wake-up in Unlock
// cost ten times the critical section. Retrying TryLock a bounded number of
// times first (lockSpins, a few hundred nanoseconds at most) gets the lock
// from a holder on another core without parking; after that Lock parks as
// before, so a long holder costs the spinners no more than that.
// BenchmarkWorkQueueWorkers8: 1.2x-1.4x the keys per second of mu.Lock.
func (q *Queue[K]) lock() {
	for range lockSpins {
		if q.mu.TryLock() {
			return
		}
	}
	q.mu.Lock()
}

const lockSpins = 64
