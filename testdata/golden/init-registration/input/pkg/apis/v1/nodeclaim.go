package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:path=nodeclaims,scope=Cluster,categories=nodes

// NodeClaim is a test kind.
type NodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NodeClaimSpec `json:"spec"`
}

// NodeClaimSpec is the spec of a NodeClaim.
type NodeClaimSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// NodeClaimList is a list of NodeClaim.
type NodeClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []NodeClaim `json:"items"`
}
