package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// PodChaos is a test kind.
type PodChaos struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PodChaosSpec `json:"spec"`
}

// PodChaosSpec is the spec of a PodChaos.
type PodChaosSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// PodChaosList is a list of PodChaos.
type PodChaosList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PodChaos `json:"items"`
}
