// +k8s:deepcopy-gen=package
// +groupName=things.example.com

// Package v1 is the v1 version of the things API.
package v1
