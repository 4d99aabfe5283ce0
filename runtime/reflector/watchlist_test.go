package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

func TestWatchListEndMarkerReplacesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"), cm("c", "1"))
		h := start(t, src, src, reflector.Options{}) // WatchList nil: try it
		synctest.Wait()
		must(src.Add(cm("d", "1")))
		synctest.Wait()
		wantRequests(t, src, "watch sendInitialEvents")
		o := src.Requests()[0].Options
		if o.ResourceVersionMatch != metav1.ResourceVersionMatchNotOlderThan || !o.AllowWatchBookmarks {
			t.Errorf("watch-list options = %+v", o)
		}
		ops, _, _ := h.sink.snapshot()
		if want := []string{"replace 3 [ns/a ns/b ns/c]", "add ns/d 4"}; !slices.Equal(ops, want) {
			t.Errorf("ops = %q, want %q (one Replace, then the same watch goes on)", ops, want)
		}
		if got := h.r.LastSyncResourceVersion(); got != "4" {
			t.Errorf("LastSyncResourceVersion = %q, want 4", got)
		}
	})
}

func TestWatchListRefusedFallsBackAndRemembers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		src.RefuseWatchList(true)
		h := start(t, src, src, reflector.Options{WatchList: &yes})
		synctest.Wait()
		must(src.Add(cm("b", "1")))
		time.Sleep(time.Minute) // a watch that lasted a minute relists at once
		src.Compact()
		synctest.Wait()
		wantRequests(t, src, "watch sendInitialEvents", "list", "watch rv=1", "list", "watch rv=2")
		h.converged()
		if es := h.errs.all(); len(es) != 1 || !apierrors.IsResourceExpired(es[0]) {
			t.Errorf("reported errors = %v, want only the 410 (a refusal is not an error)", es)
		}
	})
}

// scripted serves WatchList requests from a canned watch and everything else
// from the Source.
type scripted struct {
	*runtimetest.Source[obj]
	watchList func() watch.Interface
}

func (s scripted) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return s.watchList(), nil
	}
	return s.Source.Watch(ctx, opts)
}

func TestWatchListErrorEventBeforeEndMarker(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      *apierrors.StatusError
		attempts int // watch-list attempts after two relists
		reported int // errors reported to the handler
	}{
		{"invalid is a refusal", apierrors.NewBadRequest("sendInitialEvents not supported"), 1, 1},
		{"internal error is transient", apierrors.NewInternalError(errors.New("boom")), 2, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				attempts := 0
				lw := scripted{src, func() watch.Interface {
					attempts++
					w := watch.NewFakeWithChanSize(2, false)
					w.Add(withRV(cm("a", "1"), "1"))
					st := tc.err.Status()
					w.Error(&st)
					return w
				}}
				h := start(t, lw, src, reflector.Options{})
				synctest.Wait()
				src.Compact()
				// A 410 on a watch without events is backed off, and the
				// requests after the WatchList (the LIST, the watch) wait
				// for their turns of the Budget, a second apart.
				time.Sleep(3 * time.Second)
				synctest.Wait()
				if attempts != tc.attempts {
					t.Errorf("watch-list attempts = %d, want %d", attempts, tc.attempts)
				}
				// A refusal is expected and silent; a transient failure is an
				// error worth reporting (each time), beside the 410.
				if es := h.errs.all(); len(es) != tc.reported {
					t.Errorf("reported errors = %v, want %d", es, tc.reported)
				}
				wantRequests(t, src, "list", "watch rv=1", "list", "watch rv=1")
				ops, _, _ := h.sink.snapshot()
				if want := []string{"replace 1 [ns/a]", "replace 1 [ns/a]"}; !slices.Equal(ops, want) {
					t.Errorf("ops = %q, want %q (nothing from the failed stream)", ops, want)
				}
			})
		})
	}
}

