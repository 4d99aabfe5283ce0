package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Header holds TypeMeta and ObjectMeta in the right shape.
type Header struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// OtherHeader is a second header with an ObjectMeta.
type OtherHeader struct {
	metav1.ObjectMeta `json:"otherMetadata,omitempty"`
}

// FlatHeader inlines ObjectMeta itself: its fields land at the top.
type FlatHeader struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:",inline"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Renamed has the header under a JSON name of its own: metadata arrives as .header.metadata.
type Renamed struct {
	Header `json:"header"`

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

// Pointer has a pointer to the header: GetName panics while it is nil.
type Pointer struct {
	*Header `json:",inline"`

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

// InlinedMeta has a header that inlines ObjectMeta.
type InlinedMeta struct {
	FlatHeader `json:",inline"`

	Spec InlinedMetaSpec `json:"spec"`
}

// InlinedMetaSpec is the spec of a InlinedMeta.
type InlinedMetaSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// InlinedMetaList is a list of InlinedMeta.
type InlinedMetaList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []InlinedMeta `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Twice has two headers with ObjectMeta at the same depth: Go promotes neither.
type Twice struct {
	Header      `json:",inline"`
	OtherHeader `json:",inline"`

	Spec TwiceSpec `json:"spec"`
}

// TwiceSpec is the spec of a Twice.
type TwiceSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TwiceList is a list of Twice.
type TwiceList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Twice `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Field has the header as a named field: nothing is promoted.
type Field struct {
	metav1.TypeMeta `json:",inline"`
	Meta            Header `json:"metadata"`

	Spec FieldSpec `json:"spec"`
}

// FieldSpec is the spec of a Field.
type FieldSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FieldList is a list of Field.
type FieldList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Field `json:"items"`
}
