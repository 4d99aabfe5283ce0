// +k8s:deepcopy-gen=package
// +groupName=infra.example.com

// Package v1 is a test API package.
package v1
