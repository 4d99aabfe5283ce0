package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +informer-gen:index:name=Image,field=.spec.template.image
// +informer-gen:index:name=Phase,field=.status.phase
// +informer-gen:index:name=GenerateName,field=.metadata.generateName
// +informer-gen:projection:name=WidgetSummary,fields=.spec.replicas;.spec.template.image;.status.availableReplicas;.status.conditions
// +informer-gen:projection:name=WidgetStatusView,fields=.status;.spec.selector;.spec.template.labels;.spec.containers.image;.spec.paused
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Widget is a namespaced test type with two projections.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is the spec of a Widget.
type WidgetSpec struct {
	Replicas   *int32                `json:"replicas,omitempty"`
	Selector   *metav1.LabelSelector `json:"selector,omitempty"`
	Template   *WidgetTemplate       `json:"template,omitempty"`
	Containers []Container           `json:"containers,omitempty"`
	Paused     bool                  `json:"paused,omitempty"`
	Notes      string                `json:"notes,omitempty"`
}

// WidgetTemplate is the template of a Widget's parts.
type WidgetTemplate struct {
	Image  string            `json:"image"`
	Args   []string          `json:"args,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

// Container is one container of a Widget.
type Container struct {
	Name  string  `json:"name"`
	Image string  `json:"image"`
	Ports []int32 `json:"ports,omitempty"`
}

// WidgetPhase is the phase of a Widget.
type WidgetPhase string

// WidgetStatus is the status of a Widget.
type WidgetStatus struct {
	AvailableReplicas int32              `json:"availableReplicas,omitempty"`
	Phase             WidgetPhase        `json:"phase,omitempty"`
	Conditions        []metav1.Condition `json:"conditions,omitempty"`
	ObservedAt        *metav1.Time       `json:"observedAt,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WidgetList is a list of Widget.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Widget `json:"items"`
}

// +genclient
// +genclient:nonNamespaced
// +informer-gen:projection:name=ZoneCapacity,fields=.spec.capacity;.spec.tags;.spec.weight;.spec.limits
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Zone is a cluster-scoped test type with one projection.
type Zone struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ZoneSpec `json:"spec"`
}

// ZoneSpec is the spec of a Zone.
type ZoneSpec struct {
	Region   string                       `json:"region"`
	Capacity resource.Quantity            `json:"capacity"`
	Tags     []string                     `json:"tags,omitempty"`
	Weight   *int64                       `json:"weight,omitempty"`
	Limits   map[string]resource.Quantity `json:"limits,omitempty"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ZoneList is a list of Zone.
type ZoneList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Zone `json:"items"`
}
