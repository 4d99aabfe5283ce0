package workqueue

import (
	"slices"
	"sync/atomic"
	"time"
)

// Priorities
//
// Every key is queued at a priority, an int: higher is handed out first.
// Add, AddAfter and AddRateLimited use 0; AddWithOpts sets any other.
// LowPriority (-100, controller-runtime's value) is what the informer
// handler helper (Handler) gives the adds of an initial list and resyncs, so
// that after a restart real changes overtake the thousands of keys every
// object's initial add queued.
//
// The rules, the same as controller-runtime's priority queue where it has
// them:
//   - A key waiting in the queue at one priority and added at a higher one
//     moves to the higher one (to the end of its keys); added at a lower
//     one, it stays. The highest priority wins while the key waits.
//   - A key added while it is processed is queued again at Done, at the
//     highest priority it was re-added with.
//   - A delayed key (AddAfter, AddRateLimited, AddWithOpts with After or
//     RateLimited) keeps the priority it was added with; when it is
//     delayed twice, the earlier deadline and the higher priority win.
//   - Within one priority, keys are handed out in the order they became
//     ready.
//   - Low priority never starves: while keys of a priority are queued, at
//     most Options.StarvationLimit (default 16) keys of higher priorities
//     are handed out in a row before one of them. Strict priority would let
//     a steady stream of high-priority keys hold back the rest forever;
//     this bound gives each waiting priority at least one of every
//     StarvationLimit+1 keys handed out, whatever the load.
//
// Cost: a queue whose keys all have priority 0 runs exactly the FIFO path
// (one lane, Get does not look for others). The first key at another
// priority switches the queue to priority mode for good: each priority gets
// a lane (a FIFO of its own, with its own dedup index), Get looks at every
// lane, and Add looks a key up in every lane's index. An Add that moves a
// queued key to a higher priority takes the workers' lock for the move, so
// that no Get takes the key meanwhile; moves are rare, and Gets then read
// a lane's next key without writing to the line the producer appends to.
// At most maxLanes distinct priorities get a lane; past that, a priority
// shares the lane of the nearest lower one (or the lowest lane), so
// GetWithPriority may report that lane's priority.

// LowPriority is the priority the informer handler helper gives the adds of
// an initial list and resyncs (controller-runtime's handler.LowPriority).
const LowPriority = -100

// defaultStarvationLimit is Options.StarvationLimit's default.
const defaultStarvationLimit = 16

// maxLanes bounds the distinct priorities with a lane of their own.
const maxLanes = 32

// AddOpts are the options of AddWithOpts.
type AddOpts struct {
	// After delays the keys, as AddAfter.
	After time.Duration
	// RateLimited delays each key by what the RateLimiter gives it (the
	// shorter of that and After when both are set), as AddRateLimited.
	RateLimited bool
	// Priority of the keys: higher is handed out first; 0 is Add's.
	Priority int
}

// AddWithOpts adds keys with opts: at opts.Priority, after opts.After or
// the RateLimiter's delay when opts.RateLimited. See Priorities (in this
// file's package doc) for how priorities combine. A delayed add counts as
// a retry in the metrics, as AddAfter's do.
func (q *Queue[K]) AddWithOpts(opts AddOpts, keys ...K) {
	for _, key := range keys {
		after := opts.After
		if opts.RateLimited {
			if d := q.rl.When(key); after <= 0 || d < after {
				after = d
			}
		}
		q.addAfter(key, after, opts.Priority, opts.RateLimited || opts.After > 0)
	}
}

// lane is the FIFO of the keys queued at one priority: chunks the producer
// appends to under pmu and Get takes from under cmu (see pending.go), with
// the dedup index of its keys. The producer's fields, the consumer's and
// headSeq each have cache lines of their own.
type lane[K comparable] struct {
	// Producer side, under pmu.
	prio int
	pend pending[K] // queued keys (chunks) and their dedup index
	tail uint64     // next seq Add gives
	// headSeen is headSeq as last loaded here: Add decides "not queued"
	// from it (a key handed out before that load is handed out now too)
	// and confirms "queued" with a fresh load, so most Adds do not read
	// the line every Get writes. It is never below the head that chunks
	// were dropped for, so every seq at or above it is in pend.chunks.
	headSeen uint64
	_        [64]byte

	// Consumer side, under cmu.
	head *chunk[K] // the chunk holding seq headSeq (or ending at it)
	// passed counts the keys of higher priorities handed out since this
	// lane last handed one out while it had keys queued.
	passed int
	_      [64]byte

	// headSeq is written by every Get of this lane: it has a cache line of
	// its own, so that its writes do not take the producer's line.
	headSeq atomic.Uint64 // next seq Get hands out; stored under cmu
	_       [56]byte
}

func (l *lane[K]) init(prio int) {
	l.prio = prio
	l.head = l.pend.init()
}

