package factory

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// TestBuiltInGroupsAreKubeAPIServers: the groups BuiltInGroup names are
// exactly those of client-go's kubernetes/scheme (kube-apiserver's own
// types) plus apiextensions.k8s.io and apiregistration.k8s.io, so a new
// built-in group in a k8s.io bump fails here instead of being read as JSON.
func TestBuiltInGroupsAreKubeAPIServers(t *testing.T) {
	want := map[string]bool{"apiextensions.k8s.io": true, "apiregistration.k8s.io": true}
	for gvk := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version != runtime.APIVersionInternal && gvk.Group != "meta.k8s.io" {
			want[gvk.Group] = true
		}
	}
	for g := range want {
		if !BuiltInGroup(g) {
			t.Errorf("BuiltInGroup(%q) = false; kube-apiserver serves it", g)
		}
	}
	for g := range builtInGroups {
		if !want[g] {
			t.Errorf("BuiltInGroup(%q) = true; client-go's scheme has no such group", g)
		}
	}
}

// TestCodecForReadsCustomGroupsAsJSON: a type whose Go methods include
// protobuf's Unmarshal (a CRD type generated for gRPC too), in a group
// kube-apiserver does not serve, is read as JSON with no protobuf attempt,
// whatever the rest.Config asks for; it is protobuf only when the type asks.
func TestCodecForReadsCustomGroupsAsJSON(t *testing.T) {
	gv := schema.GroupVersion{Group: "chaos.example.com", Version: "v1"}
	s := runtime.NewScheme()
	s.AddKnownTypes(gv, &corev1.ConfigMap{}, &corev1.ConfigMapList{})
	typ := reflect.TypeFor[*corev1.ConfigMap]()
	for _, cfg := range []*rest.Config{{}, {ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf}}} {
		codec, fallback, err := codecFor(cfg, "", s, gv.WithKind(""), typ, false, nil, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mediaType(nilIfNil(codec)); got != "application/json" || fallback != nil {
			t.Errorf("config content type %q: codec %q with fallback %v, want JSON alone", cfg.ContentType, got, fallback)
		}
	}
}
