package generatedtest

import (
	"slices"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	expinformers "github.com/informer-gen/informer-gen/testdata/golden/lister-expansion/want/informers/samplecontroller/v1alpha1"
	explisters "github.com/informer-gen/informer-gen/testdata/golden/lister-expansion/want/listers/samplecontroller/v1alpha1"
	samplev1alpha1 "github.com/informer-gen/informer-gen/testdata/golden/samplecontroller/input/apis/samplecontroller/v1alpha1"
)

// TestHandWrittenListerExpansion calls the hand-written methods of the golden
// "lister-expansion" tree's foo_expansion.go (upstream's pattern, kept by
// informer-gen) through the generated FooLister and FooNamespaceLister.
func TestHandWrittenListerExpansion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		replicas := int32(2)
		foo := func(ns, name, deployment string, r *int32) *samplev1alpha1.Foo {
			return &samplev1alpha1.Foo{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec:       samplev1alpha1.FooSpec{DeploymentName: deployment, Replicas: r},
			}
		}
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: explisters.FooResource},
			foo("ns1", "a", "web", &replicas), foo("ns1", "b", "db", nil), foo("ns2", "c", "web", nil))
		inf := expinformers.NewFooInformer(src, informer.Options[*samplev1alpha1.Foo]{})
		runSynced(t, inf)
		var lister explisters.FooLister = explisters.NewFooLister(inf.Indexer())
		key := func(fs []*samplev1alpha1.Foo) []string {
			var out []string
			for _, f := range fs {
				out = append(out, f.Namespace+"/"+f.Name)
			}
			slices.Sort(out)
			return out
		}
		scaled, err := lister.ListScaled()
		if got := key(scaled); err != nil || !slices.Equal(got, []string{"ns1/a"}) {
			t.Errorf("ListScaled() = %v, %v; want [ns1/a]", got, err)
		}
		web, err := lister.Foos("ns1").GetByDeployment("web")
		if got := key(web); err != nil || !slices.Equal(got, []string{"ns1/a"}) {
			t.Errorf("Foos(ns1).GetByDeployment(web) = %v, %v; want [ns1/a]", got, err)
		}
	})
}
