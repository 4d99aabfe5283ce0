// +k8s:deepcopy-gen=package,register
// +groupName=argoproj.io

// Package v1alpha1 is the v1alpha1 version of the workflow API.
package v1alpha1
