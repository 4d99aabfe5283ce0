// +k8s:deepcopy-gen=package
// +groupName=dapr.example.com

// Package v1alpha1 holds the Component kind of dapr.example.com/v1alpha1.
package v1alpha1
