package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Analysis is a test kind.
type Analysis struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec AnalysisSpec `json:"spec"`
}

// AnalysisSpec is the spec of a Analysis.
type AnalysisSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// AnalysisList is a list of Analysis.
type AnalysisList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Analysis `json:"items"`
}
