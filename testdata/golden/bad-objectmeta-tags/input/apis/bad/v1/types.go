package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Untagged is a test type.
type Untagged struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ObjectMeta

	Spec UntaggedSpec `json:"spec"`
}

// UntaggedSpec is the spec of a Untagged.
type UntaggedSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// UntaggedList is a list of Untagged.
type UntaggedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Untagged `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Inline is a test type.
type Inline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:",inline"`

	Spec InlineSpec `json:"spec"`
}

// InlineSpec is the spec of a Inline.
type InlineSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// InlineList is a list of Inline.
type InlineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Inline `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Pointer is a test type.
type Pointer struct {
	metav1.TypeMeta    `json:",inline"`
	*metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PointerSpec `json:"spec"`
}

// PointerSpec is the spec of a Pointer.
type PointerSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PointerList is a list of Pointer.
type PointerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Pointer `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Renamed is a test type.
type Renamed struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"meta,omitempty"`

	Spec RenamedSpec `json:"spec"`
}

// RenamedSpec is the spec of a Renamed.
type RenamedSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RenamedList is a list of Renamed.
type RenamedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Renamed `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Named is a test type.
type Named struct {
	metav1.TypeMeta `json:",inline"`
	ObjectMeta      metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec NamedSpec `json:"spec"`
}

// NamedSpec is the spec of a Named.
type NamedSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// NamedList is a list of Named.
type NamedList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Named `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Internal is an internal (unversioned) API type: no field has a json tag.
type Internal struct {
	metav1.TypeMeta
	metav1.ObjectMeta

	Spec InternalSpec
}

// InternalSpec is the spec of an Internal.
type InternalSpec struct {
	Replicas int32
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// InternalList is a list of Internal.
type InternalList struct {
	metav1.TypeMeta
	metav1.ListMeta

	Items []Internal
}
