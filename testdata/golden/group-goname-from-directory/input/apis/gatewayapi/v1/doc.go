// +k8s:deepcopy-gen=package

// Package v1 is a test API package.
package v1
