// +k8s:deepcopy-gen=package
// +groupName=apps.other.io

// Package v1 is a test API package.
package v1
