// +k8s:deepcopy-gen=package
// +groupName=experiment.example.com

// Package v1beta1 holds the Experiment kind; its SchemeGroupVersion declares
// another group than +groupName.
package v1beta1
