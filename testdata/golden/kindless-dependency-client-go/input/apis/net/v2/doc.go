// +k8s:deepcopy-gen=package
// +groupName=net.example.com

// Package v2 is version v2 of net.example.com.
package v2
