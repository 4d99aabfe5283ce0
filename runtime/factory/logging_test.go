package factory_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// logLines is a logr sink (funcr, every verbosity) that keeps each line's
// key/value pairs, WithValues included.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) context(ctx context.Context) context.Context {
	return klog.NewContext(ctx, funcr.New(func(prefix, args string) {
		l.mu.Lock()
		l.lines = append(l.lines, args)
		l.mu.Unlock()
	}, funcr.Options{Verbosity: 10}))
}

func (l *logLines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Under a factory, every line of the factory, the informer and its
// Reflectors names the resource once, under "resource", and no line uses
// the old keys "informer" or "reflector"; each namespace's Reflector adds
// "namespace" only.
func TestLogKeysNotRepeated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs logLines
		srcs := map[string]*runtimetest.Source[*lwt.Widget]{
			"a": runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("a", "x", "n1", nil)),
			"b": runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()}, widget("b", "y", "n1", nil)),
		}
		opts := factory.Options{Types: []factory.TypeOverride{
			factory.PerNamespace(factory.TypeOptions[*lwt.Widget]{Type: WidgetType, Namespaces: []string{"a", "b"}},
				func(ns string) reflector.ListerWatcher[*lwt.Widget] { return srcs[ns] }),
		}}
		f := factory.New(nil, opts)
		inf := factory.InformerFor(f, WidgetType)
		// A handler that panics is logged from its goroutine, under "handler".
		if _, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{AddFunc: func(*lwt.Widget, bool) { panic("handler failed") }}, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(logs.context(t.Context()), time.Minute)
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		cancel()
		f.Shutdown()

		lines := logs.all()
		if len(lines) == 0 {
			t.Fatal("nothing logged at V(10)")
		}
		var perNamespace, perHandler int
		for _, line := range lines {
			if strings.Contains(line, `"handler"=`) {
				perHandler++
				if !strings.Contains(line, `"handler"=1`) {
					t.Errorf("the handler is not named by its number alone in %s", line)
				}
			}
			if n := strings.Count(line, `"resource"=`); n != 1 {
				t.Errorf("%d resource keys in %s", n, line)
			}
			if strings.Contains(line, `"informer"=`) || strings.Contains(line, `"reflector"=`) {
				t.Errorf("old key in %s", line)
			}
			if strings.Count(line, `"namespace"=`) > 1 {
				t.Errorf("namespace repeated in %s", line)
			}
			if strings.Contains(line, `"namespace"=`) {
				perNamespace++
			}
		}
		if perHandler == 0 {
			t.Errorf("no line of the panicking handler: %q", lines)
		}
		if perNamespace == 0 {
			t.Errorf("no Reflector line names its namespace: %q", lines)
		}
	})
}
