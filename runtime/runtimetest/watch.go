package runtimetest

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// fakeWatch is one open watch of a Source: an unbounded queue of events that
// one goroutine (pump) moves to the unbuffered result channel, so the Source
// never blocks on a slow reader and events keep their order. An event sent is
// no longer referenced by the watch, and a drained queue whose array grew
// beyond keepQueue events (a WatchList's initial events: 32 bytes an event)
// gives the array back, so what the watch served is garbage once its reader
// drops it.
type fakeWatch struct {
	sel       selector
	bookmarks bool
	result    chan watch.Event
	stopOnce  sync.Once
	stopped   chan struct{} // closed by Stop
	wake      chan struct{} // capacity 1: queue changed
	onExit    func(*fakeWatch)

	mu        sync.Mutex
	queue     []watch.Event // queue[head:] is still to send
	head      int
	ending    bool          // close once the queue is drained
	interrupt chan struct{} // closed (and set to nil) by end: abandon the event being sent
}

// newFakeWatch returns a watch that will deliver initial, then whatever is
// pushed; if ending, it closes after initial.
func newFakeWatch(initial []watch.Event, sel selector, bookmarks, ending bool, onExit func(*fakeWatch)) *fakeWatch {
	return &fakeWatch{
		sel:       sel,
		bookmarks: bookmarks,
		result:    make(chan watch.Event),
		stopped:   make(chan struct{}),
		wake:      make(chan struct{}, 1),
		interrupt: make(chan struct{}),
		onExit:    onExit,
		queue:     initial,
		ending:    ending,
	}
}

// Stop implements watch.Interface. It is idempotent; once it returns, the
// Source no longer counts the watch as open.
func (w *fakeWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.onExit(w)
	})
}

// ResultChan implements watch.Interface.
func (w *fakeWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *fakeWatch) push(ev watch.Event) {
	w.mu.Lock()
	if !w.ending {
		if w.head > 0 && len(w.queue) == cap(w.queue) {
			// Full: move what is left to send to the front rather than
			// grow an array whose head was sent already.
			n := copy(w.queue, w.queue[w.head:])
			clear(w.queue[n:])
			w.queue, w.head = w.queue[:n], 0
		}
		w.queue = append(w.queue, ev)
	}
	w.mu.Unlock()
	w.signal()
}

// end discards the events not yet received, delivers last (if any) and
// closes the watch. An event the reader is receiving at that very moment may
// still arrive first.
func (w *fakeWatch) end(last *watch.Event) {
	w.mu.Lock()
	if w.ending {
		w.mu.Unlock()
		return
	}
	w.ending = true
	w.queue, w.head = nil, 0
	if last != nil {
		w.queue = []watch.Event{*last}
	}
	close(w.interrupt)
	w.interrupt = nil
	w.mu.Unlock()
	w.signal()
}

// keepQueue is the capacity of a drained queue that is kept for reuse (a
// live watch queues an event or a few at a time); a larger array (initial
// events, a replay, a burst) is given back to the GC.
const keepQueue = 64

// drainedLocked empties the drained queue, keeping its array only if small.
func (w *fakeWatch) drainedLocked() {
	w.head = 0
	if cap(w.queue) > keepQueue {
		w.queue = nil
		return
	}
	w.queue = w.queue[:0]
}

func (w *fakeWatch) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *fakeWatch) pump(ctx context.Context, timeout time.Duration) {
	defer close(w.result)
	defer w.onExit(w)
	var expire <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		expire = t.C
	}
	for {
		w.mu.Lock()
		if w.head == len(w.queue) {
			ending := w.ending
			w.mu.Unlock()
			if ending {
				return
			}
			select {
			case <-w.wake:
				continue
			case <-w.stopped:
			case <-ctx.Done():
			case <-expire:
			}
			return
		}
		ev := w.queue[w.head]
		w.queue[w.head] = watch.Event{}
		w.head++
		if w.head == len(w.queue) {
			w.drainedLocked()
		}
		intr := w.interrupt // nil once ending: the final events are not abandoned
		w.mu.Unlock()
		select {
		case w.result <- ev:
		case <-intr:
			// Abandon ev: the queue now holds what end wants delivered.
		case <-w.stopped:
			return
		case <-ctx.Done():
			return
		case <-expire:
			return
		}
	}
}
