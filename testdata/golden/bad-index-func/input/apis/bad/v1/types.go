package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FooOwner has the wrong signature for an index func.
func FooOwner(f Foo) []string { return nil }

func fooPrivate(f *Foo) ([]string, error) { return nil, nil }

// +genclient
// +informer-gen:index:name=Owner,func=FooOwner
// +informer-gen:index:name=Owners,func=FooOwnerz
// +informer-gen:index:name=Priv,func=fooPrivate
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Foo is a test type.
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec FooSpec `json:"spec"`
}

// FooSpec is the spec of a Foo.
type FooSpec struct {
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// FooList is a list of Foo.
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Foo `json:"items"`
}
