// +k8s:deepcopy-gen=package
// +groupName=mesh.example.com

// Package v1 is a test API package laid out as Istio's: specs are
// protobuf messages with their own JSON decoding and a lock.
package v1
