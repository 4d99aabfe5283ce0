package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Route is laid out as gateway-api's HTTPRoute: parentRefs come from an
// embedded struct its spec inlines, timeout from an embedded pointer.
//
// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +informer-gen:projection:name=RouteSummary,fields=.spec.parentRefs;.spec.hostnames;.spec.timeout;.status
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RouteSpec   `json:"spec"`
	Status RouteStatus `json:"status,omitempty"`
}

// RouteSpec is the spec of a Route.
type RouteSpec struct {
	CommonRouteSpec `json:",inline"`
	*RouteTimeouts  `json:",inline"`

	Hostnames []Hostname `json:"hostnames,omitempty"`
	Rules     []Rule     `json:"rules,omitempty"`
}

// CommonRouteSpec is the part every route kind shares.
type CommonRouteSpec struct {
	ParentRefs []ParentReference `json:"parentRefs,omitempty"`
}

// RouteTimeouts are a Route's optional timeouts.
type RouteTimeouts struct {
	Timeout *metav1.Duration `json:"timeout,omitempty"`
}

// ParentReference names the gateway a Route attaches to.
type ParentReference struct {
	Name      string  `json:"name"`
	Namespace *string `json:"namespace,omitempty"`
	Port      *int32  `json:"port,omitempty"`
}

// Hostname is a DNS name.
type Hostname string

// Rule is one routing rule.
type Rule struct {
	Matches []string `json:"matches,omitempty"`
	Backend string   `json:"backend"`
}

// RouteStatus is the status of a Route.
type RouteStatus struct {
	Parents []RouteParentStatus `json:"parents"`
}

// RouteParentStatus is a Route's status for one parent.
type RouteParentStatus struct {
	ParentRef  ParentReference    `json:"parentRef"`
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RouteList is a list of Routes.
//
// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Route `json:"items"`
}

// Workload mixes Pod's containers and initContainers (one element type),
// cluster-api's omitzero and struct-valued nodeRef, and leaves of other
// packages' types.
//
// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +informer-gen:projection:name=WorkloadImages,fields=.spec.containers.image;.spec.initContainers.image;.spec.containers.resources
// +informer-gen:projection:name=WorkloadRefs,fields=.spec.template.image;.spec.port;.spec.Options.mode;.status.nodeRef;.status.startedAt;.status.capacity;.status.config
// +informer-gen:projection:name=WorkloadMeta,fields=
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkloadSpec   `json:"spec,omitempty,omitzero"`
	Status WorkloadStatus `json:"status,omitempty,omitzero"`
}

// WorkloadSpec is the spec of a Workload.
type WorkloadSpec struct {
	Containers     []Container        `json:"containers"`
	InitContainers []Container        `json:"initContainers,omitempty"`
	Template       *Template          `json:"template,omitempty"`
	Port           intstr.IntOrString `json:"port"`
	// Options is tagged inline, but it is a named field, not an embedded
	// one: encoding/json does not inline it, its member is "Options".
	Options Options `json:",inline"`
}

// Container is one container of a Workload.
type Container struct {
	Name      string    `json:"name"`
	Image     string    `json:"image,omitempty"`
	Resources Resources `json:"resources,omitzero"`
}

// Resources are a container's resource limits.
type Resources struct {
	Limits map[string]resource.Quantity `json:"limits,omitempty"`
}

// Template is what a Workload's containers start from.
type Template struct {
	Image string   `json:"image"`
	Args  []string `json:"args,omitempty"`
}

// Options are a Workload's options.
type Options struct {
	Mode string `json:"mode,omitempty"`
}

// WorkloadStatus is the status of a Workload.
type WorkloadStatus struct {
	NodeRef   NodeReference        `json:"nodeRef,omitempty,omitzero"`
	StartedAt *metav1.Time         `json:"startedAt,omitempty"`
	Capacity  resource.Quantity    `json:"capacity"`
	Config    runtime.RawExtension `json:"config,omitempty"`
}

// NodeReference names the node a Workload runs on.
type NodeReference struct {
	Name string `json:"name"`
}

// WorkloadList is a list of Workloads.
//
// +kubebuilder:object:root=true
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type WorkloadList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Workload `json:"items"`
}
