package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Zone is a named string type.
type Zone string

// TargetRef points at another object.
type TargetRef struct {
	Name *string `json:"name,omitempty"`
}

// TaskStatus is the status of a Task.
type TaskStatus struct {
	Phase string `json:"phase,omitempty"`
}

// TaskOwnerIndex indexes a Task by the names of its owners.
func TaskOwnerIndex(t *Task) ([]string, error) {
	var out []string
	for _, o := range t.OwnerReferences {
		out = append(out, o.Name)
	}
	return out, nil
}

// +genclient
// +informer-gen:index:name=Node,field=.spec.nodeName
// +informer-gen:index:name=Class,field=.spec.className
// +informer-gen:index:name=Tags,field=.spec.tags
// +informer-gen:index:name=Zone,field=.spec.zone
// +informer-gen:index:name=Zones,field=.spec.zones
// +informer-gen:index:name=Aliases,field=.spec.aliases
// +informer-gen:index:name=Target,field=.spec.target.name
// +informer-gen:index:name=GenerateName,field=.ObjectMeta.GenerateName
// +informer-gen:index:name=Phase,field=.Status.Phase
// +informer-gen:index:name=Owner,func=TaskOwnerIndex
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Task is a test type.
type Task struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TaskSpec   `json:"spec"`
	Status TaskStatus `json:"status,omitempty"`
}

// TaskSpec is the spec of a Task.
type TaskSpec struct {
	NodeName  string     `json:"nodeName,omitempty"`
	ClassName *string    `json:"className,omitempty"`
	Tags      []string   `json:"tags,omitempty"`
	Zone      Zone       `json:"zone,omitempty"`
	Zones     []Zone     `json:"zones,omitempty"`
	Aliases   []*string  `json:"aliases,omitempty"`
	Target    *TargetRef `json:"target,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// TaskList is a list of Task.
type TaskList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Task `json:"items"`
}
