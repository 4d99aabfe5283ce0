// Package v1 contains API Schema definitions for the fleet v1 API group.
// +k8s:deepcopy-gen=package
package v1
