package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

type CM = *corev1.ConfigMap

func cm(ns, name string, data ...string) CM {
	o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if len(data) > 0 {
		o.Data = map[string]string{"v": data[0]}
	}
	return o
}

var resource = schema.GroupResource{Resource: "configmaps"}

// running is an informer started by run; stop cancels it and waits for Run.
type running struct {
	inf    *informer.Informer[CM]
	cancel context.CancelFunc
	done   chan error
}

func run(t *testing.T, inf *informer.Informer[CM]) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), testr.New(t)))
	r := &running{inf: inf, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- inf.Run(ctx) }()
	t.Cleanup(func() { r.stop(t) })
	return r
}

func (r *running) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	if err := <-r.done; err != nil {
		t.Errorf("Run returned %v", err)
	}
}

func newInformer(src *runtimetest.Source[CM], opts informer.Options[CM]) *informer.Informer[CM] {
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = "configmaps.v1"
	}
	return informer.New[CM](src, opts)
}

func addRecorder(t *testing.T, inf *informer.Informer[CM], opts informer.HandlerOptions) (*runtimetest.Recorder[CM], *informer.Registration) {
	t.Helper()
	rec := new(runtimetest.Recorder[CM])
	reg, err := inf.AddHandler(rec, opts)
	if err != nil {
		t.Fatalf("AddHandler: %v", err)
	}
	return rec, reg
}

// waitSame waits until rec holds exactly src's objects.
func waitSame(t *testing.T, rec *runtimetest.Recorder[CM], src *runtimetest.Source[CM]) {
	t.Helper()
	waitUnion(t, rec, src)
}

func waitSynced(t *testing.T, s ...informer.Syncable) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := informer.WaitForCacheSync(ctx, s...); err != nil {
		t.Fatal(err)
	}
}

func must[V any](v V, err error) V {
	if err != nil {
		panic(err)
	}
	return v
}

// evs summarizes events after the first skip as "type key" strings.
func evs(rec *runtimetest.Recorder[CM], skip int) []string {
	var out []string
	for _, e := range rec.Events()[skip:] {
		s := fmt.Sprintf("%s %s@%s", e.Type, e.Key, e.Obj.ResourceVersion)
		if e.FinalStateUnknown {
			s += " fsu"
		}
		out = append(out, s)
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestInitialListThenEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"), cm("ns", "b"), cm("", "c"))
		inf := newInformer(src, informer.Options[CM]{})
		rec, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, inf, reg)
		waitSame(t, rec, src)
		for _, e := range rec.Events() {
			if e.Type != "add" || !e.InInitialList {
				t.Fatalf("initial list delivered %s %s (initial=%v), want adds in the initial list", e.Type, e.Key, e.InInitialList)
			}
		}
		if got := inf.Indexer().Len(); got != 3 {
			t.Fatalf("cache holds %d objects, want 3", got)
		}
		if rv := inf.LastSyncResourceVersion(); rv != src.ResourceVersion() {
			t.Fatalf("LastSyncResourceVersion = %q, want %q", rv, src.ResourceVersion())
		}

		n := len(rec.Events())
		must(src.Add(cm("ns", "d")))
		must(src.Update(cm("ns", "a", "2")))
		must(src.Delete(cm("ns", "b")))
		waitSame(t, rec, src)
		equal(t, "events after sync", evs(rec, n), []string{"add ns/d@4", "update ns/a@5", "delete ns/b@6"})
		if e := rec.Events()[n]; e.InInitialList {
			t.Fatal("an add after sync has isInInitialList set")
		}
		if e := rec.Events()[n+1]; e.Old.ResourceVersion != "1" {
			t.Fatalf("update of ns/a has old resourceVersion %q, want 1", e.Old.ResourceVersion)
		}
		if _, ok := inf.Indexer().Get("ns/b"); ok {
			t.Fatal("deleted object still cached")
		}
	})
}

func TestInOrderDeliveryAcrossKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"), cm("ns", "b"))
		inf := newInformer(src, informer.Options[CM]{})
		rec, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, reg)
		n := len(rec.Events())
		must(src.Update(cm("ns", "a", "1")))
		must(src.Update(cm("ns", "b", "1")))
		must(src.Update(cm("ns", "a", "2")))
		must(src.Add(cm("ns", "c")))
		must(src.Delete(cm("ns", "b")))
		must(src.Update(cm("ns", "a", "3")))
		waitSame(t, rec, src)
		equal(t, "events", evs(rec, n), []string{
			"update ns/a@3", "update ns/b@4", "update ns/a@5", "add ns/c@6", "delete ns/b@7", "update ns/a@8",
		})
	})
}

