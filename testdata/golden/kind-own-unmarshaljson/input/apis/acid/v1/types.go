package v1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Postgresql is a test kind with an UnmarshalJSON of its own.
type Postgresql struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec  PostgresSpec `json:"spec"`
	Error string       `json:"-"`
}

// PostgresSpec is the spec of a Postgresql.
type PostgresSpec struct {
	Instances int32 `json:"numberOfInstances"`
}

// UnmarshalJSON decodes a Postgresql, keeping an object whose spec does not
// decode and saying why in Error, as Zalando's does.
func (p *Postgresql) UnmarshalJSON(data []byte) error {
	type plain Postgresql
	var tmp plain
	if err := json.Unmarshal(data, &tmp); err != nil {
		var meta struct {
			metav1.TypeMeta   `json:",inline"`
			metav1.ObjectMeta `json:"metadata,omitempty"`
		}
		if err := json.Unmarshal(data, &meta); err != nil {
			return err
		}
		*p = Postgresql{TypeMeta: meta.TypeMeta, ObjectMeta: meta.ObjectMeta, Error: err.Error()}
		return nil
	}
	*p = Postgresql(tmp)
	return nil
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// PostgresqlList is a list of Postgresql.
type PostgresqlList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Postgresql `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Cluster is a test kind without one.
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PostgresSpec `json:"spec"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ClusterList is a list of Cluster.
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Cluster `json:"items"`
}
