package informer

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/store"
)

// op is what a note asks a listener to do.
type op uint8

const (
	opAdd op = iota + 1
	opUpdate
	opDelete
	// opResync is an OnUpdate(obj, obj) only handlers with a resync period get.
	opResync
	// opSynced marks the end of the initial list in a listener's buffer.
	opSynced
)

func (o op) String() string {
	switch o {
	case opAdd:
		return "add"
	case opUpdate, opResync:
		return "update"
	case opDelete:
		return "delete"
	}
	return "synced"
}

// note is one queued handler call.
type note struct {
	op                 op
	initialOrTombstone bool // add: isInInitialList; delete: finalStateUnknown (a tombstone)
	old                store.Obj
	obj                store.Obj
}

// shrinkAbove is the buffer capacity above which a drained buffer is given
// back to the GC instead of being reused (after a relist burst, say).
const shrinkAbove = 4096

// listener is one registered handler: an unbounded buffer of notes and the
// goroutine that delivers them.
type listener struct {
	inf    *Shared
	h      Handler[store.Obj]
	reg    *Registration
	resync time.Duration

	wake    chan struct{} // cap 1: "buffer not empty" or "stop"
	removed atomic.Bool   // set by RemoveHandler: deliver nothing more
	started bool          // its goroutine was started (guarded by inf.mu)

	// Backlog tracking, only with Options.Metrics (hm not nil).
	hm       HandlerMetrics
	done     atomic.Int64 // notes of cur delivered
	cur      int          // length of the batch being delivered (under mu)
	curSince time.Time    // when its first note was queued (under mu)
	bufSince time.Time    // when buf's first note was queued (under mu)

	mu       sync.Mutex
	buf      []note // filled by the informer
	spare    []note // the drained buffer, reused
	stopping bool   // Run is stopping: exit once the buffer is empty (or ctx ended)
}

func newListener(inf *Shared, h Handler[store.Obj], reg *Registration, resync time.Duration) *listener {
	reg.stopped = make(chan struct{})
	return &listener{inf: inf, h: h, reg: reg, resync: resync, wake: make(chan struct{}, 1)}
}

// push appends notes (the pop loop's: adds, updates and deletes, never
// resyncs) to the buffer. It never blocks beyond the buffer's lock. Into an
// empty buffer a large batch is copied into a slice of its size, allocated
// once.
func (l *listener) push(notes []note) {
	l.mu.Lock()
	if l.hm != nil && len(l.buf) == 0 {
		l.bufSince = time.Now()
	}
	l.buf = append(l.buf, notes...)
	l.mu.Unlock()
	l.signal()
}

func (l *listener) pushOne(n note) {
	l.mu.Lock()
	if l.hm != nil && len(l.buf) == 0 {
		l.bufSince = time.Now()
	}
	l.buf = append(l.buf, n)
	l.mu.Unlock()
	l.signal()
}

