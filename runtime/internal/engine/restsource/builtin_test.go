package restsource

import (
	"bytes"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/wire"
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
		codec, fallback, err := Codecs(cfg, s, typeOf(gv.WithKind(""), typ), Request{})
		if err != nil {
			t.Fatal(err)
		}
		if got := mediaType(nilIfNil(codec)); got != "application/json" || fallback != nil {
			t.Errorf("config content type %q: codec %q with fallback %v, want JSON alone", cfg.ContentType, got, fallback)
		}
	}
}

// TestCodecsDistinctMaps: a built-in kind's protobuf codec, and a
// projection's, shares a map between objects whose entries have the same
// bytes, unless distinctMaps (the factory's choice for an informer with a
// Transform, which may write into the maps it gets).
func TestCodecsDistinctMaps(t *testing.T) {
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	list := &corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
	for _, name := range []string{"a", "b", "c"} {
		list.Items = append(list.Items, corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: name, Labels: map[string]string{"app": "x", "tier": "web"}}})
	}
	var body bytes.Buffer
	if err := protobuf.NewSerializer(s, s).Encode(list, &body); err != nil {
		t.Fatal(err)
	}
	// A projection of ConfigMap keeping its metadata, as generated code
	// decodes it.
	metaOnly := func(d *wire.ProtobufDecoder, o cache.Obj) {
		p := o.(*projectedPod)
		for d.Next() {
			if d.Field() == 1 {
				if d.Message() {
					d.ObjectMeta(&p.ObjectMeta)
				}
				continue
			}
			d.Skip()
		}
	}
	for _, projection := range []bool{false, true} {
		for _, distinct := range []bool{false, true} {
			gvk, typ := corev1.SchemeGroupVersion.WithKind(""), reflect.TypeFor[*corev1.ConfigMap]()
			if projection {
				gvk, typ = corev1.SchemeGroupVersion.WithKind("ConfigMap"), reflect.TypeFor[*projectedPod]()
			}
			ty := typeOf(gvk, typ)
			ty.Projection, ty.DecodeProtobuf = projection, metaOnly
			codec, _, err := Codecs(&rest.Config{}, s, ty, Request{DistinctMaps: distinct})
			if err != nil {
				t.Fatal(err)
			}
			if got := codec.MediaType(); got != runtime.ContentTypeProtobuf {
				t.Fatalf("projection %v: codec %q, want protobuf", projection, got)
			}
			var got []map[string]string
			if _, err := codec.DecodeList(bytes.NewReader(body.Bytes()), func(o cache.Obj) error {
				got = append(got, o.(metav1.Object).GetLabels())
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if len(got) != 3 || len(got[2]) != 2 {
				t.Fatalf("projection %v: decoded labels %v, want 3 objects' two labels", projection, got)
			}
			shared := reflect.ValueOf(got[1]).UnsafePointer() == reflect.ValueOf(got[2]).UnsafePointer()
			if shared == distinct {
				t.Errorf("projection %v, distinctMaps %v: the last two objects' equal labels shared: %v", projection, distinct, shared)
			}
		}
	}
}
