package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:noStatus
// +genclient:nonNamespacedd
// +groupName=other.example.com

// Thing is a test kind.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec"`
}

// ThingSpec is the spec of a Thing.
type ThingSpec struct {
	Size string `json:"size,omitempty"`
}

// ThingList is a list of Thing.
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Thing `json:"items"`
}

// +genclient
// +genclient:onlyVerbs=create

// ThingReview is created, never listed or watched: no informer (-v=1 says so).
type ThingReview struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