func (l *listener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// stop makes the goroutine exit once its buffer is delivered.
func (l *listener) stop() {
	l.mu.Lock()
	l.stopping = true
	l.mu.Unlock()
	l.signal()
}

// remove makes the goroutine exit without delivering anything more.
func (l *listener) remove() {
	l.removed.Store(true)
	l.stop()
}

// run delivers the buffer until stopped, or until ctx ends: then it makes
// no further call (the one in progress finishes) and drops the buffer.
// Resyncs are taken from the cache by this goroutine itself when its timer
// fires.
func (l *listener) run(ctx context.Context) {
	defer close(l.reg.stopped)
	ctx = klog.NewContext(ctx, klog.FromContext(ctx).WithValues("handler", l.reg.id)) // the logger names the resource already
	// The timer is re-armed after each resync is queued, so resyncs are a
	// period apart even when the handler is slow.
	var timer *time.Timer
	var resyncC <-chan time.Time
	if l.resync > 0 {
		timer = time.NewTimer(l.resync)
		defer timer.Stop()
		resyncC = timer.C
	}
	defer func() {
		l.mu.Lock()
		l.buf, l.spare = nil, nil // what was not delivered is dropped
		l.mu.Unlock()
	}()
	for {
		if l.removed.Load() || ctx.Err() != nil {
			return
		}
		select {
		case <-resyncC:
			l.queueResync(ctx)
			timer.Reset(l.resync)
		default:
		}
		l.mu.Lock()
		batch := l.buf
		l.buf, l.spare = l.spare, nil
		stopping := l.stopping
		if l.hm != nil {
			l.cur, l.curSince = len(batch), l.bufSince
			l.done.Store(0)
		}
		l.mu.Unlock()

		if len(batch) == 0 {
			l.recycle(batch)
			if stopping {
				return
			}
			select {
			case <-l.wake:
			case <-ctx.Done():
				return
			case <-resyncC:
				l.queueResync(ctx)
				timer.Reset(l.resync)
			}
			continue
		}
		for n := range batch {
			// Checked before every call: once cancel has returned, no call
			// starts.
			if l.removed.Load() || ctx.Err() != nil {
				return
			}
			l.deliver(ctx, &batch[n])
			if l.hm != nil {
				l.done.Add(1)
				if op := batch[n].op; op != opSynced {
					l.hm.Delivered(op.String())
				}
			}
		}
		clear(batch)
		l.recycle(batch)
	}
}

// recycle hands a drained buffer back for reuse.
func (l *listener) recycle(batch []note) {
	if cap(batch) > shrinkAbove {
		return
	}
	l.mu.Lock()
	if l.spare == nil {
		l.spare = batch[:0]
	}
	l.mu.Unlock()
}

// queueResync appends OnUpdate(obj, obj) for every cached object to this
// listener's buffer, consistently with the event stream (under inf.mu).
// Before the informer has synced, or once it is stopping, it does nothing.
//
// run calls it only between batches, and a batch is delivered whole before
// the next check, so at most one resync is ever outstanding: a handler slower
// than its period gets fewer resyncs, not an ever-growing buffer.
func (l *listener) queueResync(ctx context.Context) {
	i := l.inf
	i.mu.Lock()
	if i.syncedSent && i.state == stateRunning { // no resync while draining
		objs := i.indexer.List()
		l.mu.Lock()
		for _, o := range objs {
			l.buf = append(l.buf, note{op: opResync, old: o, obj: o})
		}
		l.mu.Unlock()
		klog.FromContext(ctx).V(5).Info("handler resync queued", "objects", len(objs))
	}
	i.mu.Unlock()
}

// deliver makes one handler call, recovering and reporting a panic.
func (l *listener) deliver(ctx context.Context, n *note) {
	defer func() {
		if r := recover(); r != nil {
			l.reportPanic(ctx, n, r)
		}
	}()
	switch n.op {
	case opAdd:
		l.h.OnAdd(n.obj, n.initialOrTombstone)
	case opUpdate, opResync:
		l.h.OnUpdate(n.old, n.obj)
	case opDelete:
		l.h.OnDelete(n.obj, n.initialOrTombstone)
	case opSynced:
		select {
		case <-l.reg.synced:
		default:
			close(l.reg.synced)
		}
	}
}

func (l *listener) reportPanic(ctx context.Context, n *note, r any) {
	key := store.Key(n.obj)
	klog.FromContext(ctx).Error(fmt.Errorf("handler panic: %v", r), "handler panicked; event dropped, delivery goes on",
		"event", n.op.String(), "key", key, "stack", string(debug.Stack()))
	if l.inf.onPanic != nil {
		defer func() {
			if r := recover(); r != nil {
				klog.FromContext(ctx).Error(fmt.Errorf("panic: %v", r), "Options.HandlerPanic panicked", "key", key)
			}
		}()
		l.inf.onPanic(ctx, HandlerPanicInfo{Registration: l.reg, Event: n.op.String(), Key: key, Value: r})
	}
}

// backlog returns the number of notes not yet delivered and when the oldest
// of them was queued (zero when none).
func (l *listener) backlog() (int, time.Time) {
	if l.hm == nil {
		return 0, time.Time{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(l.buf)
	since := l.bufSince
	if rest := l.cur - int(l.done.Load()); rest > 0 {
		n += rest
		since = l.curSince
	}
	if n == 0 {
		since = time.Time{}
	}
	return n, since
}
