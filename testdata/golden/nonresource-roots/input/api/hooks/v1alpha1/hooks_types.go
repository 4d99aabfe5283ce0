package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BeforeUpgradeRequest is a hook request.
type BeforeUpgradeRequest struct {
	metav1.TypeMeta `json:",inline"`

	Version string `json:"version"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BeforeUpgradeResponse is a hook response.
type BeforeUpgradeResponse struct {
	metav1.TypeMeta `json:",inline"`

	Message string `json:"message,omitempty"`
}
