package restsource

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// TestCodecsReadsCustomGroupsAsJSON: a type whose Go methods include
// protobuf's Unmarshal (a CRD type generated for gRPC too), in a group
// kube-apiserver does not serve, is read as JSON with no protobuf attempt,
// whatever the rest.Config asks for; it is protobuf only when the type asks.
func TestCodecsReadsCustomGroupsAsJSON(t *testing.T) {
	gv := schema.GroupVersion{Group: "chaos.example.com", Version: "v1"}
	s := runtime.NewScheme()
	s.AddKnownTypes(gv, &corev1.ConfigMap{}, &corev1.ConfigMapList{})
	typ := reflect.TypeFor[*corev1.ConfigMap]()
	for _, cfg := range []*rest.Config{{}, {ContentConfig: rest.ContentConfig{ContentType: runtime.ContentTypeProtobuf}}} {
		codec, fallback, err := Codecs(cfg, "", s, gv.WithKind(""), typ, false, nil, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := mediaType(nilIfNil(codec)); got != "application/json" || fallback != nil {
			t.Errorf("config content type %q: codec %q with fallback %v, want JSON alone", cfg.ContentType, got, fallback)
		}
	}
}
