package factory_test

import (
	"maps"
	"slices"
	"sort"
	"sync"
	"testing"
	"testing/synctest"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// A type limited to two namespaces over REST: one cache holding exactly
// those namespaces, one LIST+WATCH per namespace, later events of both
// namespaces arrive, and the Lister of an unwatched namespace finds nothing.
func TestTypeNamespacesOverREST(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("team-a", "a", "n1", nil))
	srv.Add(widget("team-b", "b", "n1", nil))
	srv.Add(widget("team-c", "c", "n1", nil))
	ctx := deadline(t)
	f := factory.New(srv.Config(), factory.Options{
		HTTPClient: srv.HTTPClient(),
		Namespaces: []string{"ignored-by-override"},
		Types: []factory.TypeOverride{
			factory.TypeOptions[*lwt.Widget]{Type: WidgetType, Namespaces: []string{"team-c", "team-a", "team-c"}},
		},
	})
	defer f.Shutdown()
	inf := factory.InformerFor(f, WidgetType)
	added := make(chan string, 10)
	if _, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{
		AddFunc: func(w *lwt.Widget, initial bool) {
			if !initial {
				added <- w.Namespace + "/" + w.Name
			}
		},
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if keys := sorted(inf.Indexer().ListKeys()); !slices.Equal(keys, []string{"team-a/a", "team-c/c"}) {
		t.Fatalf("cached keys %v, want [team-a/a team-c/c]", keys)
	}
	if got, _ := inf.Indexer().ByIndex(nodeIndex, "n1"); len(got) != 2 {
		t.Fatalf("ByIndex(node, n1) across both namespaces = %d objects, want 2", len(got))
	}
	g, err := f.ForResource(lwt.GVR)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Lister().ByNamespace("team-b").Get("b"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get in an unwatched namespace: %v, want NotFound", err)
	}

	if err := srv.WaitForWatchers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	srv.Add(widget("team-a", "a2", "", nil))
	srv.Add(widget("team-b", "b2", "", nil))
	srv.Add(widget("team-c", "c2", "", nil))
	var got []string
	for len(got) < 2 {
		select {
		case <-ctx.Done():
			t.Fatalf("handler saw adds %v, want team-a/a2 and team-c/c2", got)
		case key := <-added:
			got = append(got, key)
		}
	}
	if got = sorted(got); !slices.Equal(got, []string{"team-a/a2", "team-c/c2"}) {
		t.Fatalf("handler saw adds %v, want team-a/a2 and team-c/c2 (team-b's must not arrive)", got)
	}
	all, _ := g.Lister().List(labels.Everything())
	if len(all) != 4 {
		t.Fatalf("List = %d objects, want 4 (team-b's must not be cached)", len(all))
	}
	paths := map[string]bool{}
	for _, r := range srv.Requests() {
		paths[r.URL.Path] = true
	}
	want := map[string]bool{
		"/apis/test.informer-gen.dev/v1/namespaces/team-a/widgets": true,
		"/apis/test.informer-gen.dev/v1/namespaces/team-c/widgets": true,
	}
	if !maps.Equal(paths, want) {
		t.Fatalf("request paths %v, want %v", paths, want)
	}
}

func sorted(s []string) []string { sort.Strings(s); return s }

// SetListerWatcherFunc is called once per namespace; factory-wide
// Namespaces apply to every namespaced type, and "" among them means all.
func TestNamespacesWithListerWatcherFunc(t *testing.T) {
	for _, tc := range []struct {
		name       string
		namespaces []string
		wantCalls  []string
		wantKeys   []string
	}{
		{"two", []string{"b", "a"}, []string{"a", "b"}, []string{"a/w", "b/w"}},
		{"one", []string{"a"}, []string{"a"}, []string{"a/w"}},
		{"all", []string{"a", ""}, []string{""}, []string{"a/w", "b/w", "c/w"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				objs := map[string][]*lwt.Widget{}
				for _, ns := range []string{"a", "b", "c"} {
					w := widget(ns, "w", "", nil)
					w.ResourceVersion = "1"
					objs[ns] = append(objs[ns], w)
					objs[""] = append(objs[""], w)
				}
				var mu sync.Mutex
				var calls []string
				opts := factory.Options{Namespaces: tc.namespaces}
				opts.Types = append(opts.Types, factory.PerNamespace(factory.TypeOptions[*lwt.Widget]{Type: WidgetType}, func(ns string) reflector.ListerWatcher[*lwt.Widget] {
					mu.Lock()
					defer mu.Unlock()
					calls = append(calls, ns)
					return fakeLW{items: objs[ns]}
				}))
				f := factory.New(nil, opts)
				defer f.Shutdown()
				inf := factory.InformerFor(f, WidgetType)
				f.Start(t.Context())
				if err := f.WaitForCacheSync(t.Context()); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				defer mu.Unlock()
				if !slices.Equal(calls, tc.wantCalls) {
					t.Fatalf("ListerWatcher func called for %q, want %q", calls, tc.wantCalls)
				}
				if keys := sorted(inf.Indexer().ListKeys()); !slices.Equal(keys, tc.wantKeys) {
					t.Fatalf("cached keys %v, want %v", keys, tc.wantKeys)
				}
			})
		})
	}
}
