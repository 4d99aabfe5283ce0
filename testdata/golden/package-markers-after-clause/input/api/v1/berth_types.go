package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// +kubebuilder:object:generate=true
// +groupName=docks.example.com

const (
	// BerthFinalizer is the finalizer of a berth.
	BerthFinalizer = "berth.docks.example.com"
)

// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +k8s:deepcopy-gen=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Berth is the Schema for the berths API.
type Berth struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BerthSpec `json:"spec,omitempty"`
}

// BerthSpec defines the desired state of Berth.
// +k8s:deepcopy-gen=true
type BerthSpec struct {
	// +optional
	Length int32 `json:"length,omitempty"`
}

// +kubebuilder:object:root=true
// +k8s:deepcopy-gen=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BerthList contains a list of Berth.
type BerthList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Berth `json:"items"`
}

func init() {
	SchemeBuilder.Register(func(s *runtime.Scheme) error {
		s.AddKnownTypes(GroupVersion, &Berth{}, &BerthList{})
		metav1.AddToGroupVersion(s, GroupVersion)
		return nil
	})
}
