// +k8s:deepcopy-gen=package
// +groupName=crd.example.com

// Package v1 is a test API package.
package v1
