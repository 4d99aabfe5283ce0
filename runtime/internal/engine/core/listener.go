package core

import (
	"context"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/redact"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
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
	// opListed is a relist.Mark (note.old indexes noteBuf.marks), for
	// handlers that are relist.Listeners.
	opListed
)

func (o op) String() string {
	switch o {
	case opAdd:
		return "add"
	case opUpdate, opResync:
		return "update"
	case opDelete:
		return "delete"
	case opListed:
		return "listed"
	}
	return "synced"
}

// note is one queued handler call: 24 bytes. An update's previous object is
// not in the note but in its noteBuf's olds (most notes have none: an
// initial list or a relist is all adds, a resync passes obj twice), since a
// second interface would make every note 40 bytes.
type note struct {
	op                 op
	initialOrTombstone bool   // add: isInInitialList; delete: finalStateUnknown (a tombstone)
	old                uint32 // update: 1 + the index of the previous object in olds
	obj                cache.Obj
}

// noteBuf is a sequence of notes and the previous objects of its updates.
type noteBuf struct {
	notes []note
	olds  []cache.Obj
	marks []relist.Mark // of opListed notes: rare, so kept out of note
}

func (b *noteBuf) add(n note) { b.notes = append(b.notes, n) }

func (b *noteBuf) update(old, obj cache.Obj) {
	b.olds = append(b.olds, old)
	b.notes = append(b.notes, note{op: opUpdate, old: uint32(len(b.olds)), obj: obj})
}

func (b *noteBuf) listed(m relist.Mark) {
	b.marks = append(b.marks, m)
	b.notes = append(b.notes, note{op: opListed, old: uint32(len(b.marks))})
}

// oldOf returns the previous object of update n (a note of b).
func (b *noteBuf) oldOf(n *note) cache.Obj { return b.olds[n.old-1] }

// delivered drops the objects of b's k-th note, delivered: a batch can take
// minutes to deliver to a slow handler, and what its delivered notes point
// to (an update's previous object, a deleted object) is otherwise garbage.
func (b *noteBuf) delivered(k int) {
	n := &b.notes[k]
	if n.op == opUpdate {
		b.olds[n.old-1] = nil
	}
	n.obj = nil
}

// appendBuf appends the notes of src to b, renumbering its updates.
func (b *noteBuf) appendBuf(src noteBuf) {
	from, base, mbase := len(b.notes), uint32(len(b.olds)), uint32(len(b.marks))
	b.notes = append(b.notes, src.notes...)
	if len(src.olds) == 0 && len(src.marks) == 0 {
		return
	}
	b.olds = append(b.olds, src.olds...)
	b.marks = append(b.marks, src.marks...)
	if base > 0 || mbase > 0 {
		for k := from; k < len(b.notes); k++ {
			switch n := &b.notes[k]; {
			case n.old == 0:
			case n.op == opListed:
				n.old += mbase
			default:
				n.old += base
			}
		}
	}
}

// reset empties b for reuse, dropping what it points to and giving a
// relist's worth of memory back (slices above shrinkAbove).
func (b *noteBuf) reset() {
	clear(b.notes)
	clear(b.olds)
	clear(b.marks)
	b.notes, b.olds, b.marks = b.notes[:0], b.olds[:0], b.marks[:0]
	if cap(b.notes) > shrinkAbove {
		b.notes = nil
	}
	if cap(b.olds) > shrinkAbove {
		b.olds = nil
	}
}

// shrinkAbove is the buffer capacity above which a drained buffer is given
// back to the GC instead of being reused (after a relist burst, say).
const shrinkAbove = 4096

// listener is one registered handler: an unbounded buffer of notes and the
// goroutine that delivers them.
type listener struct {
	inf    *Shared
	h      Handler
	reg    *Registration
	resync time.Duration

	wake    chan struct{} // cap 1: "buffer not empty" or "stop"
	removed atomic.Bool   // set by RemoveHandler: deliver nothing more
	started bool          // its goroutine was started (guarded by inf.mu)

	// Backlog tracking, only with Options.Metrics (hm not nil).
	hm       func(event string)
	done     atomic.Int64 // notes of cur delivered
	cur      int          // length of the batch being delivered (under mu)
	curSince time.Time    // when its first note was queued (under mu)
	bufSince time.Time    // when buf's first note was queued (under mu)

	mu       sync.Mutex
	buf      noteBuf // filled by the informer
	spare    noteBuf // the drained buffer, reused
	stopping bool    // Run is stopping: exit once the buffer is empty (or ctx ended)
}

