// +k8s:deepcopy-gen=package
// +groupName=argoproj.io

// Package v1alpha1 is the v1alpha1 version of the rollouts API.
package v1alpha1
