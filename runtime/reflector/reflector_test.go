package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	"k8s.io/apimachinery/pkg/watch"

	"github.com/go-logr/logr/testr"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

type obj = *corev1.ConfigMap

func cm(name, v string) obj {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Data:       map[string]string{"v": v},
	}
}

// sink is a reflector.Sink that records every call and applies them to a map.
type sink struct {
	mu       sync.Mutex
	ops      []string // "add ns/a 4", "replace 3 [ns/a ns/b]"
	state    map[string]obj
	replaces int
	failAdd  error
}

func newSink() *sink { return &sink{state: map[string]obj{}} }

func (s *sink) record(op string, o obj) {
	s.ops = append(s.ops, fmt.Sprintf("%s %s %s", op, store.Key(o), o.ResourceVersion))
}

func (s *sink) Add(o obj) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("add", o)
	if s.failAdd != nil {
		return s.failAdd
	}
	s.state[store.Key(o)] = o
	return nil
}

func (s *sink) Update(o obj) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("update", o)
	s.state[store.Key(o)] = o
	return nil
}

func (s *sink) Delete(o obj) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.record("delete", o)
	delete(s.state, store.Key(o))
	return nil
}

func (s *sink) Replace(objs []obj, rv string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replaces++
	keys := []string{}
	clear(s.state)
	for _, o := range objs {
		k := store.Key(o)
		keys = append(keys, k)
		s.state[k] = o
	}
	slices.Sort(keys)
	s.ops = append(s.ops, fmt.Sprintf("replace %s %v", rv, keys))
	return nil
}

func (s *sink) snapshot() (ops []string, state map[string]obj, replaces int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.ops), maps.Clone(s.state), s.replaces
}

// errs collects what the WatchErrorHandler receives.
type errs struct {
	mu   sync.Mutex
	list []error
}

func (e *errs) handle(_ context.Context, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, err)
}

func (e *errs) all() []error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

type harness struct {
	t    *testing.T
	src  *runtimetest.Source[obj]
	sink *sink
	errs *errs
	r    *reflector.Reflector[obj]
	stop func()
}

var (
	no  = false
	yes = true
)

// start runs a Reflector over lw in the background; stop (also registered
// as a cleanup) cancels it and waits for Run to return.
func start(t *testing.T, lw reflector.ListerWatcher[obj], src *runtimetest.Source[obj], opts reflector.Options) *harness {
	t.Helper()
	h := &harness{t: t, src: src, sink: newSink(), errs: &errs{}}
	opts.WatchErrorHandler = h.errs.handle
	h.r = reflector.New[obj](lw, h.sink, opts)
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), testr.New(t)))
	done := make(chan error, 1)
	go func() { done <- h.r.Run(ctx) }()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Run returned %v, want nil", err)
			}
		})
	}
	t.Cleanup(h.stop)
	return h
}

// converged checks that the sink holds exactly the source's objects.
func (h *harness) converged() {
	h.t.Helper()
	_, got, _ := h.sink.snapshot()
	want := h.src.Snapshot()
	if !runtimetest.SameResourceVersions(got, want) {
		h.t.Errorf("sink = %v, want %v", rvs(got), rvs(want))
	}
}

func rvs(m map[string]obj) map[string]string {
	out := map[string]string{}
	for k, o := range m {
		out[k] = o.ResourceVersion
	}
	return out
}

func verbs(reqs []runtimetest.Request) []string {
	var out []string
	for _, r := range reqs {
		s := string(r.Verb)
		o := r.Options
		if o.SendInitialEvents != nil && *o.SendInitialEvents {
			s += " sendInitialEvents"
		}
		if o.ResourceVersion != "" {
			s += " rv=" + o.ResourceVersion
		}
		if o.Limit != 0 {
			s += fmt.Sprintf(" limit=%d", o.Limit)
		}
		if o.Continue != "" {
			s += " continue"
		}
		out = append(out, s)
	}
	return out
}

