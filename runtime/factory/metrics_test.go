package factory_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// listCount is a reflector.Metrics that counts LISTs.
type listCount struct {
	mu    sync.Mutex
	lists int
}

func (l *listCount) ListDone(time.Duration, error)  { l.mu.Lock(); l.lists++; l.mu.Unlock() }
func (l *listCount) WatchStarted(error)             {}
func (l *listCount) WatchDone(time.Duration, error) {}
func (l *listCount) Relist(string)                  {}
func (l *listCount) Event(watch.EventType)          {}
func (l *listCount) Synced(string)                  {}
func (l *listCount) Rejected(error)                 {}

type handlerCount struct{ regs []*informer.Registration }

func (h *handlerCount) Handler(r *informer.Registration) func(string) {
	h.regs = append(h.regs, r)
	return nil
}

func (h *handlerCount) Process() func(time.Duration, int, string) { return nil }

// Options.Metrics is asked once per informer, with its name, and its
// hooks observe that informer; Informers enumerates what was created.
func TestFactoryMetricsAndInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("ns", "a", "n1", nil))
		lc, hc := &listCount{}, &handlerCount{}
		var asked []string
		noWL := false
		opts := factory.Options{
			Reflector: reflector.Options{WatchList: &noWL},
			Metrics: func(name string) (reflector.Metrics, informer.Metrics) {
				asked = append(asked, name)
				return lc, hc
			},
		}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: src})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		if got := f.Informers(); len(got) != 0 {
			t.Fatalf("Informers() before any = %v", got)
		}
		inf := factory.InformerFor(f, WidgetType)
		factory.InformerFor(f, WidgetType)
		reg := must(inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{}, informer.HandlerOptions{}))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if len(asked) != 1 || asked[0] != widgetName {
			t.Errorf("Metrics asked for %v, want [%v] once", asked, widgetName)
		}
		lc.mu.Lock()
		if lc.lists != 1 {
			t.Errorf("reflector hook saw %d lists, want 1", lc.lists)
		}
		lc.mu.Unlock()
		if len(hc.regs) != 1 || hc.regs[0] != reg {
			t.Errorf("informer hook saw %v, want [%v]", hc.regs, reg)
		}
		all := f.Informers()
		if len(all) != 1 || all[0].Resource() != lwt.GVR {
			t.Fatalf("Informers() = %v, want the one of %v", all, lwt.GVR)
		}
		gi := all[0].Informer()
		if gi.Name() != inf.Name() || gi.Len() != 1 || len(gi.Handlers()) != 1 || !gi.HasSynced() {
			t.Errorf("Informers()[0]: name %q, len %d, %d handlers, synced %v; want %q, 1, 1, true", gi.Name(), gi.Len(), len(gi.Handlers()), gi.HasSynced(), inf.Name())
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// processCount is an informer.Metrics that observes the pop loop.
type processCount struct {
	handlerCount
	mu      sync.Mutex
	batches int
	rv      string
}

func (p *processCount) Process() func(time.Duration, int, string) {
	return func(_ time.Duration, _ int, rv string) {
		p.mu.Lock()
		p.batches++
		p.rv = rv
		p.mu.Unlock()
	}
}

// The informer.Metrics Options.Metrics returns observes the pop loop when its
// Process returns an observer, also after a per-type Informer func edited
// the options (which carries it through the typed options).
func TestFactoryProcessMetrics(t *testing.T) {
	for _, edit := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "edited"}[edit], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("ns", "a", "n1", nil))
				pc := &processCount{}
				opts := factory.Options{
					Metrics: func(string) (reflector.Metrics, informer.Metrics) { return nil, pc },
				}
				to := factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: src}
				if edit {
					to.Informer = func(o *informer.Options[*lwt.Widget]) { o.ResyncPeriod = time.Hour }
				}
				opts.Types = append(opts.Types, to)
				f := factory.New(nil, opts)
				defer f.Shutdown()
				factory.InformerFor(f, WidgetType)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				f.Start(ctx)
				if err := f.WaitForCacheSync(ctx); err != nil {
					t.Fatal(err)
				}
				must(src.Add(widget("ns", "b", "n1", nil)))
				synctest.Wait()
				pc.mu.Lock()
				defer pc.mu.Unlock()
				if pc.batches < 2 || pc.rv != src.ResourceVersion() {
					t.Errorf("Processed called %d times, last at %q; want the LIST's and the event's, at %q", pc.batches, pc.rv, src.ResourceVersion())
				}
			})
		})
	}
}