// nextLocked returns the chunk holding seq h, the next to hand out, and the
// tag of its key, 0 when it is not published yet. The caller holds cmu.
func (l *lane[K]) nextLocked(h uint64) (*chunk[K], uint32) {
	c := l.head
	if h-c.base == chunkSize {
		next := c.next.Load() // stored before the key at h is published
		if next == nil {
			return c, 0
		}
		c = next
		l.head = c
	}
	return c, c.tags[h-c.base].Load()
}

// liveLocked reports whether the lane has a key to hand out, skipping (and
// consuming) the slots of keys that moved to a higher priority. The caller
// holds cmu.
func (l *lane[K]) liveLocked(tombs *atomic.Int64) bool {
	_, _, tag := l.headLocked(tombs)
	return tag != 0
}

// headLocked returns the chunk holding the lane's next key to hand out,
// its seq and its tag (0 when none is published yet), skipping (and
// consuming) the slots of keys that moved to a higher priority. The caller
// holds cmu.
func (l *lane[K]) headLocked(tombs *atomic.Int64) (c *chunk[K], h uint64, tag uint32) {
	for {
		h = l.headSeq.Load()
		c, tag = l.nextLocked(h)
		if tag != tagMoved {
			return c, h, tag
		}
		l.headSeq.Store(h + 1)
		tombs.Add(-1)
	}
}

// laneLocked returns the lane of priority prio, creating it (and switching
// the queue to priority mode) if needed. The caller holds pmu; creating a
// lane takes cmu too (the lock order is pmu, then cmu).
func (q *Queue[K]) laneLocked(prio int) *lane[K] {
	if prio == 0 {
		return &q.def
	}
	for _, l := range q.lanes {
		if l.prio == prio {
			return l
		}
	}
	if len(q.lanes) >= maxLanes {
		// The nearest lower priority's lane, else the lowest lane.
		for _, l := range q.lanes {
			if l.prio < prio {
				return l
			}
		}
		return q.lanes[len(q.lanes)-1]
	}
	l := new(lane[K])
	l.init(prio)
	lanes := append(slices.Clone(q.lanes), l)
	slices.SortFunc(lanes, func(a, b *lane[K]) int { return b.prio - a.prio })
	lock(&q.cmu)
	q.lanes = lanes
	q.prioMode = true
	q.cmu.Unlock()
	return l
}

// takeLocked takes the next key to hand out, if any, and claims it for
// processing. The caller holds cmu.
func (q *Queue[K]) takeLocked() (key K, prio int, ok bool) {
	l := &q.def
	var c *chunk[K]
	var h uint64
	var tag uint32
	if q.prioMode {
		// Moves to a higher priority take cmu (see queuedLocked), so the
		// key pickLocked found at the head of its lane stays there while
		// we hold cmu: taking it is a read, as in a FIFO queue, not a
		// write to the line the producer appends to.
		if l, c, h, tag = q.pickLocked(); l == nil {
			return key, 0, false
		}
	} else {
		h = l.headSeq.Load()
		if c, tag = l.nextLocked(h); tag == 0 {
			return key, 0, false // nothing published at h yet
		}
	}
	key = c.keys[h-c.base]
	q.metricsGet(key, l.prio)
	q.processing.claim(key, tag) // before headSeq: see addLocked
	l.headSeq.Store(h + 1)
	return key, l.prio, true
}

// pickLocked returns the lane to hand out from in priority mode: the
// highest with a key, unless a lower lane with keys has been passed over
// more than starvationLimit times (then the lowest such), with the chunk,
// seq and tag of its next key (headLocked's). pick is nil when no lane has
// a key. The caller holds cmu.
func (q *Queue[K]) pickLocked() (pick *lane[K], c *chunk[K], h uint64, tag uint32) {
	top := false
	for _, l := range q.lanes {
		lc, lh, ltag := l.headLocked(&q.tombs)
		if ltag == 0 {
			l.passed = 0
			continue
		}
		if !top {
			top = true
			pick, c, h, tag = l, lc, lh, ltag
			continue
		}
		l.passed++
		if l.passed > q.starvationLimit {
			pick, c, h, tag = l, lc, lh, ltag
		}
	}
	if pick != nil {
		pick.passed = 0
	}
	return pick, c, h, tag
}

// readyLocked reports whether a key is ready to be handed out. The caller
// holds cmu.
func (q *Queue[K]) readyLocked() bool {
	if !q.prioMode {
		_, tag := q.def.nextLocked(q.def.headSeq.Load())
		return tag != 0
	}
	for _, l := range q.lanes {
		if l.liveLocked(&q.tombs) {
			return true
		}
	}
	return false
}

func (q *Queue[K]) metricsGet(key K, prio int) {
	if q.m != nil {
		q.mmu.Lock()
		q.m.get(key, prio)
		q.mmu.Unlock()
	}
}
