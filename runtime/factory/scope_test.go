package factory_test

import (
	"testing"
	"testing/synctest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	lwt "github.com/informer-gen/informer-gen/runtime/listwatch/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// The factory tells each informer its type's scope, so an object whose
// namespace contradicts it (a server bug, or a misrouted object) is not
// cached.
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
			src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: lwt.GVR.GroupResource()},
				widget(tc.good, "good", "", nil), widget(tc.bad, "bad", "", nil))
			opts := factory.Options{}
			factory.SetListerWatcher(&opts, tc.typ, src)
			f := factory.New(nil, opts)
			inf := factory.InformerFor(f, tc.typ)
			f.Start(t.Context())
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
