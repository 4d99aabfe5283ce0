// Package v1beta1 is the v1beta1 version of the telemetry API.
// +kubebuilder:object:generate=true
// +groupName=telemetry.example.io
package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var (
	// GroupVersion is the group version of this package.
	GroupVersion = schema.GroupVersion{Group: "telemetry.example.io", Version: "v1beta1"}

	// SchemeBuilder registers the types of this group version.
	SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

	// AddToScheme adds the types of this group version to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)

func addKnownTypes(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Collector{}, &CollectorList{}, &TargetAllocator{}, &TargetAllocatorList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
