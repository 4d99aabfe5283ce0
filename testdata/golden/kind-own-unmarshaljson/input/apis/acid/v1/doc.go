// +k8s:deepcopy-gen=package
// +groupName=acid.example.com

// Package v1 is a test API package.
package v1
