package apigroups

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// TestBuiltInAreKubeAPIServers: the groups BuiltIn names are
// exactly those of client-go's kubernetes/scheme (kube-apiserver's own
// types) plus apiextensions.k8s.io and apiregistration.k8s.io, so a new
// built-in group in a k8s.io bump fails here instead of being read as JSON
// (by the factory) and given a generated JSON decoder (by the generator).
func TestBuiltInAreKubeAPIServers(t *testing.T) {
	want := map[string]bool{"apiextensions.k8s.io": true, "apiregistration.k8s.io": true}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal && gvk.Group != "meta.k8s.io" {
			want[gvk.Group] = true
		}
	}
	for g := range want {
		if !BuiltIn(g) {
			t.Errorf("BuiltIn(%q) = false; kube-apiserver serves it", g)
		}
	}
	for g := range builtIn {
		if !want[g] {
			t.Errorf("BuiltIn(%q) = true; client-go's scheme has no such group", g)
		}
	}
}
