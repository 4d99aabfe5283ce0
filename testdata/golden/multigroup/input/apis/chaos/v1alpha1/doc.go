// +k8s:deepcopy-gen=package
// +groupName=chaos.example.com
// +groupGoName=ChaosMesh
// Package v1alpha1 is a test API package.
package v1alpha1
