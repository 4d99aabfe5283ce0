package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Gadget is a custom resource with fields of every kind.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   GadgetSpec    `json:"spec"`
	Status *GadgetStatus `json:"status,omitempty"`
}

// GadgetSpec has fields of every kind the planner tells apart.
type GadgetSpec struct {
	Size     resource.Quantity     `json:"size"`
	Port     intstr.IntOrString    `json:"port"`
	Raw      runtime.RawExtension  `json:"raw,omitempty"`
	Data     []byte                `json:"data,omitempty"`
	Counts   map[string]int64      `json:"counts,omitempty"`
	Parts    []Part                `json:"parts,omitempty"`
	Tree     *Node                 `json:"tree,omitempty"`
	Legacy   LegacyTags            `json:"legacy"`
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	Matrix   [][]string            `json:"matrix,omitempty"`
	Extra    map[string][]string   `json:"extra,omitempty"`
	Shadow   Shadowed              `json:"shadow"`
	Ignored  string                `json:"-"`
	NoTag    string
}

// Part is a plain struct.
type Part struct {
	Name    string  `json:"name"`
	Weight  float64 `json:"weight"`
	Enabled *bool   `json:"enabled,omitempty"`
	Tier    Tier    `json:"tier,omitempty"`
}

// Tier is a named string.
type Tier string

// Node is recursive.
type Node struct {
	Value    string `json:"value"`
	Children []Node `json:"children,omitempty"`
}

// LegacyTags has a string tag option: decoded by the default decoder.
type LegacyTags struct {
	Count int `json:"count,string"`
}

// Shadowed has two fields of one JSON name (one promoted): decoded by the
// default decoder.
type Shadowed struct {
	Part `json:",inline"`
	Name string `json:"name"`
}

// GadgetStatus has conditions.
type GadgetStatus struct {
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Gadget `json:"items"`
}
