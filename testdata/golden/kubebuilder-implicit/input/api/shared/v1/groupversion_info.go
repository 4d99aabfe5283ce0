// Package v1 holds types shared by the scaling APIs; it defines no kind.
// +kubebuilder:object:generate=true
// +groupName=scaling.example.com
package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is group version used to register these objects.
var GroupVersion = schema.GroupVersion{Group: "scaling.example.com", Version: "v1"}

// Trigger is a shared type.
type Trigger struct {
	Type string `json:"type"`
}
