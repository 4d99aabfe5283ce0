// +k8s:deepcopy-gen=package
// +groupName=deploy.example.com

// Package v1alpha1 is a test API package.
package v1alpha1
