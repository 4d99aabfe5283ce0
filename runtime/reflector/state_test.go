package reflector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// The Run loop's transitions, state by state: each case puts a Reflector in
// a state, makes its source answer the way the outcome needs, runs one step
// and the transition, and checks the outcome, the next state, the wait, the
// relist counted and what the Reflector remembers.

type cmObj = *corev1.ConfigMap

// script is a ListerWatcher whose answers each case sets.
type script struct {
	list  func(ctx context.Context) (*ListResult[cmObj], error)
	watch func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

func (s *script) List(ctx context.Context, _ metav1.ListOptions) (*ListResult[cmObj], error) {
	if s.list == nil {
		return &ListResult[cmObj]{ResourceVersion: "10"}, nil
	}
	return s.list(ctx)
}

func (s *script) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.watch(ctx, opts)
}

type nopSink struct{}

func (nopSink) Add(cmObj) error               { return nil }
func (nopSink) Update(cmObj) error            { return nil }
func (nopSink) Delete(cmObj) error            { return nil }
func (nopSink) Replace([]cmObj, string) error { return nil }

func stateCM(name, rv string) cmObj {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// events returns a watch that delivers evs, then stays open (or closes,
// with closed).
func events(closed bool, evs ...watch.Event) *watch.FakeWatcher {
	w := watch.NewFakeWithChanSize(len(evs), false)
	for _, ev := range evs {
		w.Action(ev.Type, ev.Object)
	}
	if closed {
		w.Stop()
	}
	return w
}

func endOfInitialEvents(rv string) watch.Event {
	b := stateCM("", rv)
	b.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	return watch.Event{Type: watch.Bookmark, Object: b}
}

func errorEvent(err error) watch.Event {
	var s apierrors.APIStatus
	errors.As(err, &s)
	st := s.Status()
	return watch.Event{Type: watch.Error, Object: &st}
}

func watchAnswer(w watch.Interface, err error) func(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, err }
}

var gr = schema.GroupResource{Resource: "configmaps"}

type transitionCase struct {
	name string
	// from is the state; set prepares it (its data), the Reflector and the
	// source's answers.
	from phase
	set  func(r *Reflector[cmObj], s *state, lw *script, t *relist.Trigger)
	// evs are what the watch of a watching case delivers once it has been
	// open open; closed closes it then.
	evs    []watch.Event
	closed bool
	// open is how long the watch of a watching case stays open before its
	// last event (or its close) arrives.
	open time.Duration

	out    outcome
	to     phase
	pause  pause
	relist relistCause
	report bool
	// check checks the next state's data and the Reflector once the move
	// is applied.
	check func(t *testing.T, r *Reflector[cmObj], m move)
}

