package restsource

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// TestCodecsChoosesByTypeAndConfig: protobuf (falling back to JSON) for a
// built-in type unless the rest.Config or TypeOptions.ContentType says
// otherwise, JSON for a custom resource type whatever is asked, CBOR (falling
// back to JSON) only when asked, and an error for a media type we cannot
// decode.
func TestCodecsChoosesByTypeAndConfig(t *testing.T) {
	core := runtime.NewScheme()
	if err := corev1.AddToScheme(core); err != nil {
		t.Fatal(err)
	}
	custom := runtime.NewScheme()
	if err := lwt.AddToScheme(custom); err != nil {
		t.Fatal(err)
	}
	const js, pb, cb = "application/json", runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR
	for _, c := range []struct {
		name                  string
		cfg                   *rest.Config
		contentType           string
		builtin               bool
		wantCodec, wantFallbk string // "" for none
		wantErr               string
	}{
		{name: "built-in, nothing asked", cfg: &rest.Config{}, builtin: true, wantCodec: pb, wantFallbk: js},
		{name: "built-in, no config", builtin: true, wantCodec: pb, wantFallbk: js},
		{name: "built-in, config asks JSON", cfg: &rest.Config{ContentConfig: rest.ContentConfig{ContentType: js}}, builtin: true, wantCodec: js},
		{name: "built-in, accept list asks JSON first", cfg: &rest.Config{ContentConfig: rest.ContentConfig{AcceptContentTypes: "application/json, " + pb, ContentType: pb}}, builtin: true, wantCodec: js},
		{name: "built-in, config asks protobuf with parameters", cfg: &rest.Config{ContentConfig: rest.ContentConfig{ContentType: pb + ";stream=watch"}}, builtin: true, wantCodec: pb, wantFallbk: js},
		{name: "built-in, type asks CBOR over config", cfg: &rest.Config{ContentConfig: rest.ContentConfig{ContentType: js}}, contentType: cb, builtin: true, wantCodec: cb, wantFallbk: js},
		{name: "custom, nothing asked", cfg: &rest.Config{}, wantCodec: js},
		{name: "custom, config asks protobuf", cfg: &rest.Config{ContentConfig: rest.ContentConfig{ContentType: pb}}, wantCodec: js},
		{name: "custom, type asks CBOR", contentType: cb, wantCodec: cb, wantFallbk: js},
		{name: "custom, yaml", contentType: "application/yaml", wantErr: `content type "application/yaml"`},
		{name: "custom, unparsable", contentType: ";;", wantErr: `content type ";;"`},
	} {
		var codec, fallback interface{ MediaType() string }
		var err error
		if c.builtin {
			var cd, fb wire.Codec[cache.Obj]
			cd, fb, err = Codecs(c.cfg, core, typeOf(corev1.SchemeGroupVersion.WithKind(""), reflect.TypeFor[*corev1.ConfigMap]()), Request{ContentType: c.contentType})
			codec, fallback = nilIfNil(cd), nilIfNil(fb)
		} else {
			var cd, fb wire.Codec[cache.Obj]
			cd, fb, err = Codecs(c.cfg, custom, typeOf(lwt.GVR.GroupVersion().WithKind(""), reflect.TypeFor[*lwt.Widget]()), Request{ContentType: c.contentType})
			codec, fallback = nilIfNil(cd), nilIfNil(fb)
		}
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := mediaType(codec); got != c.wantCodec {
			t.Errorf("%s: codec %q, want %q", c.name, got, c.wantCodec)
		}
		if got := mediaType(fallback); got != c.wantFallbk {
			t.Errorf("%s: fallback %q, want %q", c.name, got, c.wantFallbk)
		}
	}
}

func nilIfNil[T any](c wire.Codec[T]) interface{ MediaType() string } {
	if c == nil {
		return nil
	}
	return c
}

func mediaType(c interface{ MediaType() string }) string {
	if c == nil {
		return ""
	}
	return c.MediaType()
}

// TestCodecsProjection: a projection of a built-in kind with a generated
// protobuf decoder is read as protobuf (falling back to JSON) unless JSON or
// CBOR is asked for; one without a decoder, and a projection of a custom
// resource, as JSON whatever is asked.
func TestCodecsProjection(t *testing.T) {
	core := runtime.NewScheme()
	if err := corev1.AddToScheme(core); err != nil {
		t.Fatal(err)
	}
	pb := func(d *wire.ProtobufDecoder, _ cache.Obj) {
		for d.Next() {
			d.Skip()
		}
	}
	const js, pbm, cb = "application/json", runtime.ContentTypeProtobuf, runtime.ContentTypeCBOR
	custom := lwt.GVR.GroupVersion().WithKind("Widget")
	for _, c := range []struct {
		name                  string
		contentType           string
		gvk                   schema.GroupVersionKind
		dec                   func(*wire.ProtobufDecoder, cache.Obj)
		wantCodec, wantFallbk string
	}{
		{name: "built-in, decoder, nothing asked", gvk: corev1.SchemeGroupVersion.WithKind("Pod"), dec: pb, wantCodec: pbm, wantFallbk: js},
		{name: "built-in, decoder, protobuf asked", contentType: pbm, gvk: corev1.SchemeGroupVersion.WithKind("Pod"), dec: pb, wantCodec: pbm, wantFallbk: js},
		{name: "built-in, decoder, JSON asked", contentType: js, gvk: corev1.SchemeGroupVersion.WithKind("Pod"), dec: pb, wantCodec: js},
		{name: "built-in, decoder, CBOR asked", contentType: cb, gvk: corev1.SchemeGroupVersion.WithKind("Pod"), dec: pb, wantCodec: js},
		{name: "built-in, no decoder", gvk: corev1.SchemeGroupVersion.WithKind("Pod"), wantCodec: js},
		{name: "custom resource, decoder", gvk: custom, dec: pb, wantCodec: js},
	} {
		ty := typeOf(c.gvk, reflect.TypeFor[*projectedPod]())
		ty.Projection, ty.DecodeProtobuf = true, c.dec
		cd, fb, err := Codecs(&rest.Config{}, core, ty, Request{ContentType: c.contentType, SkipManagedFields: true})
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := mediaType(nilIfNil(cd)); got != c.wantCodec {
			t.Errorf("%s: codec %q, want %q", c.name, got, c.wantCodec)
		}
		if got := mediaType(nilIfNil(fb)); got != c.wantFallbk {
			t.Errorf("%s: fallback %q, want %q", c.name, got, c.wantFallbk)
		}
	}
}

// projectedPod stands for a generated projection of Pod.
type projectedPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (p *projectedPod) DeepCopyObject() runtime.Object {
	c := *p
	p.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// typeOf is the Type of objects of Go type typ, of gvk's kind ("": the
// scheme's).
func typeOf(gvk schema.GroupVersionKind, typ reflect.Type) Type {
	return Type{Resource: gvk.GroupVersion().WithResource(""), Kind: gvk.Kind, ObjectType: typ}
}
