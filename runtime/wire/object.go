package wire

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// This file holds the codec constructors for a Go type known only at run
// time. NewJSON, NewProtobufFor and NewCBOR take the type from T, so code
// that calls them for each of many types instantiates (and compiles) the
// codecs once per calling package; the runtime's untyped informer cores call
// these instead, with T an interface (cache.Obj), so the codecs are compiled
// once, in the package that does (runtime/factory).

// checkObjectType returns typ's element type, or an error unless typ is a
// pointer to a struct implementing the interface T.
func checkObjectType[T any](what string, typ reflect.Type, gvk schema.GroupVersionKind) (reflect.Type, error) {
	if typ == nil || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%s codec for %s: %v is not a pointer to a struct", what, gvk, typ)
	}
	if want := reflect.TypeFor[T](); want.Kind() != reflect.Interface || !typ.Implements(want) {
		return nil, fmt.Errorf("%s codec for %s: %v does not implement %v", what, gvk, typ, want)
	}
	return typ.Elem(), nil
}

// NewJSONOf is NewJSON for objects of type typ, a pointer to a struct that
// implements the interface T: the codec hands out *typ values as T. opts are
// NewJSON's.
func NewJSONOf[T any](typ reflect.Type, gvk schema.GroupVersionKind, opts ...JSONOption) (Codec[T], error) {
	elem, err := checkObjectType[T]("json", typ, gvk)
	if err != nil {
		return nil, err
	}
	return newJSONCodec[T](elem, gvk, opts...), nil
}

// NewProtobufOf is NewProtobufFor for objects of type typ, a pointer to a
// struct that implements the interface T and has a generated protobuf
// Unmarshal method (an error says why not otherwise).
func NewProtobufOf[T any](typ reflect.Type, gvk schema.GroupVersionKind) (Codec[T], error) {
	elem, err := checkObjectType[T]("protobuf", typ, gvk)
	if err != nil {
		return nil, err
	}
	if !typ.Implements(reflect.TypeFor[interface{ Unmarshal([]byte) error }]()) {
		return nil, fmt.Errorf("protobuf codec for %s: %v has no generated protobuf Unmarshal method", gvk, typ)
	}
	return newProtobuf(gvk,
		func() T { return reflect.New(elem).Interface().(T) },
		func(t T, b []byte) error { return any(t).(interface{ Unmarshal([]byte) error }).Unmarshal(b) },
	), nil
}

// NewCBOROf is NewCBOR for objects of type typ, a pointer to a struct that
// implements the interface T and runtime.Object (not unstructured).
func NewCBOROf[T any](typ reflect.Type, gvk schema.GroupVersionKind) (Codec[T], error) {
	elem, err := checkObjectType[T]("cbor", typ, gvk)
	if err != nil {
		return nil, err
	}
	proto, ok := reflect.New(elem).Interface().(runtime.Object)
	if !ok {
		return nil, fmt.Errorf("cbor codec for %s: %v is not a runtime.Object", gvk, typ)
	}
	if _, ok := proto.(runtime.Unstructured); ok {
		return nil, fmt.Errorf("cbor codec for %s: %v is unstructured", gvk, typ)
	}
	return newCBOR[T](gvk, proto), nil
}
