package v1alpha1

import (
	"k8s.io/apimachinery/pkg/labels"

	v1alpha1 "github.com/informer-gen/informer-gen/testdata/golden/samplecontroller/input/apis/samplecontroller/v1alpha1"
)

// FooListerExpansion allows custom methods to be added to FooLister.
type FooListerExpansion interface {
	// ListScaled lists the Foos that set spec.replicas.
	ListScaled() ([]*v1alpha1.Foo, error)
}

// FooNamespaceListerExpansion allows custom methods to be added to
// FooNamespaceLister.
type FooNamespaceListerExpansion interface {
	// GetByDeployment returns the Foos of the namespace managing deployment.
	GetByDeployment(deployment string) ([]*v1alpha1.Foo, error)
}

// ListScaled is hand-written on the generated lister's concrete type, with
// upstream's pointer receiver.
func (s *fooLister) ListScaled() ([]*v1alpha1.Foo, error) {
	all, err := s.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*v1alpha1.Foo
	for _, f := range all {
		if f.Spec.Replicas != nil {
			out = append(out, f)
		}
	}
	return out, nil
}

// GetByDeployment is hand-written with upstream's value receiver for
// namespace listers.
func (s fooNamespaceLister) GetByDeployment(deployment string) ([]*v1alpha1.Foo, error) {
	all, err := s.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	var out []*v1alpha1.Foo
	for _, f := range all {
		if f.Spec.DeploymentName == deployment {
			out = append(out, f)
		}
	}
	return out, nil
}

// The methods are reachable through the generated interfaces.
var (
	_ = func(l FooLister) { _, _ = l.ListScaled() }
	_ = func(l FooLister) { _, _ = l.Foos("ns").GetByDeployment("d") }
)
