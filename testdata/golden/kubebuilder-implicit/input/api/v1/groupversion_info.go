// Package v1 contains API Schema definitions for the scaling v1 API group.
// +kubebuilder:object:generate=true
// +groupName=scaling.example.com
package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is group version used to register these objects.
	GroupVersion = schema.GroupVersion{Group: "scaling.example.com", Version: "v1"}

	// SchemeBuilder is used to add go types to the GroupVersionKind scheme.
	SchemeBuilder = &Builder{GroupVersion: GroupVersion}

	// AddToScheme adds the types in this group-version to the given scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

// Builder is controller-runtime's scheme.Builder, in small: Register takes
// objects.
type Builder struct {
	GroupVersion schema.GroupVersion
	runtime.SchemeBuilder
}

// Register adds objs to the types registered in the group version.
func (b *Builder) Register(objs ...runtime.Object) *Builder {
	b.SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(b.GroupVersion, objs...)
		metav1.AddToGroupVersion(s, b.GroupVersion)
		return nil
	})
	return b
}

// AddToScheme registers every registered object in s.
func (b *Builder) AddToScheme(s *runtime.Scheme) error { return b.SchemeBuilder.AddToScheme(s) }
