// +k8s:deepcopy-gen=package
// +groupName=gateway.solo.io

// Package v1 is a test API package.
package v1
