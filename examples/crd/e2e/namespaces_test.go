package e2e

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/factory"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	fooinformers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
)

// TestTypeWatchesSeveralNamespaces: the generated factory with Foos limited
// to two of three namespaces (a per-type option) caches exactly those two,
// with one LIST/WATCH stream per namespace, and its generated Lister and
// index method answer across both. Changes in all three namespaces follow;
// the cache ends equal to a fresh LIST of the two namespaces.
func TestTypeWatchesSeveralNamespaces(t *testing.T) {
	ctx := t.Context()
	nss := []string{"multi-a", "multi-b", "multi-c"}
	for _, ns := range nss {
		if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 20, func(i int) string { return fmt.Sprintf("host-%d", i%2) }); err != nil {
			t.Fatal(err)
		}
	}
	p := newProxy(t, server.Config())
	f := informers.NewSharedInformerFactory(p.Config(), factory.Options{
		Namespaces: []string{"ignored-by-the-type-option"},
		Types: []factory.TypeOverride{
			factory.TypeOptions[*samplev1.Foo]{Type: fooinformers.FooType, Namespaces: []string{"multi-a", "multi-b"}},
		},
	})
	t.Cleanup(f.Shutdown)
	foos := f.Samplecontroller().V1().Foos()
	inf := foos.Informer()
	syncFactory(t, ctx, f)

	lister := foos.Lister()
	if all, _ := lister.List(labels.Everything()); len(all) != 40 {
		t.Errorf("after sync the Lister holds %d Foos, want 40 (20 in each watched namespace)", len(all))
	}
	if got, _ := lister.Foos("multi-c").List(labels.Everything()); len(got) != 0 {
		t.Errorf("the Lister holds %d Foos of the unwatched namespace multi-c", len(got))
	}
	if got, _ := lister.ByHost("host-1"); len(got) != 20 {
		t.Errorf("ByHost(host-1) = %d Foos across both namespaces, want 20", len(got))
	}
	if got, _ := lister.Foos("multi-b").ByHost("host-1"); len(got) != 10 {
		t.Errorf("Foos(multi-b).ByHost(host-1) = %d, want 10", len(got))
	}
	paths := map[string]bool{}
	for _, r := range fooRequests(p) {
		paths[r.URL.Path] = true
	}
	for path := range paths {
		if !strings.Contains(path, "/namespaces/multi-a/") && !strings.Contains(path, "/namespaces/multi-b/") {
			t.Errorf("request to %s: only multi-a and multi-b may be read", path)
		}
	}
	if len(paths) != 2 {
		t.Errorf("Foo requests went to %v, want one path per watched namespace", paths)
	}

	for _, ns := range nss {
		if err := e2eutil.CreateFoos(ctx, client, ns, "late", 0, 5, nil); err != nil {
			t.Fatal(err)
		}
		if err := e2eutil.DeleteFoo(ctx, client, ns, "foo-0"); err != nil {
			t.Fatal(err)
		}
	}
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "cache equals a fresh LIST of multi-a and multi-b", func() error {
		var listed []*samplev1.Foo
		for _, ns := range nss[:2] {
			l, _, err := verify.ListFoos(ctx, client, ns, "")
			if err != nil {
				return err
			}
			listed = append(listed, l...)
		}
		return verify.CacheEqualsList("Foo", inf.Indexer().List(), listed)
	})
	if rv := inf.LastSyncResourceVersion(); !strings.HasPrefix(rv, "multi-a=") || !strings.Contains(rv, ",multi-b=") {
		t.Errorf("LastSyncResourceVersion = %q, want one per namespace", rv)
	}
}
