// Package v1alpha1 is the old ipam API; the group is in GroupVersion only.
// +k8s:deepcopy-gen=package
package v1alpha1
