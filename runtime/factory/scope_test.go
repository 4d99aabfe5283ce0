package factory_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// The factory tells each informer its type's scope, so an object whose
// namespace contradicts it (a server bug, or a misrouted object) is never
// cached: a LIST holding one is refused (the informer does not sync and says
// why) until the server stops sending it.
func TestFactoryInformersKnowTheirScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clusterType := WidgetType
		clusterType.Namespaced = false
		for _, tc := range []struct {
			name      string
			typ       factory.Type[*lwt.Widget]
			good, bad string // namespaces
		}{
			{"namespaced", WidgetType, "ns", ""},
			{"cluster-scoped", clusterType, "", "ns"},
		} {
			bad := widget(tc.bad, "bad", "", nil)
			src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()},
				widget(tc.good, "good", "", nil), bad)
			opts := factory.Options{}
			opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: tc.typ, ListerWatcher: src})
			f := factory.New(nil, opts)
			inf := factory.InformerFor(f, tc.typ)
			f.Start(t.Context())
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			err := f.WaitForCacheSync(ctx)
			cancel()
			if !errors.Is(err, reflector.ErrInvalidObject) {
				t.Errorf("%s: WaitForCacheSync with a misplaced object listed = %v, want ErrInvalidObject", tc.name, err)
			}
			if _, err := src.Delete(bad); err != nil {
				t.Fatal(err)
			}
			if err := f.WaitForCacheSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if keys := inf.Indexer().ListKeys(); len(keys) != 1 || keys[0] != store.Key(widget(tc.good, "good", "", nil)) {
				t.Errorf("%s: cached %v, want only the object with a matching namespace", tc.name, keys)
			}
			f.Shutdown()
		}
	})
}

// A standalone informer (NewInformer) knows its type's scope too.
func TestNewInformerKnowsItsScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clusterType := WidgetType
		clusterType.Namespaced = false
		for _, tc := range []struct {
			name      string
			typ       factory.Type[*lwt.Widget]
			good, bad string // namespaces
		}{
			{"namespaced", WidgetType, "ns", ""},
			{"cluster-scoped", clusterType, "", "ns"},
		} {
			bad := widget(tc.bad, "bad", "", nil)
			src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()},
				widget(tc.good, "good", "", nil), bad)
			inf := factory.NewInformer(tc.typ, src, informer.Options[*lwt.Widget]{})
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error)
			go func() { done <- inf.Run(ctx) }()
			synctest.Wait() // the first LIST has been refused: the Reflector backs off
			if err := inf.LastError(); !errors.Is(err, reflector.ErrInvalidObject) {
				t.Errorf("%s: LastError with a misplaced object listed = %v, want ErrInvalidObject", tc.name, err)
			}
			if _, err := src.Delete(bad); err != nil {
				t.Fatal(err)
			}
			<-inf.Synced()
			if keys := inf.Indexer().ListKeys(); len(keys) != 1 || keys[0] != store.Key(widget(tc.good, "good", "", nil)) {
				t.Errorf("%s: cached %v, want only the object with a matching namespace", tc.name, keys)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		}
	})
}
