package wire

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ProtobufProjectionOptions tune a projection's protobuf codec.
type ProtobufProjectionOptions struct {
	// SkipManagedFields skips each object's metadata.managedFields instead
	// of decoding them, for informers that would drop them anyway (as
	// SkipManagedFields does for JSON).
	SkipManagedFields bool
}

// NewProtobufProjection returns the Codec of media type MediaTypeProtobuf
// for a projection T of the built-in kind gvk (a type informer-gen generates:
// the kind's ObjectMeta and some of its fields, see factory.Type.Projection):
// the envelopes are read as NewProtobuf reads them, and each object's bytes
// are handed to decode, the projection's generated decoder
// (factory.Type.DecodeProtobuf), which keeps the projected fields and skips
// the rest on the wire. The server encodes the full object; only the
// projection is built.
//
// The Codec is safe for concurrent use.
func NewProtobufProjection[T interface{ *E }, E any](gvk schema.GroupVersionKind, decode func(*ProtobufDecoder, T), opts ProtobufProjectionOptions) Codec[T] {
	return newProtobufProjection(gvk, func() T { return new(E) }, decode, opts)
}

// ProtobufProjection is a generated projection decoder without its type
// parameter, for NewProtobufProjectionOf; the zero value is none.
type ProtobufProjection struct {
	typ    reflect.Type
	decode func(*ProtobufDecoder, any)
}

// GeneratedProtobufDecoder wraps a generated projection decoder
// (factory.Type.DecodeProtobuf) for NewProtobufProjectionOf; nil gives the
// zero ProtobufProjection.
func GeneratedProtobufDecoder[P any](fn func(*ProtobufDecoder, P)) ProtobufProjection {
	if fn == nil {
		return ProtobufProjection{}
	}
	return ProtobufProjection{typ: reflect.TypeFor[P](), decode: func(d *ProtobufDecoder, obj any) { fn(d, obj.(P)) }}
}

// NewProtobufProjectionOf is NewProtobufProjection for objects of type typ, a
// pointer to a struct that implements the interface T, decoded by dec, which
// must decode typ (an error says why not otherwise).
func NewProtobufProjectionOf[T any](typ reflect.Type, gvk schema.GroupVersionKind, dec ProtobufProjection, opts ProtobufProjectionOptions) (Codec[T], error) {
	elem, err := checkObjectType[T]("protobuf", typ, gvk)
	if err != nil {
		return nil, err
	}
	if dec.decode == nil {
		return nil, fmt.Errorf("protobuf codec for %s: %v has no generated protobuf decoder", gvk, typ)
	}
	if dec.typ != typ {
		return nil, fmt.Errorf("protobuf codec for %s: the generated decoder decodes %v, not %v", gvk, dec.typ, typ)
	}
	return newProtobufProjection(gvk,
		func() T { return reflect.New(elem).Interface().(T) },
		func(d *ProtobufDecoder, t T) { dec.decode(d, t) }, opts), nil
}

// pbDecoders are the ProtobufDecoders of the codecs, reused from one object
// to the next.
var pbDecoders = sync.Pool{New: func() any { return new(ProtobufDecoder) }}

func newProtobufProjection[T any](gvk schema.GroupVersionKind, newT func() T, decode func(*ProtobufDecoder, T), opts ProtobufProjectionOptions) *protobufCodec[T] {
	return newProtobuf(gvk, newT, func(t T, b []byte) error {
		d := pbDecoders.Get().(*ProtobufDecoder)
		d.reset(b, opts.SkipManagedFields)
		decode(d, t)
		err := d.err
		d.reset(nil, false)
		pbDecoders.Put(d)
		return err
	})
}

// CheckedProtobufDecoder returns fn, a generated projection decoder, when
// every source type in fields still has the protobuf field numbers fn was
// generated from ("Name=N,…": the Go field Name has the protobuf tag of
// field number N), and nil otherwise: a dependency upgraded without
// regenerating, which makes the projection read as JSON. Only generated
// code calls it, in a package variable.
func CheckedProtobufDecoder[P any](fields map[reflect.Type]string, fn func(*ProtobufDecoder, P)) func(*ProtobufDecoder, P) {
	for t, list := range fields {
		if !protobufFieldsMatch(t, list) {
			return nil
		}
	}
	return fn
}

func protobufFieldsMatch(t reflect.Type, list string) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for entry := range strings.SplitSeq(list, ",") {
		name, num, ok := strings.Cut(entry, "=")
		if !ok {
			return false
		}
		f, ok := t.FieldByName(name)
		if !ok || len(f.Index) != 1 {
			return false
		}
		tag := strings.Split(f.Tag.Get("protobuf"), ",")
		if len(tag) < 2 || tag[1] != num {
			return false
		}
	}
	return true
}
