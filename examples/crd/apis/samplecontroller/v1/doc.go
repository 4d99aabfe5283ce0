// Package v1 is the v1 version of the samplecontroller.example.com API:
// a namespaced Foo that runs on a cluster-scoped Host.
//
// +k8s:deepcopy-gen=package
// +groupName=samplecontroller.example.com
// +kubebuilder:object:generate=true
package v1