func TestTransitions(t *testing.T) {
	boom := errors.New("connection refused")
	cases := []transitionCase{
		// initialEvents
		{name: "initial events end", from: initialEvents,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(events(false, watch.Event{Type: watch.Added, Object: stateCM("a", "3")}, endOfInitialEvents("5")), nil)
			},
			out: outSynced, to: watching,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if !r.HasSynced() || !m.to.mem.listedOnce || r.LastSyncResourceVersion() != "5" || m.to.rv != 5 {
					t.Errorf("synced %v, listed once %v, resourceVersion %q (state's %d); want true, true, 5", r.HasSynced(), m.to.mem.listedOnce, r.LastSyncResourceVersion(), m.to.rv)
				}
			}},
		{name: "server refuses WatchList", from: initialEvents,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(nil, apierrors.NewBadRequest("sendInitialEvents unsupported"))
			},
			out: outRefused, to: listing,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if !m.to.mem.noWatchList {
					t.Error("WatchList not given up after the server refused it")
				}
			}},
		{name: "initial events never end", from: initialEvents,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				r.opts.WatchListTimeout = 5 * time.Second
				lw.watch = watchAnswer(events(false), nil)
			},
			out: outTimedOut, to: listing, report: true,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if m.to.mem.noWatchList {
					t.Error("WatchList given up after a stalled stream; want a LIST for this sync only")
				}
			}},
		{name: "initial event refused", from: initialEvents,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(events(false, watch.Event{Type: watch.Added, Object: stateCM("", "3")}), nil)
			},
			out: outRejected, to: listing, pause: pauseBackoff, report: true,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if m.to.mem.noWatchList || r.HasSynced() {
					t.Errorf("WatchList given up %v, synced %v; want false, false", m.to.mem.noWatchList, r.HasSynced())
				}
			}},
		{name: "WatchList fails", from: initialEvents,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(nil, boom)
			},
			out: outFailed, to: listing, report: true,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if m.to.mem.noWatchList {
					t.Error("WatchList given up after a transient failure")
				}
			}},

		// listing
		{name: "initial LIST", from: listing,
			out: outSynced, to: resume,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if !m.to.free || r.HasSynced() || m.to.rv != 10 {
					t.Errorf("next watch free %v, synced %v, resume from %d; want true (first after the initial LIST), false, 10", m.to.free, r.HasSynced(), m.to.rv)
				}
			}},
		{name: "relist", from: listing,
			set: func(_ *Reflector[cmObj], s *state, _ *script, _ *relist.Trigger) {
				s.mem.listedOnce = true
			},
			out: outSynced, to: resume,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if m.to.free {
					t.Error("the watch after a relist takes no Budget turn")
				}
			}},
		{name: "LIST with an item refused", from: listing,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.list = func(context.Context) (*ListResult[cmObj], error) {
					return &ListResult[cmObj]{Items: []cmObj{stateCM("", "3")}, ResourceVersion: "10"}, nil
				}
			},
			out: outRejected, to: initialEvents, pause: pauseBackoff, report: true},
		{name: "LIST fails", from: listing,
			set: func(r *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.list = func(context.Context) (*ListResult[cmObj], error) { return nil, apierrors.NewForbidden(gr, "", boom) }
			},
			out: outFailed, to: initialEvents, pause: pauseBackoff, report: true},
		{name: "LIST fails, WatchList given up", from: listing,
			set: func(_ *Reflector[cmObj], s *state, lw *script, _ *relist.Trigger) {
				s.mem.noWatchList = true
				lw.list = func(context.Context) (*ListResult[cmObj], error) { return nil, boom }
			},
			out: outFailed, to: listing, pause: pauseBackoff, report: true},

		// resume
		{name: "watch accepted", from: resume,
			out: outOpened, to: watching,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if !r.HasSynced() || r.LastError() != nil {
					t.Errorf("synced %v, last error %v; want true, nil", r.HasSynced(), r.LastError())
				}
			}},
		{name: "relist requested before the watch", from: resume,
			set: func(_ *Reflector[cmObj], _ *state, _ *script, trig *relist.Trigger) {
				trig.Fire()
			},
			out: outRequested, to: initialEvents, relist: relistRequested},
		{name: "watch answered 410", from: resume,
			set: func(_ *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(nil, apierrors.NewResourceExpired("too old"))
			},
			out: outExpired, to: initialEvents, relist: relistExpired, pause: pauseBackoff, report: true},
		{name: "watch answered 422", from: resume,
			set: func(_ *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(nil, apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "", nil))
			},
			out: outInvalid, to: initialEvents, relist: relistRejected, pause: pauseBackoff, report: true},
		{name: "watch forbidden", from: resume,
			set: func(_ *Reflector[cmObj], _ *state, lw *script, _ *relist.Trigger) {
				lw.watch = watchAnswer(nil, apierrors.NewForbidden(gr, "", boom))
			},
			out: outFailed, to: resume, pause: pauseBackoff, report: true,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if r.HasSynced() {
					t.Error("synced although the watch was refused")
				}
			}},

		// watching
		{name: "closed within a second", from: watching, open: 500 * time.Millisecond,
			closed: true,
			out:    outClosed, to: resume, pause: pauseBackoff},
		{name: "closed after a few seconds", from: watching, open: 5 * time.Second,
			closed: true,
			out:    outClosed, to: resume, pause: pauseTurn, check: backoffReset},
		{name: "closed after two minutes", from: watching, open: 2 * time.Minute,
			closed: true,
			out:    outClosed, to: resume, check: backoffReset},
		{name: "relist requested while watching", from: watching,
			set: func(_ *Reflector[cmObj], _ *state, _ *script, trig *relist.Trigger) { trig.Fire() },
			out: outRequested, to: initialEvents, relist: relistRequested},
		{name: "event refused", from: watching, open: 5 * time.Second,
			evs: []watch.Event{{Type: watch.Modified, Object: stateCM("a", "x")}},
			out: outRejected, to: resume, pause: pauseBackoff,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if r.pacer.backoff.base == 0 || m.resetBackoff {
					t.Error("backoff reset by a watch that ended in a refused event")
				}
			}},
		{name: "event refused, fourth watch in a row", from: watching, open: 5 * time.Second,
			set: func(_ *Reflector[cmObj], s *state, _ *script, _ *relist.Trigger) {
				s.rejectedRun = maxRejectedWatches
			},
			evs: []watch.Event{{Type: watch.Modified, Object: &corev1.Secret{}}},
			out: outRejected, to: initialEvents, relist: relistUndecodable, pause: pauseBackoff},
		{name: "event refused after progress", from: watching, open: 5 * time.Second,
			set: func(_ *Reflector[cmObj], s *state, _ *script, _ *relist.Trigger) {
				s.rejectedRun = maxRejectedWatches
			},
			evs: []watch.Event{{Type: watch.Modified, Object: stateCM("a", "11")}, {Type: watch.Modified, Object: stateCM("a", "9")}},
			out: outRejected, to: resume, pause: pauseBackoff,
			check: func(t *testing.T, r *Reflector[cmObj], m move) {
				if m.to.rejectedRun != 1 || m.to.rv != 11 {
					t.Errorf("rejected watches in a row = %d, resume from %d; want 1, 11", m.to.rejectedRun, m.to.rv)
				}
			}},
		{name: "ERROR 410", from: watching, open: 5 * time.Second,
			evs: errorWatch(apierrors.NewResourceExpired("too old")),
			out: outExpired, to: initialEvents, relist: relistExpired, pause: pauseBackoff, report: true},
		{name: "ERROR 410 after two minutes", from: watching, open: 2 * time.Minute,
			evs: errorWatch(apierrors.NewGone("gone")),
			out: outExpired, to: initialEvents, relist: relistExpired, report: true, check: backoffReset},
		{name: "ERROR 400", from: watching, open: 5 * time.Second,
			evs: errorWatch(apierrors.NewBadRequest("bad resourceVersion")),
			out: outInvalid, to: initialEvents, relist: relistRejected, pause: pauseBackoff, report: true},
		{name: "ERROR 500", from: watching, open: 5 * time.Second,
			evs: errorWatch(apierrors.NewInternalError(boom)),
			out: outFailed, to: resume, pause: pauseBackoff, report: true},
		{name: "ERROR event without a Status", from: watching, open: 5 * time.Second,
			evs: []watch.Event{{Type: watch.Error, Object: stateCM("a", "11")}},
			// The server's answer, though garbled: a failure, not a
			// refused event.
			out: outFailed, to: resume, pause: pauseBackoff, report: true},
	}
	for _, c := range cases {
		t.Run(c.from.String()+"/"+c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				trig := relist.NewTrigger()
				lw := &script{watch: watchAnswer(events(false), nil)}
				r := New[cmObj](lw, nopSink{}, Options{Name: "configmaps", Relist: trig})
				r.pacer.backoff.next() // backing off, so that a reset shows
				r.publish("10")
				s := state{phase: c.from, relist: r.arm(), rv: 10}
				if c.set != nil {
					c.set(r, &s, lw, trig)
				}
				if c.from == watching {
					s.w, s.since = newTimedWatch(c.open, c.closed, c.evs...), time.Now()
				}
				res := r.step(ctx, s)
				if res.out != c.out {
					t.Fatalf("outcome %v (err %v), want %v", res.out, res.err, c.out)
				}
				if c.from == watching && res.open != c.open {
					t.Errorf("watch open %v, want %v", res.open, c.open)
				}
				m := next(s, res)
				r.apply(ctx, m)
				if m.to.phase != c.to || m.pause != c.pause || m.relist != c.relist || (m.report != nil) != c.report {
					t.Errorf("-> %v, pause %v, relist %v, report %v; want -> %v, pause %v, relist %v, report %v",
						m.to.phase, m.pause, m.relist, m.report, c.to, c.pause, c.relist, c.report)
				}
				if (m.to.phase == watching) != (m.to.w != nil) {
					t.Errorf("-> %v with watch %v", m.to.phase, m.to.w)
				}
				if m.pause == pauseBackoff && m.after == nil {
					t.Error("backs off after no error")
				}
				if c.check != nil {
					c.check(t, r, m)
				}
				if m.to.w != nil {
					stopWatch(m.to.w)
				}
			})
		})
	}
}

