/*
Copyright The informer-gen Authors.

Licensed under the Apache License, Version 2.0.
*/

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtime "k8s.io/apimachinery/pkg/runtime"
	schema "k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the group of this package.
const GroupName = "gadgets.example.com"

// GroupVersion is the group version of this package, as a metav1.GroupVersion.
var GroupVersion = metav1.GroupVersion{Group: GroupName, Version: "v1"}

var (
	// SchemeBuilder collects the funcs that register this group version.
	SchemeBuilder      runtime.SchemeBuilder
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme registers the types of this group version.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func init() {
	localSchemeBuilder.Register(addKnownTypes)
}

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(schema.GroupVersion(GroupVersion),
		&Gadget{},
		&GadgetList{},
	)
	metav1.AddToGroupVersion(scheme, schema.GroupVersion(GroupVersion))
	return nil
}
