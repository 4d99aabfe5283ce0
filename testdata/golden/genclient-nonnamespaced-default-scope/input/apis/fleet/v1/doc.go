// +k8s:deepcopy-gen=package
// +groupName=fleet.example.com

// Package v1 is the v1 version of the fleet API.
package v1
