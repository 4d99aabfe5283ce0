// +k8s:deepcopy-gen=package
// +groupName=b.example.com

// Package v1 is a test API package.
package v1
