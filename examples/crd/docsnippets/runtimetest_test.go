package docsnippets_test

// docs/guide.md, "Testing a controller": the imports are the block's own, so
// the block shows them.

// doc:begin guide-runtimetest
import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"

	"github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1alpha1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	v1alpha1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1alpha1"
	projv1alpha1 "github.com/informer-gen/informer-gen/examples/crd/generated/projections/samplecontroller/v1alpha1"
)

// doc:end guide-runtimetest

import "testing/synctest"

func guideRuntimetest() {
	// doc:begin guide-runtimetest
	foos := runtimetest.NewSource(runtimetest.SourceOptions{Resource: v1alpha1informers.FooType.Resource.GroupResource()},
		&v1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: v1alpha1.FooSpec{Replicas: 1}})
	opts := factory.Options{Types: []factory.TypeOverride{
		factory.TypeOptions[*v1alpha1.Foo]{Type: v1alpha1informers.FooType, ListerWatcher: foos},
		factory.TypeOptions[*projv1alpha1.FooSummary]{Type: v1alpha1informers.FooSummaryType,
			ListerWatcher: runtimetest.Project[*projv1alpha1.FooSummary](foos)},
	}}
	f := informers.NewSharedInformerFactory(nil, opts) // no rest.Config: every type read has a source
	summaries := f.Samplecontroller().V1alpha1().FooSummaries()
	// ... start the controller under test, then:
	foos.Update(&v1alpha1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: v1alpha1.FooSpec{Replicas: 3}})
	synctest.Wait() // inside synctest.Test: summaries.Lister() now says Replicas 3, as Foos' does
	// doc:end guide-runtimetest
	_ = summaries
}
