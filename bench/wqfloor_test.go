package bench_test

import (
	"sync"
	"testing"
)

// The floor benchmarks put two queues that keep none of a workqueue's
// promises beside ours and client-go's, to show what the 8-worker
// throughput benchmark is bounded by on the machine it runs on:
//
//   - bare-mutex: one sync.Mutex around a slice, a sync.Cond for idle
//     workers and an in-flight count for ShutDownWithDrain. No
//     deduplication, no one-worker-per-key, no re-add on Done: the least
//     any queue whose Add, Get and Done each take one lock can do.
//   - bare-chan: a buffered channel of 1024 keys. Add blocks when it is
//     full, which a workqueue must never do; the bound keeps the backlog
//     small and the runtime hands a key straight to a parked receiver.
//
// Run with: go test -run '^$' -bench 'BenchmarkWorkQueueFloorWorkers8$' -count 5 ./bench/
func BenchmarkWorkQueueFloorWorkers8(b *testing.B) {
	impls := append([]wqImpl{
		{"bare-mutex", func() wqUnderTest { return newBareMutexQueue() }},
		{"bare-chan", func() wqUnderTest { return &bareChanQueue{ch: make(chan string, 1024)} }},
	}, wqImpls...)
	benchWQThroughput(b, impls, 8)
}

type bareMutexQueue struct {
	mu       sync.Mutex
	cond     sync.Cond
	keys     []string
	head     int
	inflight int
	waiters  int
	closed   bool
	drained  sync.Cond
}

func newBareMutexQueue() *bareMutexQueue {
	q := &bareMutexQueue{}
	q.cond.L = &q.mu
	q.drained.L = &q.mu
	return q
}

func (q *bareMutexQueue) Add(k string) {
	q.mu.Lock()
	if !q.closed {
		q.keys = append(q.keys, k)
		if q.waiters > 0 {
			q.waiters--
			q.cond.Signal()
		}
	}
	q.mu.Unlock()
}

func (q *bareMutexQueue) Get() (string, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.head == len(q.keys) && !q.closed {
		q.waiters++
		q.cond.Wait()
	}
	if q.head == len(q.keys) {
		return "", true
	}
	k := q.keys[q.head]
	q.keys[q.head] = ""
	q.head++
	q.inflight++
	return k, false
}

func (q *bareMutexQueue) Done(string) {
	q.mu.Lock()
	q.inflight--
	if q.closed && q.inflight == 0 && q.head == len(q.keys) {
		q.drained.Broadcast()
	}
	q.mu.Unlock()
}

func (q *bareMutexQueue) ShutDownWithDrain() {
	q.mu.Lock()
	q.closed = true
	q.waiters = 0
	q.cond.Broadcast()
	for q.inflight > 0 || q.head < len(q.keys) {
		q.drained.Wait()
	}
	q.mu.Unlock()
}

type bareChanQueue struct {
	ch       chan string
	inflight sync.WaitGroup
}

func (q *bareChanQueue) Add(k string) {
	q.inflight.Add(1)
	q.ch <- k
}

func (q *bareChanQueue) Get() (string, bool) {
	k, ok := <-q.ch
	return k, !ok
}

func (q *bareChanQueue) Done(string) { q.inflight.Done() }

func (q *bareChanQueue) ShutDownWithDrain() {
	close(q.ch)
	q.inflight.Wait()
}