// stream is a watch whose events feed, run in a goroutine of its own, sends
// when it chooses (watch.FakeWatcher panics on a send after Stop). Its
// ResultChan is closed once feed has returned and the watch is stopped.
type stream struct {
	ch      chan watch.Event
	stopped chan struct{}
	once    sync.Once
}

func newStream(feed func(w *stream)) *stream {
	w := &stream{ch: make(chan watch.Event), stopped: make(chan struct{})}
	go func() {
		defer close(w.ch)
		feed(w)
		<-w.stopped
	}()
	return w
}

func (s *stream) ResultChan() <-chan watch.Event { return s.ch }
func (s *stream) Stop()                          { s.once.Do(func() { close(s.stopped) }) }

// send delivers ev, or reports false once the Reflector stopped the watch.
func (s *stream) send(ev watch.Event) bool {
	select {
	case s.ch <- ev:
		return true
	case <-s.stopped:
		return false
	}
}

// bookmark is a BOOKMARK event at rv, the initial-events-end one if end.
func bookmark(rv string, end bool) watch.Event {
	b := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: rv}}
	if end {
		b.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return watch.Event{Type: watch.Bookmark, Object: b}
}

// watchDoneErrs records the errors Metrics.WatchDone receives.
type watchDoneErrs struct {
	nopMetrics
	mu   sync.Mutex
	errs []error
}

func (m *watchDoneErrs) WatchDone(_ time.Duration, err error) {
	if err != nil {
		m.mu.Lock()
		m.errs = append(m.errs, err)
		m.mu.Unlock()
	}
}

func (m *watchDoneErrs) all() []error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.errs)
}

// watchListOptions records the options of the WatchList requests it serves.
type watchListOptions struct {
	scripted
	mu   sync.Mutex
	opts []metav1.ListOptions
}

func (s *watchListOptions) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		s.mu.Lock()
		s.opts = append(s.opts, opts)
		s.mu.Unlock()
	}
	return s.scripted.Watch(ctx, opts)
}

// TestWatchListSlowStreamIsNotGivenUp: an initial stream that takes ten
// minutes (an object every 5s, a progress bookmark every minute, the end
// marker after 10m) is waited for to its end whatever
// Options.WatchListTimeout's default: the bound counts from the last event
// or bookmark, not from the start. Nothing is reported, nothing is listed,
// one Replace holds every object. The request asks the server for a
// timeout of at least 30 minutes, since a server ends a watch at its
// timeout, initial events or not.
func TestWatchListSlowStreamIsNotGivenUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 120 // 120 × 5s = 10m
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{})
		attempts := 0
		lw := &watchListOptions{scripted: scripted{src, func() watch.Interface {
			attempts++
			return newStream(func(w *stream) {
				for i := range n {
					time.Sleep(5 * time.Second)
					if !w.send(watch.Event{Type: watch.Added, Object: withRV(cm(fmt.Sprintf("o%03d", i), ""), strconv.Itoa(i+1))}) {
						return
					}
					if (i+1)%12 == 0 && i+1 < n && !w.send(bookmark(strconv.Itoa(i+1), false)) {
						return
					}
				}
				w.send(bookmark(strconv.Itoa(n), true))
			})
		}}}
		m := &watchDoneErrs{}
		h := start(t, lw, src, reflector.Options{Metrics: m})
		for minute := 1; minute <= 10; minute++ {
			time.Sleep(time.Minute - time.Millisecond)
			synctest.Wait()
			if err := h.r.LastError(); err != nil {
				t.Fatalf("LastError after %dm of steady progress = %v, want nil", minute, err)
			}
			if _, _, replaces := h.sink.snapshot(); replaces != 0 {
				t.Fatalf("replaces after %dm = %d, want 0 (the stream is still sending its initial events)", minute, replaces)
			}
			time.Sleep(time.Millisecond)
		}
		synctest.Wait()
		if !h.r.HasSynced() {
			t.Fatal("not synced after the end marker at 10m")
		}
		ops, state, replaces := h.sink.snapshot()
		if replaces != 1 || len(state) != n || len(ops) != 1 {
			t.Errorf("after 10m: %d replaces, %d objects, ops %q; want one Replace of %d objects", replaces, len(state), ops, n)
		}
		if attempts != 1 {
			t.Errorf("watch-list attempts = %d, want 1", attempts)
		}
		wantRequests(t, src) // no LIST: no fallback
		if es := h.errs.all(); len(es) != 0 {
			t.Errorf("reported errors = %v, want none", es)
		}
		if es := m.all(); len(es) != 0 {
			t.Errorf("Metrics.WatchDone errors = %v, want none", es)
		}
		lw.mu.Lock()
		defer lw.mu.Unlock()
		if len(lw.opts) != 1 || lw.opts[0].TimeoutSeconds == nil || *lw.opts[0].TimeoutSeconds < 30*60 || *lw.opts[0].TimeoutSeconds >= 60*60 {
			t.Errorf("WatchList requests %+v, want one with a timeout in [30m, 60m)", lw.opts)
		}
	})
}

