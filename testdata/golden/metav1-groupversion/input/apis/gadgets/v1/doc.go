// Package v1 holds the gadgets.example.com/v1 types. It declares its
// GroupVersion as a metav1.GroupVersion and no SchemeGroupVersion.
//
// +k8s:deepcopy-gen=package
// +kubebuilder:object:generate=true
// +groupName=gadgets.example.com
package v1
