package reflector_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/relist"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// tweaked sets every request's label selector from sel, read at each call,
// as a ListerWatcher with a Tweak does; onList runs inside each LIST.
type tweaked struct {
	src    *runtimetest.Source[obj]
	mu     sync.Mutex
	sel    string
	onList func(n int)
	lists  int
}

func (l *tweaked) set(sel string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sel = sel
}

func (l *tweaked) tweak(opts *metav1.ListOptions) {
	l.mu.Lock()
	defer l.mu.Unlock()
	opts.LabelSelector = l.sel
}

func (l *tweaked) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
	l.tweak(&opts)
	l.mu.Lock()
	l.lists++
	n, f := l.lists, l.onList
	l.mu.Unlock()
	if f != nil {
		f(n)
	}
	return l.src.List(ctx, opts)
}

func (l *tweaked) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	l.tweak(&opts)
	return l.src.Watch(ctx, opts)
}

func selectors(reqs []runtimetest.Request) []string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Verb+" "+r.Options.LabelSelector)
	}
	return out
}

// Fire stops the open watch and relists with the options as they are now;
// the watch then resumes from the new list, with the new options.
func TestRelistTriggerRelistsWithNewOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &tweaked{src: src, sel: "!old"}
		trig := relist.NewTrigger()
		m := &recMetrics{}
		h := start(t, lw, src, reflector.Options{WatchList: &no, Relist: trig, Metrics: m})
		synctest.Wait()
		if got := src.OpenWatches(); got != 1 {
			t.Fatalf("open watches = %d, want 1", got)
		}
		lw.set("!new")
		trig.Fire()
		trig.Fire() // a second Fire before the Reflector ran: one relist
		synctest.Wait()
		if got, want := selectors(src.Requests()), []string{"list !old", "watch !old", "list !new", "watch !new"}; !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
		if got := src.OpenWatches(); got != 1 {
			t.Errorf("open watches after the relist = %d, want 1 (the old one stopped)", got)
		}
		if _, _, n := h.sink.snapshot(); n != 2 {
			t.Errorf("replaces = %d, want 2", n)
		}
		if calls, _ := m.get(); !slices.Contains(calls, "relist requested") {
			t.Errorf("metrics = %q, want a relist requested", calls)
		}
		// Events go on through the new watch.
		must(src.Add(cm("b", "1")))
		synctest.Wait()
		h.converged()
		if es := h.errs.all(); len(es) != 0 {
			t.Errorf("errors = %v, want none (a requested relist is no error)", es)
		}
	})
}

// A Fire while the LIST is in flight is not lost: that list may have read
// the old options, so the Reflector lists again before it watches.
func TestRelistTriggerDuringList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		trig := relist.NewTrigger()
		lw := &tweaked{src: src, sel: "!old"}
		lw.onList = func(n int) {
			if n == 1 {
				lw.set("!new")
				trig.Fire()
			}
		}
		start(t, lw, src, reflector.Options{WatchList: &no, Relist: trig})
		synctest.Wait()
		if got, want := selectors(src.Requests()), []string{"list !old", "list !new", "watch !new"}; !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := len(src.Requests()); got != 3 {
			t.Errorf("requests after a quiet minute = %d, want still 3", got)
		}
	})
}

// With WatchList, Fire during the initial stream's LIST-equivalent works the
// same: the streaming watch is dropped and the sync repeated.
func TestRelistTriggerWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		lw := &tweaked{src: src, sel: "!old"}
		trig := relist.NewTrigger()
		h := start(t, lw, src, reflector.Options{WatchList: &yes, Relist: trig})
		synctest.Wait()
		lw.set("!new")
		trig.Fire()
		synctest.Wait()
		if got, want := selectors(src.Requests()), []string{"watch !old", "watch !new"}; !slices.Equal(got, want) {
			t.Errorf("requests = %q, want %q", got, want)
		}
		if got := src.OpenWatches(); got != 1 {
			t.Errorf("open watches = %d, want 1", got)
		}
		if _, _, n := h.sink.snapshot(); n != 2 {
			t.Errorf("replaces = %d, want 2", n)
		}
	})
}
