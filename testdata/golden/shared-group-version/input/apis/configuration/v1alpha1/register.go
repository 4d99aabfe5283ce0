package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// This package registers its kinds in an init() into client-go's scheme
// and declares no SchemeGroupVersion or AddToScheme.
func init() {
	gv := schema.GroupVersion{Group: "dapr.example.com", Version: "v1alpha1"}
	metav1.AddToGroupVersion(scheme.Scheme, gv)
	scheme.Scheme.AddKnownTypes(gv, &Configuration{}, &ConfigurationList{})
}
