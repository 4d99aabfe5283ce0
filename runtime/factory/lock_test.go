package factory_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// No user code runs under the factory's lock: a per-type Informer func, a
// ListerWatcher func and a Transform may all call InformerFor (for another
// type) without deadlocking.
func TestCallbacksMayCallInformerFor(t *testing.T) {
	gadgets := WidgetType
	gadgets.Resource.Resource = "gadgets"
	for _, hook := range []string{"Informer", "ListerWatcherFunc", "Transform"} {
		t.Run(hook, func(t *testing.T) {
			var f *factory.Factory
			called := make(chan *informer.Informer[*lwt.Widget], 1)
			callback := func() {
				select {
				case called <- factory.InformerFor(f, gadgets):
				default:
				}
			}
			opts := factory.Options{}
			opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: gadgets, ListerWatcher: fakeLW{}})
			switch hook {
			case "Informer":
				opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: fakeLW{}, Informer: func(*informer.Options[*lwt.Widget]) { callback() }})
			case "ListerWatcherFunc":
				opts.Types = append(opts.Types, factory.PerNamespace(factory.TypeOptions[*lwt.Widget]{Type: WidgetType}, func(string) reflector.ListerWatcher[*lwt.Widget] {
					callback()
					return fakeLW{}
				}))
			case "Transform":
				a := widget("ns", "a", "", nil)
				a.ResourceVersion = "1"
				opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: fakeLW{items: []*lwt.Widget{a}}})
				opts.Transform = func(o runtime.Object) (runtime.Object, error) { callback(); return o, nil }
			}
			f = factory.New(nil, opts)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan *informer.Informer[*lwt.Widget], 1)
			go func() {
				inf := factory.InformerFor(f, WidgetType)
				f.Start(ctx)
				done <- inf
			}()
			var got *informer.Informer[*lwt.Widget]
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				// Shutdown would block on the held lock too: leave it.
				t.Fatal("InformerFor or Start deadlocked on a callback that calls InformerFor")
			}
			defer f.Shutdown()
			select {
			case got = <-called:
			case <-time.After(10 * time.Second):
				t.Fatal("the callback never ran")
			}
			if got == nil || got != factory.InformerFor(f, gadgets) {
				t.Error("the callback's InformerFor did not return the factory's shared gadgets informer")
			}
		})
	}
}

// Concurrent first uses of one type get the same informer.
func TestConcurrentInformerForSharesOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: fakeLW{}})
		f := factory.New(nil, opts)
		defer f.Shutdown()
		f.Start(t.Context())
		const n = 8
		got := make(chan *informer.Informer[*lwt.Widget], n)
		for range n {
			go func() { got <- factory.InformerFor(f, WidgetType) }()
		}
		first := <-got
		for range n - 1 {
			if inf := <-got; inf != first {
				t.Fatal("two different informers for one type")
			}
		}
	})
}
