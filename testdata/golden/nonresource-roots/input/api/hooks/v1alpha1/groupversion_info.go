// Package v1alpha1 holds hook request and response types only.
package v1alpha1

import "k8s.io/apimachinery/pkg/runtime/schema"

// GroupVersion identifies the hooks of this package.
var GroupVersion = schema.GroupVersion{Group: "hooks.runtime.example.com", Version: "v1alpha1"}