func wantRequests(t *testing.T, src *runtimetest.Source[obj], want ...string) {
	t.Helper()
	if got := verbs(src.Requests()); !slices.Equal(got, want) {
		t.Errorf("requests:\n got %q\nwant %q", got, want)
	}
}

func TestPagedListThenWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"), cm("c", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no, PageSize: 2})
		synctest.Wait()
		ops, _, _ := h.sink.snapshot()
		if want := []string{"replace 3 [ns/a ns/b ns/c]"}; !slices.Equal(ops, want) {
			t.Errorf("ops = %q, want %q", ops, want)
		}
		wantRequests(t, src, "list limit=2", "list limit=2 continue", "watch rv=3")
		w := src.Requests()[2].Options
		if !w.AllowWatchBookmarks || w.TimeoutSeconds == nil || *w.TimeoutSeconds < 300 || *w.TimeoutSeconds >= 600 {
			t.Errorf("watch options = %+v, want bookmarks and a timeout in [300, 600)", w)
		}

		b, _ := src.Get("ns/b")
		b.Data["v"] = "2"
		must(src.Update(b))
		must(src.Add(cm("d", "1")))
		must(src.Delete(cm("a", "")))
		synctest.Wait()
		ops, _, _ = h.sink.snapshot()
		if want := []string{"replace 3 [ns/a ns/b ns/c]", "update ns/b 4", "add ns/d 5", "delete ns/a 6"}; !slices.Equal(ops, want) {
			t.Errorf("ops = %q, want %q", ops, want)
		}
		if got := h.r.LastSyncResourceVersion(); got != "6" {
			t.Errorf("LastSyncResourceVersion = %q, want 6", got)
		}
		if err := h.r.LastError(); err != nil {
			t.Errorf("LastError = %v, want nil", err)
		}
		h.converged()
	})
}

func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

func TestDroppedWatchResumesWithoutRelist(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("b", "1"))) // rv 2
		synctest.Wait()

		// The watch stayed open a while, so it is resumed at once; events
		// written while it is down are replayed from the last resourceVersion.
		time.Sleep(2 * time.Second)
		src.DropWatches()
		must(src.Add(cm("c", "1"))) // rv 3
		synctest.Wait()
		time.Sleep(2 * time.Second)
		src.DropWatches()
		synctest.Wait()
		// This watch is dropped at once (it delivered nothing, but that does
		// not matter): it is resumed after a backoff.
		src.DropWatches()
		must(src.Add(cm("d", "1"))) // rv 4
		synctest.Wait()
		if got := src.OpenWatches(); got != 0 {
			t.Errorf("open watches during backoff = %d, want 0", got)
		}
		time.Sleep(time.Second) // the first backoff is at most 500ms
		synctest.Wait()

		wantRequests(t, src, "list", "watch rv=1", "watch rv=2", "watch rv=3", "watch rv=3")
		ops, _, replaces := h.sink.snapshot()
		if replaces != 1 {
			t.Errorf("replaces = %d, want 1 (no relist)", replaces)
		}
		if want := []string{"replace 1 [ns/a]", "add ns/b 2", "add ns/c 3", "add ns/d 4"}; !slices.Equal(ops, want) {
			t.Errorf("ops = %q, want %q", ops, want)
		}
		h.converged()
	})
}

func TestBookmarksAdvanceResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		src.Bookmark()
		src.Bookmark()
		synctest.Wait()
		if got, want := h.r.LastSyncResourceVersion(), src.ResourceVersion(); got != want || want != "3" {
			t.Errorf("LastSyncResourceVersion = %q, want %q (3)", got, want)
		}
		time.Sleep(2 * time.Second) // a healthy watch: resumed at once
		src.DropWatches()
		synctest.Wait()
		reqs := src.Requests()
		if last := reqs[len(reqs)-1]; last.Verb != runtimetest.VerbWatch || last.Options.ResourceVersion != "3" {
			t.Errorf("rewatch = %s rv=%q, want watch from the bookmark's rv 3", last.Verb, last.Options.ResourceVersion)
		}
	})
}

func TestExpiredWatchRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("c", "1")))
		time.Sleep(time.Minute) // a watch that lasted a minute relists at once
		src.Compact()           // ERROR 410 on the open watch
		synctest.Wait()
		wantRequests(t, src, "list", "watch rv=2", "list", "watch rv=3")
		if _, _, n := h.sink.snapshot(); n != 2 {
			t.Errorf("replaces = %d, want 2", n)
		}
		if es := h.errs.all(); len(es) != 1 || !apierrors.IsResourceExpired(es[0]) {
			t.Errorf("reported errors = %v, want one 410 Expired", es)
		}
		if err := h.r.LastError(); err != nil {
			t.Errorf("LastError after the relist = %v, want nil", err)
		}
		h.converged()
	})
}

// A watch that resumes from a resourceVersion older than the server's event
// log gets 410 and relists; the relist sees deletions made meanwhile.
func TestTooOldResourceVersionRelists(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{EventLogSize: 2}, cm("a", "1"), cm("b", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		src.FailNext(runtimetest.VerbWatch, apierrors.NewServiceUnavailable("restarting"))
		src.DropWatches()
		synctest.Wait() // the Reflector is backing off after the 503
		must(src.Delete(cm("a", "")))
		for _, n := range []string{"c", "d", "e"} {
			must(src.Add(cm(n, "1")))
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		wantRequests(t, src, "list", "watch rv=2", "watch rv=2", "watch rv=2", "list", "watch rv=6")
		ops, _, _ := h.sink.snapshot()
		if want := "replace 6 [ns/b ns/c ns/d ns/e]"; ops[len(ops)-1] != want {
			t.Errorf("last op = %q, want %q", ops[len(ops)-1], want)
		}
		h.converged()
	})
}

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

// compactAfterFirstPage expires the continue token handed out with page 1.
type compactAfterFirstPage struct {
	*runtimetest.Source[obj]
	once sync.Once
}

func (c *compactAfterFirstPage) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
	res, err := c.Source.List(ctx, opts)
	c.once.Do(func() {
		c.Compact()
		must(c.Add(cm("late", "1")))
	})
	return res, err
}

func TestExpiredContinueFallsBackToFullList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"), cm("b", "1"), cm("c", "1"), cm("d", "1"), cm("e", "1"))
		h := start(t, &compactAfterFirstPage{Source: src}, src, reflector.Options{WatchList: &no, PageSize: 2})
		synctest.Wait()
		wantRequests(t, src, "list limit=2", "list limit=2 continue", "list", "watch rv=6")
		ops, _, _ := h.sink.snapshot()
		if want := []string{"replace 6 [ns/a ns/b ns/c ns/d ns/e ns/late]"}; !slices.Equal(ops, want) {
			t.Errorf("ops = %q, want %q (one Replace, no page-1 leftovers)", ops, want)
		}
		h.converged()
	})
}

func TestTooManyRequestsHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		src.FailNext(runtimetest.VerbList, apierrors.NewTooManyRequests("slow down", 7))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		if err := h.r.LastError(); !apierrors.IsTooManyRequests(err) {
			t.Errorf("LastError while waiting = %v, want 429", err)
		}
		src.FailNext(runtimetest.VerbWatch, apierrors.NewTooManyRequests("slow down", 3))
		time.Sleep(time.Minute)
		synctest.Wait()

		reqs := src.Requests()
		wantRequests(t, src, "list", "list", "watch rv=1", "watch rv=1")
		if len(reqs) != 4 {
			return
		}
		if d := reqs[1].Time.Sub(reqs[0].Time); d != 7*time.Second {
			t.Errorf("list retried after %v, want exactly the Retry-After of 7s", d)
		}
		if d := reqs[3].Time.Sub(reqs[2].Time); d != 3*time.Second {
			t.Errorf("watch retried after %v, want exactly the Retry-After of 3s", d)
		}
		h.converged()
	})
}

