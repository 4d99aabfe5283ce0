package factory

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/wire"
)

// codecFor returns the wire.Codec that the REST source of T (a type of
// group-version gv, registered in scheme) decodes LIST and WATCH responses
// with: the one place that chooses the encoding. Today that is JSON for
// every type.
//
// Protobuf hook: for built-in k8s.io/api types (T has a gogo-generated
// Unmarshal([]byte) error method), return the protobuf Codec here instead,
// unless the user's rest.Config asks for another content type; CRDs stay
// JSON (the server does not serve them as protobuf).
func codecFor[T any](scheme *runtime.Scheme, gv schema.GroupVersion) (wire.Codec[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%v is not a pointer to a struct", t)
	}
	obj, ok := reflect.New(t.Elem()).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("%v is not a runtime.Object", t)
	}
	kinds, _, err := scheme.ObjectKinds(obj)
	if err != nil {
		return nil, fmt.Errorf("kind of %v: %w", t, err)
	}
	for _, gvk := range kinds {
		if gvk.GroupVersion() == gv {
			return wire.NewJSON[T](gvk), nil
		}
	}
	return nil, fmt.Errorf("%v is not registered in group-version %s", t, gv)
}
