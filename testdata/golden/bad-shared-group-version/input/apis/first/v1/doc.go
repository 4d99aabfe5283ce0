// +k8s:deepcopy-gen=package
// +groupName=things.example.com

// Package v1 is a test API package.
package v1
