// +k8s:deepcopy-gen=package
// +groupName=samplecontroller.k8s.io

// Package v1alpha1 is the v1alpha1 version of the sample API: one namespaced
// type, Foo, as in k8s.io/sample-controller.
package v1alpha1
