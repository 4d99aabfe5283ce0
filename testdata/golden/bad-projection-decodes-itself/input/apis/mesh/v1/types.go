package v1

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Route is laid out as Istio's VirtualService.
//
// +genclient
// +informer-gen:projection:name=RouteHosts,fields=.spec.hosts;.spec.export_to
// +informer-gen:projection:name=RouteSpecView,fields=.spec
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type Route struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RouteMessage `json:"spec,omitempty"`
}

// RouteMessage stands for a protobuf message read with protojson: the
// server sends exportTo, its json tag says export_to.
type RouteMessage struct {
	Hosts    []string `json:"hosts,omitempty"`
	ExportTo []string `json:"export_to,omitempty"`
}

// UnmarshalJSON decodes the message as protojson would (camelCase names).
func (m *RouteMessage) UnmarshalJSON(b []byte) error {
	var v struct {
		Hosts    []string `json:"hosts"`
		ExportTo []string `json:"exportTo"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	m.Hosts, m.ExportTo = v.Hosts, v.ExportTo
	return nil
}

// RouteList is a list of Routes.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Route `json:"items"`
}
