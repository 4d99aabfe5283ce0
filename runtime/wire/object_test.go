package wire_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/informer-gen/informer-gen/runtime/wire"
)

// named stands for the interface the runtime's untyped cores use (cache.Obj).
type named interface{ GetName() string }

func TestCodecsOfARunTimeType(t *testing.T) {
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	cm := reflect.TypeFor[*corev1.ConfigMap]()
	js, err := wire.NewJSONOf[named](cm, gvk)
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
	if _, err := wire.NewProtobufOf[named](cm, gvk); err != nil {
		t.Errorf("NewProtobufOf: %v", err)
	}
	if _, err := wire.NewCBOROf[named](cm, gvk); err != nil {
		t.Errorf("NewCBOROf: %v", err)
	}
	for _, bad := range []reflect.Type{nil, reflect.TypeFor[corev1.ConfigMap](), reflect.TypeFor[*string]()} {
		if _, err := wire.NewJSONOf[named](bad, gvk); err == nil {
			t.Errorf("NewJSONOf(%v): no error", bad)
		}
	}
	type other interface{ Other() }
	if _, err := wire.NewJSONOf[other](cm, gvk); err == nil || !strings.Contains(err.Error(), "does not implement") {
		t.Errorf("NewJSONOf of a type not implementing T = %v, want an error", err)
	}
}
