// +k8s:deepcopy-gen=package
// +groupName=things.example.com

// Package v1 is version v1 of things.example.com.
package v1