func errorWatch(err error) []watch.Event { return []watch.Event{errorEvent(err)} }

func backoffReset(t *testing.T, r *Reflector[cmObj], m move) {
	if r.pacer.backoff.base != 0 || !m.resetBackoff {
		t.Error("backoff not reset by a watch that stayed open")
	}
}

// timedWatch delivers its events once it has been open a while, then stays
// open, or closes.
type timedWatch struct {
	ch   chan watch.Event
	stop chan struct{}
	once sync.Once
}

func newTimedWatch(d time.Duration, closed bool, evs ...watch.Event) *timedWatch {
	w := &timedWatch{ch: make(chan watch.Event), stop: make(chan struct{})}
	go func() {
		defer close(w.ch)
		select {
		case <-time.After(d):
		case <-w.stop:
			return
		}
		for _, ev := range evs {
			select {
			case w.ch <- ev:
			case <-w.stop:
				return
			}
		}
		if !closed {
			<-w.stop
		}
	}()
	return w
}

func (w *timedWatch) Stop()                          { w.once.Do(func() { close(w.stop) }) }
func (w *timedWatch) ResultChan() <-chan watch.Event { return w.ch }

// TestTransitionsTotal checks that next has an answer for every state and
// outcome, even those a step cannot produce (a defensive default), that only
// watching holds a watch, and that a step from no state fails rather than
// ending the loop.
func TestTransitionsTotal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		for _, p := range []phase{initialEvents, listing, resume, watching, 0} {
			for o := outSynced; o <= outFailed; o++ {
				res := result{out: o, err: fmt.Errorf("%v", o)}
				if o == outSynced || o == outOpened {
					res.w = events(false)
				}
				m := next(state{phase: p}, res)
				if m.to.phase < initialEvents || m.to.phase > watching {
					t.Errorf("%v × %v -> phase %d", p, o, m.to.phase)
				}
				if (m.to.phase == watching) != (m.to.w != nil) {
					t.Errorf("%v × %v -> %v with watch %v", p, o, m.to.phase, m.to.w)
				}
				if res.w != nil {
					stopWatch(res.w)
				}
			}
		}
		r := New[cmObj](&script{}, nopSink{}, Options{})
		if res := r.step(t.Context(), state{}); res.out != outFailed {
			t.Errorf("a step from no state: %v, want %v (then a sync)", res.out, outFailed)
		}
	})
}

