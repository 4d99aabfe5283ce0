package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +informer-gen:projection:name=P1,fields=.spec.replicas;.spec.nodeName:keys
// +informer-gen:projection:name=P2,fields=.spec.limits:values
// +informer-gen:projection:name=P3,fields=.spec.limits:keys;.spec.limits
// +informer-gen:projection:name=P4,fields=.spec.limits:keys;.spec.limits:keys
// +informer-gen:projection:name=P5,fields=.spec.template:keys
// +informer-gen:projection:name=P6,fields=.spec.limits;.spec.limits:keys
// +informer-gen:projection:name=P7,fields=.spec.limits:keys;.status.phase
// +informer-gen:projection:name=P8,fields=.spec.nodeName:keys:keys
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Foo is a test type.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is the spec of a Foo.
type FooSpec struct {
	NodeName string              `json:"nodeName"`
	Replicas *int32              `json:"replicas,omitempty"`
	Template *FooTemplate        `json:"template,omitempty"`
	Limits   map[string][]string `json:"limits,omitempty"`
	Hidden   string              `json:"-"`
}

// FooTemplate is a template.
type FooTemplate struct {
	Image string `json:"image"`
}

// FooStatus is the status of a Foo.
type FooStatus struct {
	Phase string `json:"phase"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooList is a list of Foo.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Foo `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Bar is a cluster-scoped test type.
type Bar struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FooSpec `json:"spec"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// BarList is a list of Bar.
type BarList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Bar `json:"items"`
}

// Plain is not selected.
type Plain struct {
	Name string `json:"name"`
}
