package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
		s := r.Verb
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
		if last := reqs[len(reqs)-1]; last.Verb != "watch" || last.Options.ResourceVersion != "3" {
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
		src.FailNext("watch", apierrors.NewServiceUnavailable("restarting"))
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
			if r.Verb != "watch" || r.Options.ResourceVersion != "2" && i > 0 {
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
					src.FailNext("list", apierrors.NewServiceUnavailable("down"))
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