func TestForbiddenListKeepsRetrying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("rbac"))
		for range 5 {
			src.FailNext(runtimetest.VerbList, forbidden)
		}
		h := start(t, src, src, reflector.Options{WatchList: &no, Name: "configmaps"})
		synctest.Wait()
		err := h.r.LastError()
		if !apierrors.IsForbidden(err) {
			t.Fatalf("LastError = %v, want 403", err)
		}
		if want := "list configmaps: "; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("error %q does not name the resource", err)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n := len(h.errs.all()); n != 5 {
			t.Errorf("handler saw %d errors, want 5", n)
		}
		if err := h.r.LastError(); err != nil {
			t.Errorf("LastError after success = %v, want nil", err)
		}
		h.converged()
	})
}

// Events the Reflector cannot use are reported, never applied, and end the
// watch, which is resumed after a backoff step from the last resourceVersion
// applied.
func TestMalformedEventsAreReportedAndEndTheWatch(t *testing.T) {
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", ResourceVersion: "9"}, Data: map[string][]byte{"password": []byte("hunter2")}}
	for _, tc := range []struct {
		name string
		ev   watch.Event
	}{
		{"wrong type", watch.Event{Type: watch.Added, Object: secret}},
		{"nil object", watch.Event{Type: watch.Modified, Object: nil}},
		{"typed nil", watch.Event{Type: watch.Modified, Object: (*corev1.ConfigMap)(nil)}},
		{"bookmark without metadata", watch.Event{Type: watch.Bookmark, Object: &metav1.Status{}}},
		{"unknown type", watch.Event{Type: "WAT", Object: withRV(cm("z", ""), "5")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				h := start(t, src, src, reflector.Options{WatchList: &no})
				synctest.Wait()
				src.Inject(tc.ev)
				must(src.Add(cm("b", "1"))) // rv 2, replayed to the next watch
				time.Sleep(time.Minute)
				synctest.Wait()
				es := h.errs.all()
				if len(es) != 1 {
					t.Fatalf("reported %d errors, want 1: %v", len(es), es)
				}
				err := es[0]
				if !errors.Is(err, reflector.ErrMalformedEvent) {
					t.Errorf("error %v does not wrap ErrMalformedEvent", err)
				}
				if s := err.Error(); contains(s, "hunter2") {
					t.Errorf("error leaks object contents: %s", s)
				}
				if s := err.Error(); tc.ev.Object == secret && (!contains(s, "ns/s") || !contains(s, "*v1.Secret")) {
					t.Errorf("error %q should name the key and the type", s)
				}
				wantRequests(t, src, "list", "watch rv=1", "watch rv=1")
				if d := backoffBetween(src, 1, 2); d < 250*time.Millisecond || d > 500*time.Millisecond {
					t.Errorf("watched again after %v, want a first backoff step (250ms-500ms)", d)
				}
				h.converged()
			})
		})
	}
}

// backoffBetween returns the time between the i-th and j-th requests.
func backoffBetween(src *runtimetest.Source[obj], i, j int) time.Duration {
	reqs := src.Requests()
	if len(reqs) <= max(i, j) {
		return -1
	}
	return reqs[j].Time.Sub(reqs[i].Time)
}

func TestErrorEventWithoutStatus(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("b", "1")))
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, StringData: map[string]string{"password": "hunter2"}}
		src.Inject(watch.Event{Type: watch.Error, Object: secret})
		time.Sleep(time.Minute) // the Reflector backs off, then watches again
		synctest.Wait()
		src.Inject(watch.Event{Type: watch.Error, Object: (*metav1.Status)(nil)})
		time.Sleep(time.Minute)
		synctest.Wait()
		es := h.errs.all()
		if len(es) != 2 {
			t.Fatalf("reported %v, want 2 errors", es)
		}
		for _, err := range es {
			if !errors.Is(err, reflector.ErrMalformedEvent) || contains(err.Error(), "hunter2") {
				t.Errorf("error = %q, want ErrMalformedEvent without object contents", err)
			}
		}
		// The watch ended and was resumed from the last resourceVersion.
		wantRequests(t, src, "list", "watch rv=1", "watch rv=2", "watch rv=2")
		h.converged()
	})
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestSinkErrorsAreReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no, Name: "configmaps"})
		synctest.Wait()
		h.sink.mu.Lock()
		h.sink.failAdd = errors.New("transform failed")
		h.sink.mu.Unlock()
		must(src.Add(cm("b", "1")))
		synctest.Wait()
		es := h.errs.all()
		if len(es) != 1 || !contains(es[0].Error(), "configmaps: ADDED ns/b (resourceVersion 2): transform failed") {
			t.Errorf("errors = %v", es)
		}
		if got := h.r.LastSyncResourceVersion(); got != "2" {
			t.Errorf("LastSyncResourceVersion = %q, want 2 (the event was consumed)", got)
		}
	})
}

