package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// An event whose resourceVersion is not a number is applied but never
// becomes the point to resume from: a later watch starts from the last valid
// resourceVersion, so the server does not reject it and no change is missed.
func TestInvalidResourceVersionIsNotResumedFrom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("b", "1"))) // rv 2
		bad := cm("x", "1")
		bad.ResourceVersion = "abc"
		src.Inject(watch.Event{Type: watch.Added, Object: bad})
		synctest.Wait()
		if got := h.r.LastSyncResourceVersion(); got != "2" {
			t.Errorf("LastSyncResourceVersion = %q, want 2 (not the invalid abc)", got)
		}
		time.Sleep(2 * time.Second)
		src.DropWatches()
		must(src.Add(cm("c", "1"))) // rv 3, replayed to the next watch
		time.Sleep(time.Minute)
		synctest.Wait()
		wantRequests(t, src, "list", "watch rv=1", "watch rv=2")
		es := h.errs.all()
		if len(es) != 1 || !errors.Is(es[0], reflector.ErrInvalidResourceVersion) || !strings.Contains(es[0].Error(), `"abc"`) {
			t.Errorf("reported errors = %v, want one ErrInvalidResourceVersion naming \"abc\"", es)
		}
		_, state, _ := h.sink.snapshot()
		for _, k := range []string{"ns/a", "ns/b", "ns/c"} {
			if _, ok := state[k]; !ok {
				t.Errorf("sink lacks %s: %v", k, rvs(state))
			}
		}
	})
}

// A LIST at an invalid resourceVersion is not used: it would make every
// later watch fail.
func TestListAtInvalidResourceVersionIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &badListRV{Source: src, bad: 2}
		h := start(t, lw, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Minute)
		synctest.Wait()
		wantRequests(t, src, "list", "list", "list", "watch rv=1")
		if _, _, n := h.sink.snapshot(); n != 1 {
			t.Errorf("replaces = %d, want 1 (only the valid list)", n)
		}
		for _, err := range h.errs.all() {
			if !errors.Is(err, reflector.ErrInvalidResourceVersion) {
				t.Errorf("error %v, want ErrInvalidResourceVersion", err)
			}
		}
	})
}

type badListRV struct {
	*runtimetest.Source[obj]
	bad int
}

func (b *badListRV) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
	res, err := b.Source.List(ctx, opts)
	if err == nil && b.bad > 0 {
		b.bad--
		res.ResourceVersion = "12ab"
	}
	return res, err
}

// A watch the server rejects (400, 422, 410: as its answer or as an ERROR
// event) leads to a relist, never to a retry from the same resourceVersion.
func TestRejectedWatchRelists(t *testing.T) {
	invalid := apierrors.NewInvalid(schema.GroupKind{Kind: "ConfigMap"}, "", field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), "x", "bad")})
	for _, tc := range []struct {
		name  string
		err   *apierrors.StatusError
		event bool
	}{
		{"400 answer", apierrors.NewBadRequest("invalid resourceVersion"), false},
		{"422 answer", invalid, false},
		{"410 answer", apierrors.NewResourceExpired("too old"), false},
		{"400 event", apierrors.NewBadRequest("invalid resourceVersion"), true},
		{"422 event", invalid, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				h := start(t, src, src, reflector.Options{WatchList: &no})
				synctest.Wait()
				must(src.Add(cm("b", "1"))) // rv 2
				time.Sleep(2 * time.Second)
				if tc.event {
					st := tc.err.Status()
					src.Inject(watch.Event{Type: watch.Error, Object: &st})
				} else {
					src.FailNext(runtimetest.VerbWatch, tc.err)
					src.DropWatches()
				}
				time.Sleep(time.Minute)
				synctest.Wait()
				want := []string{"list", "watch rv=1", "list", "watch rv=2"}
				if !tc.event {
					want = []string{"list", "watch rv=1", "watch rv=2", "list", "watch rv=2"}
				}
				wantRequests(t, src, want...)
				h.converged()
			})
		})
	}
}

// flaky serves a watch that delivers what events returns and then closes,
// for at most max watches (then watches that stay open), over a Source for
// everything else.
type flaky struct {
	*runtimetest.Source[obj]
	mu      sync.Mutex
	max     int
	watches []time.Time
	events  func(n int) []watch.Event
	openErr func(n int) error
}

func (f *flaky) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	n := len(f.watches)
	f.watches = append(f.watches, time.Now())
	f.mu.Unlock()
	if n >= f.max {
		return f.Source.Watch(ctx, opts)
	}
	if f.openErr != nil {
		if err := f.openErr(n); err != nil {
			return nil, err
		}
	}
	evs := f.events(n)
	w := watch.NewFakeWithChanSize(len(evs), false)
	for _, ev := range evs {
		w.Action(ev.Type, ev.Object)
	}
	w.Stop() // closes the channel after the buffered events
	return w, nil
}

