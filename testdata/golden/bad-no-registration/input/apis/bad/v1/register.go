package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersionX is the group version of this package.
var GroupVersionX = schema.GroupVersion{Group: "bad.example.com", Version: "v1"}

var (
	// SchemeBuilder collects the funcs that register this group version.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(GroupVersionX,
		&Foo{},
		&FooList{},
	)
	metav1.AddToGroupVersion(scheme, GroupVersionX)
	return nil
}
