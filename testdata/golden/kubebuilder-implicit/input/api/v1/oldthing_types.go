package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:unservedversion

// OldThing is a test kind.
type OldThing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec OldThingSpec `json:"spec"`
}

// OldThingSpec is the spec of a OldThing.
type OldThingSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// OldThingList is a list of OldThing.
type OldThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []OldThing `json:"items"`
}

func init() {
	SchemeBuilder.Register(&OldThing{}, &OldThingList{})
}
