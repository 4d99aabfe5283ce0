package workqueue

import "time"

// The delayed half of the queue: AddAfter (and so AddRateLimited) parks keys
// in a min-heap on their deadline, and one goroutine, started by the first
// positive delay and stopped by ShutDown, queues them when their time comes.
// The heap and its index are guarded by the producer lock (pmu), like the
// rest of Add's state.

// AddAfter adds key at priority 0 once delay has passed; delay <= 0 adds it
// now. If key is already waiting, the earlier of the two deadlines (and the
// higher of the two priorities) wins. Keys still waiting
// at shutdown are dropped. The first delayed add starts the queue's timer
// goroutine, which ShutDown stops. Every call before shutdown counts as a
// retry in the queue's metrics (NewRetriesMetric), whatever the delay, as
// client-go's delaying queue counts it.
func (q *Queue[K]) AddAfter(key K, delay time.Duration) {
	q.addAfter(key, delay, 0, true)
}

// addAfter adds key at priority prio once delay has passed, counting a
// retry in the metrics when retry is set.
func (q *Queue[K]) addAfter(key K, delay time.Duration, prio int, retry bool) {
	if retry && q.m != nil && !q.shuttingDown.Load() {
		q.mmu.Lock()
		q.m.retry()
		q.mmu.Unlock()
	}
	if delay <= 0 {
		if prio == 0 {
			q.Add(key)
			return
		}
		tag := q.tag(key)
		lock(&q.pmu)
		published := q.addLocked(key, tag, prio)
		q.pmu.Unlock()
		if published {
			q.wakeOne()
		}
		return
	}
	lock(&q.pmu)
	defer q.pmu.Unlock()
	if q.shuttingDown.Load() {
		return
	}
	at := time.Now().Add(delay)
	if q.delayedIndex == nil {
		q.delayedIndex = make(map[K]int)
	}
	if i, ok := q.delayedIndex[key]; ok {
		d := &q.delayed.items[i]
		d.prio = max(d.prio, prio)
		if !at.Before(d.at) {
			return
		}
		d.at = at
		q.delayed.fix(i, q.delayedIndex)
	} else {
		q.delayed.push(delayed[K]{key: key, at: at, prio: prio}, q.delayedIndex)
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

// delayLoop queues delayed keys when their time comes.
func (q *Queue[K]) delayLoop() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		lock(&q.pmu)
		if q.shuttingDown.Load() {
			q.pmu.Unlock()
			return
		}
		now := time.Now()
		queued := false
		for len(q.delayed.items) > 0 && !q.delayed.items[0].at.After(now) {
			d := q.delayed.pop(q.delayedIndex)
			queued = q.addLocked(d.key, q.tag(d.key), d.prio) || queued
		}
		wait := time.Duration(-1)
		if len(q.delayed.items) > 0 {
			wait = q.delayed.items[0].at.Sub(now)
		}
		q.pmu.Unlock()
		if queued {
			q.wakeOne()
		}

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
	key  K
	at   time.Time
	prio int
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
