// +k8s:deepcopy-gen=package
// +groupName=networking.example.com

// Package v2beta1 is a test API package.
package v2beta1
