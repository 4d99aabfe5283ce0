package v1

import (
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Route is laid out as Istio's VirtualService: its spec is a message
// holding a lock.
//
// +genclient
// +informer-gen:projection:name=RouteView,fields=.status.observed.generation;.statusObserved.generation
// +k8s:deepcopy-gen=false
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   RouteMessage `json:"spec,omitempty"`
	Status RouteStatus  `json:"status,omitempty"`
	// StatusObserved and Status.Observed would both give RouteViewStatusObserved.
	StatusObserved Observed `json:"statusObserved,omitempty"`
}

// Observed is what was last observed.
type Observed struct {
	Generation int64 `json:"generation,omitempty"`
}

// DeepCopyInto copies in into out field by field, as Istio's client-go
// does (deepcopy-gen's *out = *in would copy the spec's lock).
func (in *Route) DeepCopyInto(out *Route) {
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	out.Status = in.Status
	out.StatusObserved = in.StatusObserved
}

// DeepCopy returns a deep copy of in, or nil for nil.
func (in *Route) DeepCopy() *Route {
	if in == nil {
		return nil
	}
	out := new(Route)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject returns a deep copy of in as a runtime.Object.
func (in *Route) DeepCopyObject() runtime.Object {
	if c := in.DeepCopy(); c != nil {
		return c
	}
	return nil
}

// RouteMessage stands for a protobuf message: its state holds a lock by
// value, so it is copied only by its DeepCopyInto.
//
// +k8s:deepcopy-gen=false
type RouteMessage struct {
	state [0]sync.Mutex

	Hosts    []string `json:"hosts,omitempty"`
	Gateways []string `json:"gateways,omitempty"`
}

// DeepCopyInto copies in into out field by field, never the lock.
func (in *RouteMessage) DeepCopyInto(out *RouteMessage) {
	out.Hosts = append([]string(nil), in.Hosts...)
	out.Gateways = append([]string(nil), in.Gateways...)
}

// RouteStatus is the status of a Route.
type RouteStatus struct {
	ObservedGeneration int64    `json:"observedGeneration,omitempty"`
	Observed           Observed `json:"observed,omitempty"`
}

// RouteList is a list of Routes.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Route `json:"items"`
}
