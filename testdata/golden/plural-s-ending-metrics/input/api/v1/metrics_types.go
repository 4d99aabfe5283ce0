package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Metrics is a test kind.
type Metrics struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MetricsSpec `json:"spec"`
}

// MetricsSpec is the spec of a Metrics.
type MetricsSpec struct {
	Size string `json:"size,omitempty"`
}

// +kubebuilder:object:root=true

// MetricsList is a list of Metrics.
type MetricsList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Metrics `json:"items"`
}
