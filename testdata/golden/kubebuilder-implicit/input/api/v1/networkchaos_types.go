package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NetworkChaos is a test kind.
type NetworkChaos struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NetworkChaosSpec `json:"spec"`
}

// NetworkChaosSpec is the spec of a NetworkChaos.
type NetworkChaosSpec struct {
	Size string `json:"size,omitempty"`
}

// NetworkChaosList is a list of NetworkChaos.
type NetworkChaosList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []NetworkChaos `json:"items"`
}

func init() {
	SchemeBuilder.Register(&NetworkChaos{}, &NetworkChaosList{})
}
