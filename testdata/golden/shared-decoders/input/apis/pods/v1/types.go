package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Runner runs replicas of a pod template, each with its own volumes.
type Runner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RunnerSpec   `json:"spec"`
	Status RunnerStatus `json:"status,omitempty"`
}

// RunnerSpec is the spec of a Runner.
type RunnerSpec struct {
	Replicas             *int32                         `json:"replicas,omitempty"`
	Selector             *metav1.LabelSelector          `json:"selector"`
	Template             corev1.PodTemplateSpec         `json:"template"`
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty"`
	Paused               bool                           `json:"paused,omitempty"`
}

// RunnerStatus is the status of a Runner.
type RunnerStatus struct {
	Replicas   int32              `json:"replicas"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RunnerList is a list of Runners.
type RunnerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Runner `json:"items"`
}
