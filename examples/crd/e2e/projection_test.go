package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/store"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	v1alpha1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1alpha1"
	projv1alpha1 "github.com/informer-gen/informer-gen/examples/crd/generated/projections/samplecontroller/v1alpha1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
)

// TestFooSummaryProjection runs the v1alpha1 Foo informer and its FooSummary
// projection's informer (+informer-gen:projection:name=FooSummary,
// fields=.spec.replicas;.status.availableReplicas) from one factory, through
// creates, spec updates, status updates and deletes: both caches converge to
// a fresh LIST, and every FooSummary holds exactly its Foo's metadata,
// replicas and available replicas.
func TestFooSummaryProjection(t *testing.T) {
	ctx := t.Context()
	const ns = "projections"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 20, nil); err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(server.Config(), factory.Options{Namespaces: []string{ns}})
	t.Cleanup(f.Shutdown)
	v := f.Samplecontroller().V1alpha1()
	foos := v.Foos().Informer()
	summaries := v.FooSummaries().Informer()
	if again := factory.InformerFor(f.Factory, v1alpha1informers.FooSummaryType); again != summaries {
		t.Error("InformerFor(FooSummaryType) is not the shared FooSummary informer")
	}
	syncFactory(t, ctx, f)
	converged := func(what string) {
		t.Helper()
		e2eutil.Eventually(t, ctx, e2eutil.Patience, what, func() error { return summariesEqualList(ctx, f, ns) })
	}
	converged("after the initial sync")

	// Creates after the sync, spec and status updates, deletes.
	if err := e2eutil.CreateFoos(ctx, client, ns, "late", 0, 5, nil); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"foo-1", "foo-2", "late-3"} {
		var foo samplev1.Foo
		if err := client.Get().Namespace(ns).Resource("foos").Name(name).Do(ctx).Into(&foo); err != nil {
			t.Fatal(err)
		}
		foo.Spec.Replicas = int32(10 + i)
		if err := client.Put().Namespace(ns).Resource("foos").Name(name).Body(&foo).Do(ctx).Into(&foo); err != nil {
			t.Fatal(err)
		}
		foo.Status.AvailableReplicas = int32(i + 1)
		if err := client.Put().Namespace(ns).Resource("foos").Name(name).SubResource("status").Body(&foo).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"foo-0", "foo-5", "late-1"} {
		if err := e2eutil.DeleteFoo(ctx, client, ns, name); err != nil {
			t.Fatal(err)
		}
	}
	converged("after creates, updates and deletes")
	if n := foos.Indexer().Len(); n != 22 {
		t.Errorf("the Foo cache holds %d objects, want 22", n)
	}
	got, err := v.FooSummaries().Lister().FooSummaries(ns).Get("foo-2")
	if err != nil || got.Spec.Replicas != 11 || got.Status.AvailableReplicas != 2 {
		t.Errorf("FooSummaries(%s).Get(foo-2) = %+v, %v; want replicas 11, available 2", ns, got, err)
	}
}

// summariesEqualList checks the Foo and FooSummary caches of f against a
// fresh LIST of ns: the same objects at the same resourceVersions, each
// FooSummary equal to its listed Foo's projected fields.
func summariesEqualList(ctx context.Context, f *informers.SharedInformerFactory, ns string) error {
	listed, _, err := verify.ListFoos(ctx, client, ns, "")
	if err != nil {
		return err
	}
	v := f.Samplecontroller().V1alpha1()
	if err := sameVersions("v1alpha1 Foo", v.Foos().Informer().Indexer().List(), listed); err != nil {
		return err
	}
	cached := v.FooSummaries().Informer().Indexer().List()
	if err := sameVersions("FooSummary", cached, listed); err != nil {
		return err
	}
	for _, foo := range listed {
		i := slices.IndexFunc(cached, func(s *projv1alpha1.FooSummary) bool { return s.Name == foo.Name })
		s := cached[i]
		// Metadata is kept whole, but for managedFields, which the factory's
		// informers drop by default (as they do the Foo informer's).
		got, want := s.ObjectMeta, foo.ObjectMeta
		got.ManagedFields, want.ManagedFields = nil, nil
		if !equality.Semantic.DeepEqual(got, want) {
			return fmt.Errorf("FooSummary %s/%s has metadata %+v, the Foo has %+v", ns, foo.Name, got, want)
		}
		if cachedFoo, ok := v.Foos().Informer().Indexer().Get(store.Key(foo)); !ok ||
			!equality.Semantic.DeepEqual(cachedFoo.ObjectMeta, s.ObjectMeta) {
			return fmt.Errorf("FooSummary %s/%s: its metadata differs from the cached v1alpha1 Foo's (cached: %v)", ns, foo.Name, ok)
		}
		if s.Spec.Replicas != foo.Spec.Replicas || s.Status.AvailableReplicas != foo.Status.AvailableReplicas {
			return fmt.Errorf("FooSummary %s/%s has replicas %d, available %d; the Foo has %d, %d",
				ns, foo.Name, s.Spec.Replicas, s.Status.AvailableReplicas, foo.Spec.Replicas, foo.Status.AvailableReplicas)
		}
	}
	return nil
}

// sameVersions checks that cached holds the listed objects' keys at their
// resourceVersions, and nothing else.
func sameVersions[T metav1.Object](kind string, cached []T, listed []*samplev1.Foo) error {
	want := map[string]string{}
	for _, o := range listed {
		want[store.Key(o)] = o.ResourceVersion
	}
	got := map[string]string{}
	for _, o := range cached {
		got[store.Key(o)] = o.GetResourceVersion()
	}
	for k, rv := range want {
		if got[k] != rv {
			return fmt.Errorf("%s %s is cached at rv %q, the server has rv %s", kind, k, got[k], rv)
		}
	}
	for k, rv := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("%s %s (rv %s) is cached but not on the server", kind, k, rv)
		}
	}
	return nil
}