// TestWatchListStallFallsBackForThisSync: a stream that stalls is reported
// after 10s without progress (and the report cleared by its next event),
// given up after Options.WatchListTimeout without progress, counted from its
// last event or bookmark, reported (LastError, WatchErrorHandler,
// Metrics.WatchDone) and replaced by a LIST for that sync only: the relist
// after a 410 tries WatchList again.
func TestWatchListStallFallsBackForThisSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"))
		attempts := 0
		lw := scripted{src, func() watch.Interface {
			attempts++
			first := attempts == 1
			return newStream(func(w *stream) {
				if !first {
					// The relist: a healthy stream.
					_ = w.send(watch.Event{Type: watch.Added, Object: withRV(cm("a", "1"), "1")}) &&
						w.send(watch.Event{Type: watch.Added, Object: withRV(cm("b", "1"), "2")}) &&
						w.send(bookmark(src.ResourceVersion(), true))
					return
				}
				// a at 0s, b at 15s, a bookmark at 20s, then nothing: no
				// end marker, no close (a proxy that drops it).
				_ = w.send(watch.Event{Type: watch.Added, Object: withRV(cm("a", "1"), "1")})
				time.Sleep(15 * time.Second)
				_ = w.send(watch.Event{Type: watch.Added, Object: withRV(cm("b", "1"), "2")})
				time.Sleep(5 * time.Second)
				_ = w.send(bookmark("2", false))
			})
		}}
		m := &watchDoneErrs{}
		h := start(t, lw, src, reflector.Options{Metrics: m})
		time.Sleep(11 * time.Second)
		synctest.Wait()
		if err := h.r.LastError(); !errors.Is(err, reflector.ErrInitialEventsTimeout) || !strings.Contains(err.Error(), "1 objects received") || !strings.Contains(err.Error(), "falling back to LIST after 1m0s without one") {
			t.Errorf("LastError at 11s = %v, want the stall (10s without progress)", err)
		}
		time.Sleep(5 * time.Second) // 16s: b arrived at 15s
		synctest.Wait()
		if err := h.r.LastError(); err != nil {
			t.Errorf("LastError at 16s = %v, want nil (the stream moved again)", err)
		}
		// The bookmark at 20s is the last progress: the stall is reported at
		// 30s and the stream given up at 1m20s, not at 1m.
		time.Sleep(80*time.Second - 16*time.Second - time.Millisecond)
		synctest.Wait()
		if _, _, n := h.sink.snapshot(); n != 0 {
			t.Fatalf("replaces just before 1m20s = %d, want 0 (1m without progress is counted from the bookmark at 20s)", n)
		}
		wantRequests(t, src)
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if _, _, n := h.sink.snapshot(); n != 1 {
			t.Fatalf("replaces at 1m20s = %d, want 1 (the fallback LIST)", n)
		}
		wantRequests(t, src, "list", "watch rv=2")
		h.converged()
		es := h.errs.all()
		if len(es) != 3 {
			t.Fatalf("reported errors = %v, want the stall at 10s, the stall at 30s, the fallback at 1m20s", es)
		}
		for _, err := range es {
			if !errors.Is(err, reflector.ErrInitialEventsTimeout) {
				t.Errorf("reported %v, want it to wrap ErrInitialEventsTimeout", err)
			}
		}
		if last := es[2].Error(); !strings.Contains(last, "no event or bookmark for 1m0s") || !strings.Contains(last, "2 objects received in 1m20s") || !strings.Contains(last, "falling back to LIST for this sync") {
			t.Errorf("fallback reported as %q, want what stalled, since when, and what happens", last)
		}
		if es := m.all(); len(es) != 1 || !errors.Is(es[0], reflector.ErrInitialEventsTimeout) {
			t.Errorf("Metrics.WatchDone errors = %v, want the stall once", es)
		}
		// The watch after the LIST is compacted away: the relist tries
		// WatchList again (after a backoff step, the watch not being
		// long-lived), and this time the stream ends.
		src.Compact()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if attempts != 2 {
			t.Errorf("watch-list attempts = %d, want 2 (WatchList again at the relist)", attempts)
		}
		wantRequests(t, src, "list", "watch rv=2")
		ops, _, _ := h.sink.snapshot()
		if want := []string{"replace 2 [ns/a ns/b]", "replace 2 [ns/a ns/b]"}; !slices.Equal(ops, want) {
			t.Errorf("ops = %q, want %q (the LIST, then the WatchList)", ops, want)
		}
		h.converged()
	})
}

