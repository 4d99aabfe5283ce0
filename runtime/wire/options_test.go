package wire_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// named stands for the interface the runtime's untyped cores use (store.Obj).
type named interface{ GetName() string }

// objectType is the option the runtime's untyped core (runtime/factory)
// builds its codecs with.
func objectType(t reflect.Type) wire.Option {
	return wire.OptionOf(func(o *codecopts.Options) { o.ObjectType = t })
}

func TestCodecsOfARunTimeType(t *testing.T) {
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	cm := reflect.TypeFor[*corev1.ConfigMap]()
	js, err := wire.NewJSON[named](gvk, objectType(cm))
	if err != nil {
		t.Fatal(err)
	}
	body := `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},"items":[{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a"}}]}`
	var got []named
	lm, err := js.DecodeList(strings.NewReader(body), func(o named) error { got = append(got, o); return nil })
	if err != nil || lm.ResourceVersion != "5" || len(got) != 1 {
		t.Fatalf("DecodeList = %+v, %v, %d items", lm, err, len(got))
	}
	if c, ok := got[0].(*corev1.ConfigMap); !ok || c.Name != "a" {
		t.Errorf("item = %#v, want the *v1.ConfigMap a", got[0])
	}
	if _, err := wire.NewProtobuf[named](gvk, objectType(cm)); err != nil {
		t.Errorf("NewProtobuf: %v", err)
	}
	if _, err := wire.NewCBOR[named](gvk, objectType(cm)); err != nil {
		t.Errorf("NewCBOR: %v", err)
	}
	for _, bad := range []reflect.Type{reflect.TypeFor[corev1.ConfigMap](), reflect.TypeFor[*string]()} {
		if _, err := wire.NewJSON[named](gvk, objectType(bad)); err == nil || !strings.Contains(err.Error(), bad.String()) {
			t.Errorf("NewJSON with objects of type %v: error %v, want one naming the type", bad, err)
		}
	}
	type other interface{ Other() }
	if _, err := wire.NewJSON[other](gvk, objectType(cm)); err == nil || !strings.Contains(err.Error(), "*v1.ConfigMap") || !strings.Contains(err.Error(), "wire_test.other") {
		t.Errorf("NewJSON of objects not implementing T = %v, want an error naming both types", err)
	}
}

// TestConstructorsCheckT: every constructor refuses a T that is not a
// pointer to a struct (without the ObjectType of the untyped core), naming
// it, and an Option that does not apply to its codec.
func TestConstructorsCheckT(t *testing.T) {
	gvk := corev1.SchemeGroupVersion.WithKind("Pod")
	check := func(name string, err error, want ...string) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", name)
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not name %s", name, err, w)
			}
		}
	}
	_, err := wire.NewJSON[corev1.Pod](gvk)
	check("NewJSON[corev1.Pod]", err, "v1.Pod")
	_, err = wire.NewJSON[named](gvk)
	check("NewJSON[named]", err, "wire_test.named")
	_, err = wire.NewProtobuf[*struct{ A int }](gvk)
	check("NewProtobuf of a type without Unmarshal", err, "*struct { A int }")
	_, err = wire.NewCBOR[*corev1.Pod](gvk, wire.SkipManagedFields())
	check("NewCBOR with SkipManagedFields", err, "SkipManagedFields")
	if _, err := wire.NewProtobuf[*corev1.Pod](gvk, wire.SkipManagedFields()); err != nil {
		t.Errorf("NewProtobuf with SkipManagedFields: %v", err)
	}
	_, err = wire.NewCBOR[*corev1.Pod](gvk, wire.GeneratedDecoder(func(*wire.JSONDecoder, *corev1.Pod) error { return nil }))
	check("NewCBOR with GeneratedDecoder", err, "GeneratedDecoder")
	_, err = wire.NewProtobufProjection[*corev1.Pod](gvk, nil)
	check("NewProtobufProjection without a decoder", err, "*v1.Pod")
	if _, err := wire.NewJSON[*corev1.Pod](gvk, wire.Option{}, wire.SkipManagedFields()); err != nil {
		t.Errorf("NewJSON with a zero Option: %v", err)
	}
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
