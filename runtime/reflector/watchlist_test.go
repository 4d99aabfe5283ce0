package reflector_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

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

func TestWatchListWithoutEndMarkerFallsBackToList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"))
		attempts := 0
		// A source that streams the initial objects and then nothing: no
		// initial-events-end bookmark, no close (a fake clientset's watch).
		lw := scripted{src, func() watch.Interface {
			attempts++
			w := watch.NewFakeWithChanSize(2, false)
			w.Add(withRV(cm("a", "1"), "1"))
			w.Add(withRV(cm("b", "1"), "2"))
			return w
		}}
		h := start(t, lw, src, reflector.Options{})
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if err := h.r.LastError(); err != nil {
			t.Errorf("LastError after 9s = %v, want nil", err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		err := h.r.LastError()
		if !errors.Is(err, reflector.ErrInitialEventsTimeout) || !strings.Contains(err.Error(), "2 objects received") || !strings.Contains(err.Error(), "falling back to LIST at 1m0s") {
			t.Errorf("LastError after 11s = %v, want the stall, naming the fallback", err)
		}
		if _, _, n := h.sink.snapshot(); n != 0 {
			t.Errorf("replaces after 11s = %d, want 0", n)
		}
		time.Sleep(50 * time.Second)
		synctest.Wait()
		if _, _, n := h.sink.snapshot(); n != 1 {
			t.Fatalf("replaces after 61s = %d, want 1 (the fallback LIST)", n)
		}
		h.converged()
		es := h.errs.all()
		if len(es) != 2 || !errors.Is(es[1], reflector.ErrInitialEventsTimeout) || !strings.Contains(es[1].Error(), "within 1m0s") || !strings.Contains(es[1].Error(), "LIST+WATCH") {
			t.Errorf("reported errors = %v, want the stall, then the fallback", es)
		}
		// WatchList is not tried again on a relist (after a backoff
		// step, the watch of a minute not being long-lived, and a turn
		// of the Budget before the watch).
		src.Compact()
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if attempts != 1 {
			t.Errorf("watch-list attempts = %d, want 1", attempts)
		}
		wantRequests(t, src, "list", "watch rv=2", "list", "watch rv=2")
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