func TestWatchListTimeoutOption(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		wait    time.Duration // when the LIST happens; 0: never
	}{
		{5 * time.Second, 5 * time.Second},
		{-1, 0},
	} {
		t.Run(tc.timeout.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				lw := scripted{src, func() watch.Interface { return watch.NewFakeWithChanSize(1, false) }}
				h := start(t, lw, src, reflector.Options{WatchListTimeout: tc.timeout})
				time.Sleep(tc.wait - time.Millisecond)
				synctest.Wait()
				if _, _, n := h.sink.snapshot(); n != 0 {
					t.Errorf("replaces just before %v = %d, want 0", tc.wait, n)
				}
				if tc.wait == 0 {
					time.Sleep(time.Hour)
					synctest.Wait()
					if _, _, n := h.sink.snapshot(); n != 0 {
						t.Errorf("replaces after an hour without a bound = %d, want 0", n)
					}
					if err := h.r.LastError(); !errors.Is(err, reflector.ErrInitialEventsTimeout) || !strings.Contains(err.Error(), "still waiting") {
						t.Errorf("LastError = %v, want the stall", err)
					}
					return
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()
				if _, _, n := h.sink.snapshot(); n != 1 {
					t.Errorf("replaces at %v = %d, want 1", tc.wait, n)
				}
			})
		})
	}
}

// unsupported is a source carrying client-go's marker for ListerWatchers that
// cannot serve WatchList (its fake clientsets'), as listwatch.Funcs passes it
// on.
type unsupported struct{ *runtimetest.Source[obj] }

func (unsupported) IsWatchListSemanticsUnSupported() bool { return true }

// TestWatchListUnsupportedMarkerLists: with WatchList left to its default, a
// source that says it cannot serve WatchList semantics is listed, never asked
// for a WatchList it would not end (a fake clientset never sends the
// initial-events-end bookmark, so the WatchList would hang).
func TestWatchListUnsupportedMarkerLists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, unsupported{src}, src, reflector.Options{})
		synctest.Wait()
		wantRequests(t, src, "list", "watch rv=1")
		h.converged()
	})
}
