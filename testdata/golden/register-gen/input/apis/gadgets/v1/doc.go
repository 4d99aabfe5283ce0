// Package v1 holds the gadgets.example.com/v1 types. Registration is
// register-gen's (zz_generated.register.go), which declares both a
// metav1.GroupVersion and a schema.GroupVersion.
//
// +k8s:deepcopy-gen=package
// +kubebuilder:object:generate=true
// +groupName=gadgets.example.com
package v1
