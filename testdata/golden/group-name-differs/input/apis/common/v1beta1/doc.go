// +k8s:deepcopy-gen=package
// +groupName=common.example.com

// Package v1beta1 holds types the kinds share; it has no kind of its own.
package v1beta1
