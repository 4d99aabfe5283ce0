// +k8s:deepcopy-gen=package
// +groupName=networking.example.io

// Package v1 is a test API package.
package v1
