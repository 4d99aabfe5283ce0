package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Foo asks for a number of replicas of a deployment on one Host. The
// controller reports in its status how many replicas the Host can take.
//
// +genclient
// +informer-gen:index:name=Host,field=.spec.hostName
// +informer-gen:projection:name=FooSummary,fields=.spec.replicas;.status.availableReplicas
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Namespaced
type Foo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FooSpec   `json:"spec"`
	Status FooStatus `json:"status,omitempty"`
}

// FooSpec is the desired state of a Foo.
type FooSpec struct {
	// DeploymentName names the deployment the Foo stands for.
	// +kubebuilder:validation:MinLength=1
	DeploymentName string `json:"deploymentName"`
	// Replicas is the number of replicas wanted.
	// +kubebuilder:validation:Minimum=0
	Replicas int32 `json:"replicas"`
	// HostName names the cluster-scoped Host the Foo runs on.
	// +optional
	HostName string `json:"hostName,omitempty"`
}

// FooStatus is the observed state of a Foo, written by the controller.
type FooStatus struct {
	// AvailableReplicas is how many of the wanted replicas fit on the Host:
	// 0 without a Host, otherwise min(replicas, host capacity).
	AvailableReplicas int32 `json:"availableReplicas"`
	// ObservedGeneration is the metadata.generation the status was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// FooList is a list of Foos.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type FooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Foo `json:"items"`
}

// Host is a cluster-scoped place that Foos run on. The controller counts in
// its status the Foos that name it.
//
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster
type Host struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   HostSpec   `json:"spec"`
	Status HostStatus `json:"status,omitempty"`
}

// HostSpec is the desired state of a Host.
type HostSpec struct {
	// Capacity is the most replicas one Foo can run on this Host.
	// +kubebuilder:validation:Minimum=0
	Capacity int32 `json:"capacity"`
}

// HostStatus is the observed state of a Host, written by the controller.
type HostStatus struct {
	// Foos is the number of Foos, in all namespaces, whose spec.hostName is
	// this Host.
	Foos int32 `json:"foos"`
	// ObservedGeneration is the metadata.generation the status was computed for.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// HostList is a list of Hosts.
//
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
type HostList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`

	Items []Host `json:"items"`
}