// TestRelistAfterExpiredWatch: while the watch is down, b is deleted, a
// changes and d appears; the resourceVersion is compacted, so the Reflector
// relists. The handler gets a tombstone for b, an update for a and an add
// for d, and the cache equals the source.
func TestRelistAfterExpiredWatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"), cm("ns", "b"), cm("ns", "c"))
		inf := newInformer(src, informer.Options[CM]{})
		rec, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, reg)
		n := len(rec.Events())

		// Break the watch, and make the next watch fail so the Reflector backs off.
		src.FailNext("watch", apierrors.NewServiceUnavailable("down"))
		src.DropWatches()
		synctest.Wait() // the Reflector is now waiting out its backoff
		must(src.Update(cm("ns", "a", "2")))
		must(src.Delete(cm("ns", "b")))
		must(src.Add(cm("ns", "d")))
		src.Compact()

		waitSame(t, rec, src)
		equal(t, "events after relist", evs(rec, n), []string{"delete ns/b@2 fsu", "update ns/a@4", "update ns/c@3", "add ns/d@6"})
		got := map[string]string{}
		for _, o := range inf.Indexer().List() {
			got[store.Key(o)] = o.ResourceVersion
		}
		want := map[string]string{}
		for k, o := range src.Snapshot() {
			want[k] = o.ResourceVersion
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("cache = %v, want %v", got, want)
		}
	})
}

// TestCancelStopsDeliveryPromptly: when ctx ends, a slow handler with a
// large backlog finishes the call it is in and gets no other; Run returns as
// soon as that call has (not after the backlog), with the watch stopped.
func TestCancelStopsDeliveryPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		inf := newInformer(src, informer.Options[CM]{})
		var mu sync.Mutex
		var starts []time.Time
		slowReg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			UpdateFunc: func(_, o CM) {
				mu.Lock()
				starts = append(starts, time.Now())
				mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			},
		}, informer.HandlerOptions{}))
		fast, _ := addRecorder(t, inf, informer.HandlerOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		waitSynced(t, slowReg)
		const backlog = 1000
		for i := range backlog {
			must(src.Update(cm("ns", "a", fmt.Sprint(i))))
		}
		waitSame(t, fast, src)                        // every update is in the slow handler's buffer
		time.Sleep(time.Second + 10*time.Millisecond) // in the middle of a call
		cancelled := time.Now()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		if d := time.Since(cancelled); d > 20*time.Millisecond {
			t.Errorf("Run returned %v after cancel, want at most the 20ms of the call in progress", d)
		}
		mu.Lock()
		defer mu.Unlock()
		for n, at := range starts {
			if !at.Before(cancelled) {
				t.Errorf("call %d started %v after cancel", n, at.Sub(cancelled))
			}
		}
		if len(starts) > 60 {
			t.Errorf("%d of %d buffered updates delivered, want about 51 (those before cancel)", len(starts), backlog)
		}
		if src.OpenWatches() != 0 {
			t.Error("the watch is still open after Run returned")
		}
		select {
		case <-slowReg.Stopped():
		default:
			t.Fatal("handler goroutine not stopped when Run returned")
		}
		if _, err := inf.AddHandler(fast, informer.HandlerOptions{}); err == nil {
			t.Fatal("AddHandler after Run returned: no error")
		}
		if err := inf.Run(context.Background()); err == nil {
			t.Fatal("second Run: no error")
		}
	})
}

// TestCancelWaitsForTheCallInProgress: Run returns only once a handler call
// that was running at cancel has returned, and no call starts after cancel.
func TestCancelWaitsForTheCallInProgress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		inf := newInformer(src, informer.Options[CM]{})
		release := make(chan struct{})
		var calls atomic.Int32
		reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			UpdateFunc: func(_, _ CM) { calls.Add(1); <-release },
		}, informer.HandlerOptions{}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		waitSynced(t, reg)
		for i := range 5 {
			must(src.Update(cm("ns", "a", fmt.Sprint(i))))
		}
		synctest.Wait() // the first update's call is blocked
		cancel()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("Run returned while a handler call was in progress")
		default:
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		if n := calls.Load(); n != 1 {
			t.Errorf("%d handler calls, want 1 (none after cancel)", n)
		}
	})
}