func (f *flaky) count(within time.Duration) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.watches) == 0 {
		return 0
	}
	n := 0
	for _, at := range f.watches {
		if at.Sub(f.watches[0]) < within {
			n++
		}
	}
	return n
}

func withRV(o obj, rv string) obj { o.ResourceVersion = rv; return o }

// Whatever a server does with watches — close each after one event, after a
// bookmark, at once, with an ERROR, with an undecodable event, or refuse them
// — the Reflector opens a bounded number per second: it backs off on watches
// that end early whatever they delivered.
func TestWatchRequestsStayBounded(t *testing.T) {
	status := func(err *apierrors.StatusError) *metav1.Status { st := err.Status(); return &st }
	for _, tc := range []struct {
		name    string
		events  func(n int) []watch.Event
		openErr func(n int) error
	}{
		{"one event each", func(n int) []watch.Event {
			return []watch.Event{{Type: watch.Modified, Object: withRV(cm("a", fmt.Sprint(n)), fmt.Sprint(n+2))}}
		}, nil},
		{"one bookmark each", func(n int) []watch.Event {
			return []watch.Event{{Type: watch.Bookmark, Object: withRV(cm("", ""), fmt.Sprint(n+2))}}
		}, nil},
		{"closed at once", func(int) []watch.Event { return nil }, nil},
		{"internal error event", func(int) []watch.Event {
			return []watch.Event{{Type: watch.Error, Object: status(apierrors.NewInternalError(errors.New("boom")))}}
		}, nil},
		{"expired event", func(int) []watch.Event {
			return []watch.Event{{Type: watch.Error, Object: status(apierrors.NewResourceExpired("gone"))}}
		}, nil},
		{"undecodable event", func(int) []watch.Event {
			return []watch.Event{{Type: watch.Added, Object: &reflector.MalformedObject{Err: errors.New("garbage")}}}
		}, nil},
		{"refused", nil, func(int) error { return apierrors.NewServiceUnavailable("down") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				lw := &flaky{Source: src, max: 1000, events: tc.events, openErr: tc.openErr}
				start(t, lw, src, reflector.Options{WatchList: &no})
				time.Sleep(time.Minute)
				synctest.Wait()
				// 500ms doubling to 2s, waits in the upper half: about 40
				// watches in a minute; a tight loop opens all 1000 at once.
				if n := lw.count(time.Minute); n > 60 || n < 20 {
					t.Errorf("%d watches in the first minute, want 20..60", n)
				}
				lists, _ := src.Calls()
				if lists > 60 {
					t.Errorf("%d lists in a minute, want at most 60", lists)
				}
			})
		})
	}
}

// The backoff starts again from InitialBackoff after a success: a watch that
// fails after a long healthy one waits at most 500ms, however many failures
// came before.
func TestBackoffResetsOnSuccess(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		for range 8 {
			src.FailNext(runtimetest.VerbList, apierrors.NewServiceUnavailable("down"))
		}
		h := start(t, src, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Minute) // eight failed lists, at the cap by now; then list+watch
		synctest.Wait()
		src.FailNext(runtimetest.VerbWatch, apierrors.NewServiceUnavailable("blip"))
		src.DropWatches()
		time.Sleep(time.Minute)
		synctest.Wait()
		reqs := src.Requests()
		if len(reqs) != 12 {
			t.Fatalf("requests %q, want 8 failed lists, a list, a watch, a failed watch, a watch", verbs(reqs))
		}
		if d := reqs[11].Time.Sub(reqs[10].Time); d > 500*time.Millisecond {
			t.Errorf("after a healthy watch, a failed watch was retried after %v, want at most 500ms", d)
		}
		if d := reqs[8].Time.Sub(reqs[7].Time); d < time.Second || d > 2*time.Second {
			t.Errorf("the eighth failure waited %v, want in [1s, 2s] (the cap)", d)
		}
		h.converged()
	})
}

// An event the ListerWatcher could not decode ends the watch, and the
// Reflector resumes at once from the last resourceVersion, so the change it
// stood for is read again instead of lost.
func TestUndecodableEventResumesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("b", "1"))) // rv 2
		synctest.Wait()
		at := time.Now()
		// The garbled event stands for an update the Reflector never saw.
		src.Inject(watch.Event{Type: watch.Modified, Object: &reflector.MalformedObject{Err: errors.New("invalid character 'x'")}})
		b, _ := src.Get("ns/b")
		b.Data["v"] = "2"
		must(src.Update(b)) // rv 3
		synctest.Wait()
		reqs := src.Requests()
		wantRequests(t, src, "list", "watch rv=1", "watch rv=2")
		if len(reqs) == 3 && reqs[2].Time != at {
			t.Errorf("resumed after %v, want at once", reqs[2].Time.Sub(at))
		}
		es := h.errs.all()
		if len(es) != 1 || !errors.Is(es[0], reflector.ErrMalformedEvent) || !strings.Contains(es[0].Error(), "invalid character") {
			t.Errorf("reported %v, want one ErrMalformedEvent with the decode error", es)
		}
		h.converged()
	})
}

