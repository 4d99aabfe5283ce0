// +k8s:deepcopy-gen=package

// Package v1alpha1 is a test API package.
package v1alpha1
