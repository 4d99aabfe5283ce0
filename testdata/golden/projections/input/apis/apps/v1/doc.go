// +k8s:deepcopy-gen=package
// +groupName=apps.example.com

// Package v1 is a test API package with projections.
package v1