// TestNext is the transition table: next alone, a pure function of the state
// and the step's result, row by row (the package doc, "States", says the
// same in prose). TestTransitions runs the same transitions through real
// steps.
func TestNext(t *testing.T) {
	err := errors.New("failure")
	w := events(false)
	defer stopWatch(w)
	a := armed{gen: 7}
	const (
		short = 500 * time.Millisecond
		mid   = 5 * time.Second
		long  = 2 * time.Minute
	)
	type want struct {
		to                                   phase
		pause                                pause
		relist                               relistCause
		report, synced, populated, clearErr  bool
		reset, free, noWatchList, listedOnce bool
		rv                                   uint64
		rejectedRun                          int
	}
	rows := []struct {
		name string
		from state
		res  result
		want want
	}{
		{"initialEvents synced", state{phase: initialEvents}, result{out: outSynced, w: w, armed: a, rv: 5},
			want{to: watching, synced: true, populated: true, listedOnce: true, rv: 5}},
		{"initialEvents refused", state{phase: initialEvents}, result{out: outRefused, err: err},
			want{to: listing, noWatchList: true}},
		{"initialEvents timedOut", state{phase: initialEvents}, result{out: outTimedOut, err: err},
			want{to: listing, report: true}},
		{"initialEvents rejected", state{phase: initialEvents}, result{out: outRejected, err: err},
			want{to: listing, report: true, pause: pauseBackoff}},
		{"initialEvents failed", state{phase: initialEvents}, result{out: outFailed, err: err},
			want{to: listing, report: true}},
		{"listing synced, first", state{phase: listing}, result{out: outSynced, armed: a, rv: 9},
			want{to: resume, populated: true, free: true, listedOnce: true, rv: 9}},
		{"listing synced, relist", state{phase: listing, mem: memory{listedOnce: true}}, result{out: outSynced, armed: a, rv: 9},
			want{to: resume, populated: true, listedOnce: true, rv: 9}},
		{"listing failed", state{phase: listing}, result{out: outFailed, err: err},
			want{to: initialEvents, report: true, pause: pauseBackoff}},
		{"listing failed, WatchList given up", state{phase: listing, mem: memory{noWatchList: true}}, result{out: outRejected, err: err},
			want{to: listing, report: true, pause: pauseBackoff, noWatchList: true}},
		{"resume opened", state{phase: resume, rv: 9, free: true}, result{out: outOpened, w: w, rv: 9},
			want{to: watching, synced: true, clearErr: true, rv: 9}},
		{"resume requested", state{phase: resume, rv: 9}, result{out: outRequested, rv: 9},
			want{to: initialEvents, relist: relistRequested}},
		{"resume expired", state{phase: resume, rv: 9}, result{out: outExpired, err: err, rv: 9},
			want{to: initialEvents, relist: relistExpired, report: true, pause: pauseBackoff}},
		{"resume invalid", state{phase: resume, rv: 9}, result{out: outInvalid, err: err, rv: 9},
			want{to: initialEvents, relist: relistRejected, report: true, pause: pauseBackoff}},
		{"resume failed", state{phase: resume, rv: 9, free: true, rejectedRun: 2}, result{out: outFailed, err: err, rv: 9},
			want{to: resume, report: true, pause: pauseBackoff, rv: 9, rejectedRun: 2}},
		{"watching closed short", state{phase: watching, rv: 9}, result{out: outClosed, open: short, rv: 12},
			want{to: resume, pause: pauseBackoff, rv: 12}},
		{"watching closed mid", state{phase: watching, rv: 9}, result{out: outClosed, open: mid, rv: 12},
			want{to: resume, pause: pauseTurn, reset: true, rv: 12}},
		{"watching closed long", state{phase: watching, rv: 9}, result{out: outClosed, open: long, rv: 12},
			want{to: resume, reset: true, rv: 12}},
		{"watching requested", state{phase: watching, rv: 9}, result{out: outRequested, open: mid, rv: 12},
			want{to: initialEvents, relist: relistRequested, reset: true}},
		{"watching rejected", state{phase: watching, rv: 9, rejectedRun: 1}, result{out: outRejected, err: err, open: mid, rv: 9},
			want{to: resume, pause: pauseBackoff, rv: 9, rejectedRun: 2}},
		{"watching rejected after progress", state{phase: watching, rv: 9, rejectedRun: maxRejectedWatches}, result{out: outRejected, err: err, open: mid, rv: 12, progressed: true},
			want{to: resume, pause: pauseBackoff, rv: 12, rejectedRun: 1}},
		{"watching rejected, one too many", state{phase: watching, rv: 9, rejectedRun: maxRejectedWatches}, result{out: outRejected, err: err, open: mid, rv: 9},
			want{to: initialEvents, relist: relistUndecodable, pause: pauseBackoff}},
		{"watching expired", state{phase: watching, rv: 9}, result{out: outExpired, err: err, open: mid, rv: 9},
			want{to: initialEvents, relist: relistExpired, report: true, pause: pauseBackoff, reset: true}},
		{"watching expired after long", state{phase: watching, rv: 9}, result{out: outExpired, err: err, open: long, rv: 9},
			want{to: initialEvents, relist: relistExpired, report: true, reset: true}},
		{"watching failed", state{phase: watching, rv: 9}, result{out: outFailed, err: err, open: short, rv: 10},
			want{to: resume, report: true, pause: pauseBackoff, rv: 10}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			m := next(row.from, row.res)
			if again := next(row.from, row.res); fmt.Sprint(again) != fmt.Sprint(m) {
				t.Fatalf("next is not a function of its arguments: %v, then %v", m, again)
			}
			got := want{
				to: m.to.phase, pause: m.pause, relist: m.relist, report: m.report != nil,
				synced: m.synced, populated: m.populated, clearErr: m.clearErr, reset: m.resetBackoff,
				free: m.to.free, noWatchList: m.to.mem.noWatchList, listedOnce: m.to.mem.listedOnce,
				rv: m.to.rv, rejectedRun: m.to.rejectedRun,
			}
			if got != row.want {
				t.Errorf("next(%v, %v) =\n  %+v\nwant\n  %+v", row.from.phase, row.res.out, got, row.want)
			}
			if m.pause == pauseBackoff && m.after == nil {
				t.Error("backs off after no error")
			}
			if (m.to.phase == watching) != (m.to.w != nil) {
				t.Errorf("-> %v with watch %v", m.to.phase, m.to.w)
			}
			if (m.to.phase == resume || m.to.phase == watching) && m.to.relist != row.from.relist && m.to.relist != row.res.armed {
				t.Errorf("-> %v with the trigger armed at %v, neither the state's nor the sync's", m.to.phase, m.to.relist)
			}
		})
	}
}

// A nil *relist.Trigger in Options.Relist (what a Shard without ByUID hands
// out) is no trigger: the Reflector arms nothing and hands its Sink no
// Marks, as before Relist took any value with ArmedAt.
func TestNilTriggerIsNoTrigger(t *testing.T) {
	var none *relist.Trigger
	r := New[cmObj](&script{}, nopSink{}, Options{Relist: none})
	if r.opts.Relist != nil {
		t.Fatalf("Options.Relist holding a nil *relist.Trigger became %#v, want nil", r.opts.Relist)
	}
	if a := r.arm(); a.ch != nil || a.gen != 0 {
		t.Errorf("arm() = %+v, want the zero armed", a)
	}
	trig := relist.NewTrigger()
	trig.Fire()
	r = New[cmObj](&script{}, nopSink{}, Options{Relist: trig})
	if a := r.arm(); a.ch == nil || a.gen != 1 {
		t.Errorf("arm() with a trigger fired once = %+v, want its channel and generation 1", a)
	}
}
