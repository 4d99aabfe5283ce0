// +k8s:deepcopy-gen=package
// +groupName=net.example.com

// Package v2alpha1 is version v2alpha1 of net.example.com.
package v2alpha1