func TestWaitForCacheSyncReturnsLastError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		forbidden := apierrors.NewForbidden(resource, "", errors.New("no RBAC"))
		for range 1000 {
			src.FailNext("list", forbidden)
			src.FailNext("watch", forbidden)
		}
		noWL := false
		inf := newInformer(src, informer.Options[CM]{Reflector: reflector.Options{WatchList: &noWL}})
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		err := informer.WaitForCacheSync(ctx, inf, reg)
		if err == nil {
			t.Fatal("WaitForCacheSync = nil on a forbidden LIST")
		}
		if !apierrors.IsForbidden(err) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("WaitForCacheSync = %v, want one wrapping the 403 and the deadline", err)
		}
		var ns *informer.NotSyncedError
		if !errors.As(err, &ns) || strings.Join(ns.Names, ",") != "configmaps.v1,"+reg.Name() {
			t.Fatalf("WaitForCacheSync = %v, want a NotSyncedError naming the informer and the registration", err)
		}
		if !strings.Contains(err.Error(), "configmaps.v1") || !strings.Contains(err.Error(), "no RBAC") {
			t.Fatalf("WaitForCacheSync message %q does not name the informer and the cause", err)
		}
		t.Log(err)
		if inf.HasSynced() || inf.LastError() == nil {
			t.Fatalf("HasSynced=%v LastError=%v", inf.HasSynced(), inf.LastError())
		}
	})
}

func TestTransformAndCompact(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Each object gets its own copy of the label value, so only
		// interning can make the cached objects share it.
		obj := func(name string) CM {
			o := cm("ns", name)
			o.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
			o.Labels = map[string]string{"app": strings.Clone("web")}
			return o
		}
		for _, tc := range []struct{ keep, intern bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, obj("a"), obj("b"))
			inf := newInformer(src, informer.Options[CM]{
				KeepManagedFields: tc.keep,
				InternStrings:     tc.intern,
				Transform: func(o CM) (CM, error) {
					o.Labels["transformed"] = "true"
					return o, nil
				},
			})
			r := run(t, inf)
			waitSynced(t, inf)
			a, okA := inf.Indexer().Get("ns/a")
			b, okB := inf.Indexer().Get("ns/b")
			if !okA || !okB {
				t.Fatal("ns/a or ns/b not cached")
			}
			if a.Labels["transformed"] != "true" {
				t.Fatal("Options.Transform not applied before storing")
			}
			if got := len(a.ManagedFields) > 0; got != tc.keep {
				t.Errorf("%+v: managedFields kept = %v", tc, got)
			}
			shared := unsafe.StringData(a.Labels["app"]) == unsafe.StringData(b.Labels["app"])
			if shared != tc.intern {
				t.Errorf("%+v: label values shared between objects = %v", tc, shared)
			}
			r.stop(t)
		}
	})
}

func TestAddIndexersAfterStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a", "x"), cm("ns", "b", "y"), cm("ns", "c", "x"))
		inf := newInformer(src, informer.Options[CM]{})
		run(t, inf)
		waitSynced(t, inf)
		err := inf.AddIndexers(store.Indexers[CM]{"v": func(o CM) ([]string, error) { return store.Values(o.Data["v"]), nil }})
		if err != nil {
			t.Fatal(err)
		}
		got, err := inf.Indexer().IndexKeys("v", "x")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != "ns/a,ns/c" && strings.Join(got, ",") != "ns/c,ns/a" {
			t.Fatalf("IndexKeys(v, x) = %v, want ns/a and ns/c", got)
		}
	})
}

// TestCancelExitsPromptly: with the Reflector in backoff after a failing
// LIST and handlers idle, cancelling ctx makes Run return without any
// (fake) time passing, and every goroutine is gone (goleak checks at exit).
func TestCancelExitsPromptly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		for range 10 {
			src.FailNext("list", apierrors.NewInternalError(errors.New("etcd down")))
			src.FailNext("watch", apierrors.NewInternalError(errors.New("etcd down")))
		}
		var watchErrs atomic.Int32
		inf := newInformer(src, informer.Options[CM]{Reflector: reflector.Options{
			WatchErrorHandler: func(context.Context, error) { watchErrs.Add(1) },
		}})
		addRecorder(t, inf, informer.HandlerOptions{ResyncPeriod: time.Minute})
		addRecorder(t, inf, informer.HandlerOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		synctest.Wait()
		if watchErrs.Load() == 0 {
			t.Fatal("Options.Reflector.WatchErrorHandler not called on a failing LIST")
		}
		if inf.LastError() == nil {
			t.Fatal("LastError nil while LIST fails")
		}
		cancelled := time.Now()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		if d := time.Since(cancelled); d != 0 {
			t.Fatalf("Run took %v of fake time to return after cancel", d)
		}
	})
}
