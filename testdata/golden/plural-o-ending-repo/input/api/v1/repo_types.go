package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Repo is a test kind.
type Repo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RepoSpec `json:"spec"`
}

// RepoSpec is the spec of a Repo.
type RepoSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// RepoList is a list of Repo.
type RepoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Repo `json:"items"`
}
