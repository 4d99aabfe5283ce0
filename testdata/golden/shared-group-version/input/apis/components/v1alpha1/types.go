package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +informer-gen:index:name=Type,field=.spec.type
// +informer-gen:index:name=Scope,func=ComponentScopes
// +informer-gen:projection:name=ComponentSummary,fields=.spec.type

// Component is a test kind.
type Component struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   ComponentSpec `json:"spec"`
	Scopes []string      `json:"scopes,omitempty"`
}

// ComponentSpec is the spec of a Component.
type ComponentSpec struct {
	Type    string `json:"type"`
	Version string `json:"version"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ComponentList is a list of Component.
type ComponentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Component `json:"items"`
}

// ComponentScopes indexes a Component by the app IDs it is scoped to.
func ComponentScopes(c *Component) ([]string, error) { return c.Scopes, nil }