func newListener(inf *Shared, h Handler, reg *Registration, resync time.Duration) *listener {
	reg.stopped = make(chan struct{})
	return &listener{inf: inf, h: h, reg: reg, resync: resync, wake: make(chan struct{}, 1)}
}

// push appends notes (the pop loop's: adds, updates and deletes, never
// resyncs) to the buffer. It never blocks beyond the buffer's lock. Into an
// empty buffer a large batch is copied into a slice of its size, allocated
// once.
func (l *listener) push(notes noteBuf) {
	l.mu.Lock()
	if l.hm != nil && len(l.buf.notes) == 0 {
		l.bufSince = time.Now()
	}
	l.buf.appendBuf(notes)
	l.mu.Unlock()
	l.signal()
}

func (l *listener) pushOne(n note) {
	l.mu.Lock()
	if l.hm != nil && len(l.buf.notes) == 0 {
		l.bufSince = time.Now()
	}
	l.buf.add(n)
	l.mu.Unlock()
	l.signal()
}

// pushMark appends a relist.Mark, for a handler that is a relist.Listener
// (others get nothing).
func (l *listener) pushMark(m relist.Mark) {
	if _, ok := l.h.(relist.Listener); !ok {
		return
	}
	l.mu.Lock()
	l.buf.listed(m)
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
		l.buf, l.spare = noteBuf{}, noteBuf{} // what was not delivered is dropped
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
		l.buf, l.spare = l.spare, noteBuf{}
		stopping := l.stopping
		if l.hm != nil {
			l.cur, l.curSince = len(batch.notes), l.bufSince
			l.done.Store(0)
		}
		l.mu.Unlock()

		if len(batch.notes) == 0 {
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
		for n := range batch.notes {
			// Checked before every call: once cancel has returned, no call
			// starts.
			if l.removed.Load() || ctx.Err() != nil {
				return
			}
			l.deliver(ctx, &batch, &batch.notes[n])
			batch.delivered(n)
			if l.hm != nil {
				l.done.Add(1)
				if op := batch.notes[n].op; op != opSynced && op != opListed {
					l.hm(op.String())
				}
			}
		}
		l.recycle(batch)
	}
}

// recycle empties a drained buffer and hands it back for reuse.
func (l *listener) recycle(batch noteBuf) {
	batch.reset()
	if batch.notes == nil {
		return
	}
	l.mu.Lock()
	if l.spare.notes == nil {
		l.spare = batch
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
			l.buf.add(note{op: opResync, obj: o})
		}
		l.mu.Unlock()
		klog.FromContext(ctx).V(5).Info("handler resync queued", "objects", len(objs))
	}
	i.mu.Unlock()
}

// deliver makes one handler call, recovering and reporting a panic.
// n is a note of b.
func (l *listener) deliver(ctx context.Context, b *noteBuf, n *note) {
	defer func() {
		if r := recover(); r != nil {
			l.reportPanic(ctx, n, r)
		}
	}()
	switch n.op {
	case opAdd:
		l.h.OnAdd(n.obj, n.initialOrTombstone)
	case opUpdate:
		l.h.OnUpdate(b.oldOf(n), n.obj)
	case opResync:
		l.h.OnUpdate(n.obj, n.obj)
	case opDelete:
		l.h.OnDelete(n.obj, n.initialOrTombstone)
	case opListed:
		l.h.(relist.Listener).Listed(b.marks[n.old-1])
	case opSynced:
		select {
		case <-l.reg.synced:
		default:
			close(l.reg.synced)
		}
	}
}

func (l *listener) reportPanic(ctx context.Context, n *note, r any) {
	key := cache.Key(n.obj)
	klog.FromContext(ctx).Error(&redact.PanicError{What: "handler", Value: r}, "handler panicked; event dropped, delivery goes on",
		"event", n.op.String(), "key", key, "stack", string(debug.Stack()))
	if l.inf.onPanic != nil {
		defer func() {
			if r := recover(); r != nil {
				klog.FromContext(ctx).Error(&redact.PanicError{What: "Options.HandlerPanic", Value: r}, "Options.HandlerPanic panicked", "key", key,
					"stack", string(debug.Stack()))
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
	n := len(l.buf.notes)
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
