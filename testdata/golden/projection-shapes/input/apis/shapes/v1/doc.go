// +k8s:deepcopy-gen=package
// +groupName=shapes.example.com

// Package v1 is a test API package with the layouts of published CRD
// modules, for projections.
package v1
