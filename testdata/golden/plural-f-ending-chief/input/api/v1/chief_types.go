package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Chief is a test kind.
type Chief struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ChiefSpec `json:"spec"`
}

// ChiefSpec is the spec of a Chief.
type ChiefSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// ChiefList is a list of Chief.
type ChiefList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Chief `json:"items"`
}
