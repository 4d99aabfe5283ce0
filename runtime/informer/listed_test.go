package informer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// firingSource fires trig during its first list (a LIST, or a WatchList's
// watch), as a shard whose selector changes while a list is in flight does.
// Objects named in hide are left out of its lists (as a narrower selector
// would).
type firingSource struct {
	*runtimetest.Source[CM]
	trig  *relist.Trigger
	fired sync.Once
	hide  sync.Map
}

func (f *firingSource) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[CM], error) {
	f.fired.Do(func() { f.trig.Fire() })
	res, err := f.Source.List(ctx, opts)
	if err == nil {
		res.Items = slices.DeleteFunc(res.Items, func(o CM) bool { _, h := f.hide.Load(o.Name); return h })
	}
	return res, err
}

func (f *firingSource) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		f.fired.Do(func() { f.trig.Fire() })
	}
	return f.Source.Watch(ctx, opts)
}

// markLog is a handler that is a relist.Listener: it logs every call.
type markLog struct {
	mu  sync.Mutex
	log []string
}

func (m *markLog) add(s string) { m.mu.Lock(); m.log = append(m.log, s); m.mu.Unlock() }
func (m *markLog) OnAdd(o CM, initial bool) {
	m.add(fmt.Sprintf("add %s/%s", o.Namespace, o.Name))
}
func (m *markLog) OnUpdate(_, o CM) { m.add(fmt.Sprintf("update %s/%s", o.Namespace, o.Name)) }
func (m *markLog) OnDelete(o CM, _ bool) {
	m.add(fmt.Sprintf("delete %s/%s", o.Namespace, o.Name))
}
func (m *markLog) Listed(mk relist.Mark) { m.add(fmt.Sprintf("listed %d %q", mk.Gen, mk.Source)) }
func (m *markLog) take() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.log
	m.log = nil
	return l
}

// A Reflector with a relist trigger tells the informer's handlers, after
// the events of each sync, the trigger generation the sync began at: a sync
// during which the trigger fired is marked with the older generation and
// followed by another, marked with the newer. A handler added later gets
// the last mark after the cached objects; plain handlers get nothing extra.
func TestListedMarksFollowTheirSync(t *testing.T) {
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprintf("watchList=%v", watchList), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				trig := relist.NewTrigger()
				src := &firingSource{Source: runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("a", "o1", "0"), cm("a", "o2", "0")), trig: trig}
				inf := informer.New[CM](src, informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &watchList, Relist: trig}})
				log := &markLog{}
				if _, err := inf.AddHandler(log, informer.HandlerOptions{}); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				defer func() { cancel(); <-done }()
				synctest.Wait()

				want := []string{"add a/o1", "add a/o2", `listed 0 ""`, "update a/o1", "update a/o2", `listed 1 ""`}
				if got := log.take(); !slices.Equal(got, want) {
					t.Fatalf("calls %q, want %q", got, want)
				}
				// A relist that no longer finds o2: its tombstone comes before
				// the mark. (WatchList streams from the source itself, so the
				// hidden object is only left out of LISTs.)
				if !watchList {
					src.hide.Store("o2", true)
					trig.Fire()
					synctest.Wait()
					want := []string{"delete a/o2", "update a/o1", `listed 2 ""`}
					if got := log.take(); !slices.Equal(got, want) {
						t.Fatalf("after a relist without o2: calls %q, want %q", got, want)
					}
				} else {
					trig.Fire()
					synctest.Wait()
					want := []string{"update a/o1", "update a/o2", `listed 2 ""`}
					if got := log.take(); !slices.Equal(got, want) {
						t.Fatalf("after a relist: calls %q, want %q", got, want)
					}
				}
				late := &markLog{}
				if _, err := inf.AddHandler(late, informer.HandlerOptions{}); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				got := late.take()
				if len(got) == 0 || got[len(got)-1] != `listed 2 ""` || slices.Contains(got[:len(got)-1], `listed 2 ""`) {
					t.Fatalf("late handler's calls %q, want the cached objects' adds, then the last mark once", got)
				}
				if n := len(inf.Indexer().List()); len(got) != n+1 {
					t.Fatalf("late handler's calls %q, want %d adds and the mark", got, n)
				}
			})
		})
	}
}