// A stream that lost its framing sends one undecodable event and closes
// (the wire package's contract); that too is resumed at once, although the
// watch was short.
func TestTruncatedWatchResumesAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &flaky{Source: src, max: 1, events: func(int) []watch.Event {
			// b is added (rv 2) and updated (rv 3) while this watch is open;
			// the stream delivers the add, then breaks on the update.
			b := must(src.Add(cm("b", "1")))
			b.Data["v"] = "2"
			must(src.Update(b))
			return []watch.Event{{Type: watch.Added, Object: b}, {Type: watch.Modified, Object: &reflector.MalformedObject{Err: errors.New("unexpected EOF")}}}
		}}
		h := start(t, lw, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		reqs := src.Requests()
		wantRequests(t, src, "list", "watch rv=2")
		if len(reqs) == 2 && reqs[1].Time != reqs[0].Time {
			t.Errorf("resumed after %v, want at once", reqs[1].Time.Sub(reqs[0].Time))
		}
		h.converged()
	})
}

// Undecodable events that keep coming at the same resourceVersion make the
// Reflector relist after a few quick resumes.
func TestPersistentUndecodableEventRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &flaky{Source: src, max: 4, events: func(int) []watch.Event {
			return []watch.Event{{Type: watch.Added, Object: &reflector.MalformedObject{Err: errors.New("garbage")}}}
		}}
		h := start(t, lw, src, reflector.Options{WatchList: &no})
		time.Sleep(time.Minute)
		synctest.Wait()
		wantRequests(t, src, "list", "list", "watch rv=1")
		if _, _, n := h.sink.snapshot(); n != 2 {
			t.Errorf("replaces = %d, want 2", n)
		}
	})
}

// Objects without a name, or whose namespace contradicts the resource's
// scope, are reported (naming the resource and resourceVersion) and not
// stored, from a LIST and from a watch.
func TestObjectsWithoutValidKeyAreNotStored(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scope reflector.Scope
		bad   obj
	}{
		{"no name", reflector.ScopeUnknown, cm("", "1")},
		{"slash in name", reflector.ScopeUnknown, cm("x/y", "1")},
		{"no namespace on a namespaced type", reflector.ScopeNamespaced, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "nons"}}},
		{"namespace on a cluster-scoped type", reflector.ScopeCluster, cm("withns", "1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				good := cm("a", "1")
				if tc.scope == reflector.ScopeCluster {
					good.Namespace = ""
				}
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, good, tc.bad) // rv 1, 2
				h := start(t, src, src, reflector.Options{WatchList: &no, Name: "configmaps", Scope: tc.scope})
				synctest.Wait()
				must(src.Delete(tc.bad)) // rv 3: the event of a keyless object
				must(src.Add(tc.bad))    // rv 4
				synctest.Wait()
				_, state, _ := h.sink.snapshot()
				if len(state) != 1 {
					t.Errorf("sink = %v, want only %s", rvs(state), store.Key(good))
				}
				ops, _, _ := h.sink.snapshot()
				if want := []string{"replace 2 [" + store.Key(good) + "]"}; !slices.Equal(ops, want) {
					t.Errorf("ops = %q, want %q", ops, want)
				}
				es := h.errs.all()
				if len(es) != 3 {
					t.Fatalf("reported %v, want 3 errors (list, delete, add)", es)
				}
				for _, err := range es {
					if !errors.Is(err, reflector.ErrInvalidObject) || !strings.Contains(err.Error(), "configmaps") {
						t.Errorf("error %q, want ErrInvalidObject naming the resource", err)
					}
				}
				if s := es[0].Error(); !strings.Contains(s, "resourceVersion 2") {
					t.Errorf("list error %q does not name the list's resourceVersion", s)
				}
				if s := es[2].Error(); !strings.Contains(s, `resourceVersion "4"`) {
					t.Errorf("event error %q does not name the event's resourceVersion", s)
				}
				if got := h.r.LastSyncResourceVersion(); got != "4" {
					t.Errorf("LastSyncResourceVersion = %q, want 4 (the events were consumed)", got)
				}
			})
		})
	}
}
