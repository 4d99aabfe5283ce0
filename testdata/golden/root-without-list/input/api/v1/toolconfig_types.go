package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ToolConfig is the configuration file of the tools controller: an object
// with TypeMeta and ObjectMeta that is read from disk, never listed, so it
// has no ToolConfigList.
type ToolConfig struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	LeaderElection bool `json:"leaderElection,omitempty"`
}
