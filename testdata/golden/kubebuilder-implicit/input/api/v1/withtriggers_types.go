package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true

// WithTriggers is a test kind.
type WithTriggers struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WithTriggersSpec `json:"spec"`
}

// WithTriggersSpec is the spec of a WithTriggers.
type WithTriggersSpec struct {
	Size string `json:"size,omitempty"`
}

// WithTriggersList is a list of WithTriggers.
type WithTriggersList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []WithTriggers `json:"items"`
}
