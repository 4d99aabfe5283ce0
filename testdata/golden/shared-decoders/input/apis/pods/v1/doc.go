// +k8s:deepcopy-gen=package
// +groupName=pods.example.com

// Package v1 is the v1 version of the API.
package v1
