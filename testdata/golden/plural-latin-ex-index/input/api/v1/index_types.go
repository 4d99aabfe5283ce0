package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Index is a test kind.
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec IndexSpec `json:"spec"`
}

// IndexSpec is the spec of a Index.
type IndexSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// IndexList is a list of Index.
type IndexList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Index `json:"items"`
}