// Consecutive failures wait longer and longer, with jitter, never more than
// MaxBackoff.
func TestBackoffGrowsWithJitterAndIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		const failures = 10
		for range failures {
			src.FailNext(runtimetest.VerbList, apierrors.NewServiceUnavailable("down"))
		}
		start(t, src, src, reflector.Options{WatchList: &no})
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		reqs := src.Requests()
		if len(reqs) < failures+1 {
			t.Fatalf("%d requests, want at least %d", len(reqs), failures+1)
		}
		base := 500 * time.Millisecond
		distinct := map[time.Duration]bool{}
		for i := 1; i <= failures; i++ {
			d := reqs[i].Time.Sub(reqs[i-1].Time)
			if d < base/2 || d > base {
				t.Errorf("wait %d = %v, want in [%v, %v]", i, d, base/2, base)
			}
			distinct[d*1000/base] = true // wait relative to its base
			base = min(2*base, 2*time.Second)
		}
		if len(distinct) < 3 {
			t.Errorf("waits relative to their base took %d distinct values, want jitter", len(distinct))
		}
	})
}

func TestWatchTimeoutIsRenewed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		must(src.Add(cm("b", "1")))
		time.Sleep(25 * time.Minute) // at least two timeouts of [5m, 10m)
		synctest.Wait()
		reqs := src.Requests()
		if len(reqs) < 4 {
			t.Fatalf("requests %q, want at least 3 watches", verbs(reqs))
		}
		for i, r := range reqs[1:] {
			if r.Verb != runtimetest.VerbWatch || r.Options.ResourceVersion != "2" && i > 0 {
				t.Errorf("request %d = %s rv=%s, want a watch from 2", i+1, r.Verb, r.Options.ResourceVersion)
			}
			if i > 0 {
				gap := r.Time.Sub(reqs[i].Time)
				if s := time.Duration(*reqs[i].Options.TimeoutSeconds) * time.Second; gap != s {
					t.Errorf("watch %d lasted %v, want its timeout %v", i, gap, s)
				}
			}
		}
		if _, _, n := h.sink.snapshot(); n != 1 {
			t.Errorf("replaces = %d, want 1", n)
		}
	})
}

func TestCancelStopsEverything(t *testing.T) {
	for _, phase := range []string{"watching", "backing off", "streaming"} {
		t.Run(phase, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				var lw reflector.ListerWatcher[obj] = src
				opts := reflector.Options{WatchList: &no}
				switch phase {
				case "backing off":
					src.FailNext(runtimetest.VerbList, apierrors.NewServiceUnavailable("down"))
				case "streaming":
					opts.WatchList = nil
					// A WatchList stream that never ends its initial events.
					lw = scripted{src, func() watch.Interface { return watch.NewFake() }}
				}
				h := start(t, lw, src, opts)
				synctest.Wait()
				h.stop()
				synctest.Wait()
				if n := src.OpenWatches(); n != 0 {
					t.Errorf("open watches after Run returned = %d", n)
				}
				// synctest.Test fails if any goroutine of the bubble is left.
			})
		})
	}
}

func TestRunTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{})
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait() // the first Run is watching
		if err := h.r.Run(t.Context()); err == nil {
			t.Error("second Run returned nil, want an error")
		}
	})
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
