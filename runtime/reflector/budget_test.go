package reflector_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/budget"
	"github.com/informer-gen/informer-gen/runtime/internal/settings"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// downLW is a Source behind a switch: while down, every LIST and WATCH fails
// with 503. It records when each request came.
type downLW struct {
	*runtimetest.Source[obj]
	down atomic.Bool

	mu    sync.Mutex
	times []time.Time
}

func (d *downLW) record() error {
	d.mu.Lock()
	d.times = append(d.times, time.Now())
	d.mu.Unlock()
	if d.down.Load() {
		return apierrors.NewServiceUnavailable("down")
	}
	return nil
}

func (d *downLW) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
	if err := d.record(); err != nil {
		return nil, err
	}
	return d.Source.List(ctx, opts)
}

func (d *downLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if err := d.record(); err != nil {
		return nil, err
	}
	return d.Source.Watch(ctx, opts)
}

func (d *downLW) requests() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.times)
}

// Reflectors whose server is down: with a Budget each (as two informers
// have), two make about one request a second each; sharing one Budget (as
// the namespaces of one informer do), at most one a second between them,
// and none waits more than max(2s, one second per Reflector) between its
// retries, so all are synced within that bound of the server's recovery.
func TestBudgetIsSharedByItsReflectors(t *testing.T) {
	for _, tc := range []struct {
		shared bool
		n      int
	}{{false, 2}, {true, 2}, {true, 3}} {
		shared := tc.shared
		bound := max(2*time.Second, time.Duration(tc.n)*time.Second)
		name := fmt.Sprintf("%d reflectors, %s", tc.n, map[bool]string{false: "a budget each", true: "one budget"}[shared])
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var b *budget.Budget
				if shared {
					b = budget.New(0)
				}
				var lws []*downLW
				var hs []*harness
				for range tc.n {
					src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
					lw := &downLW{Source: src}
					lw.down.Store(true)
					lws = append(lws, lw)
					hs = append(hs, start(t, lw, src, withBudget(reflector.Options{WatchList: &no}, b)))
				}
				began := time.Now()
				time.Sleep(time.Minute)
				for _, lw := range lws {
					lw.down.Store(false)
				}
				recovered := time.Now()
				time.Sleep(bound)
				synctest.Wait()

				from := began.Add(5 * time.Second)
				n := 0
				for i, lw := range lws {
					reqs := lw.requests()
					var last time.Time
					for _, at := range reqs {
						if !at.Before(from) && at.Before(recovered) {
							n++
						}
						if !last.IsZero() && at.Sub(last) > bound {
							t.Errorf("reflector %d waited %v between requests at %v, want at most %v", i, at.Sub(last), last.Sub(began), bound)
						}
						last = at
					}
					if got := hs[i].r.LastSyncResourceVersion(); got == "" {
						t.Errorf("reflector %d not synced %v after the server recovered (LastError %v)", i, bound, hs[i].r.LastError())
					}
				}
				window := recovered.Sub(from)
				rate := float64(n) / window.Seconds()
				t.Logf("%s: %d requests in %v (%.2f/s)", name, n, window, rate)
				switch {
				case shared && rate > 1:
					t.Errorf("%d requests in %v (%.2f/s) sharing one budget, want at most one a second", n, window, rate)
				case !shared && rate <= 1:
					t.Errorf("%d requests in %v (%.2f/s) with a budget each, want more than one a second (each Reflector makes about one)", n, window, rate)
				}
			})
		})
	}
}

// A healthy Reflector sharing a Budget with one that keeps failing is not
// held back by it: its first sync goes at once, and its watch, when the
// server ends it after more than a minute, is resumed at once.
func TestBudgetDoesNotDelayAHealthyReflector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := budget.New(0)
		bad := &downLW{Source: runtimetest.NewSource[obj](runtimetest.SourceOptions{})}
		bad.down.Store(true)
		start(t, bad, bad.Source, withBudget(reflector.Options{WatchList: &no}, b))
		time.Sleep(10 * time.Second) // the failing one uses every turn by now

		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		good := &downLW{Source: src}
		began := time.Now()
		h := start(t, good, src, withBudget(reflector.Options{WatchList: &no}, b))
		synctest.Wait()
		if reqs := good.requests(); len(reqs) != 2 || reqs[1] != began {
			t.Fatalf("healthy reflector's first requests at %v, want a LIST and a WATCH at once", reqs)
		}
		time.Sleep(90 * time.Second)
		dropped := time.Now()
		src.DropWatches()
		synctest.Wait()
		reqs := good.requests()
		if len(reqs) != 3 || reqs[2] != dropped {
			t.Errorf("healthy reflector's requests at %v after its watch ended at %v, want it resumed at once", reqs, dropped)
		}
		must(src.Add(cm("b", "1")))
		synctest.Wait()
		h.converged()
	})
}

// withBudget is opts with the request budget b, as an informer gives its
// Reflectors one.
func withBudget(opts reflector.Options, b *budget.Budget) reflector.Options {
	return settings.WithReflector(opts, settings.Reflector{Budget: b}).(reflector.Options)
}
