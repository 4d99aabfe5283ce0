// +k8s:deepcopy-gen=package
// +groupName=trial.example.com

// Package v1beta1 holds the Trial kind.
package v1beta1
