// +k8s:deepcopy-gen=package
// +groupName=shop.example.com

// Package v1 is a test API package whose kinds share their TypeMeta and
// ObjectMeta through an embedded struct, as some API modules do.
package v1
