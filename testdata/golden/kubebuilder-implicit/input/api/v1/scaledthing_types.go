package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:resource:path=scaledthings,scope=Namespaced,shortName=st
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Size",type="string",JSONPath=".spec.size"

// ScaledThing is a test kind.
type ScaledThing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ScaledThingSpec `json:"spec"`
}

// ScaledThingSpec is the spec of a ScaledThing.
type ScaledThingSpec struct {
	Size string `json:"size,omitempty"`
}

// ScaledThingList is a list of ScaledThing.
type ScaledThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []ScaledThing `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ScaledThing{}, &ScaledThingList{})
}
