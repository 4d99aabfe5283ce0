package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=nodepools,scope=Cluster,categories=nodes
// +kubebuilder:subresource:status

// NodePool is a test kind.
type NodePool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NodePoolSpec `json:"spec"`
}

// NodePoolSpec is the spec of a NodePool.
type NodePoolSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// NodePoolList is a list of NodePool.
type NodePoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []NodePool `json:"items"`
}
