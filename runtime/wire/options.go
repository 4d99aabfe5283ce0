package wire

import (
	"fmt"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
)

// An Option changes what a codec decodes (SkipManagedFields) or how
// (GeneratedDecoder). Options are made by those functions; a constructor
// given an Option that does not apply to its codec returns an error saying
// so, rather than ignoring it. The zero Option is ignored.
type Option struct {
	// set applies the option: codecopts.Options are the codec's settings,
	// some of which only the runtime sets (codecopts.Wrap).
	set func(*codecopts.Options)
}

func init() {
	codecopts.Wrap = func(set func(*codecopts.Options)) any { return Option{set} }
}

// SkipManagedFields makes the JSON codec (NewJSON), the protobuf codec
// (NewProtobuf) and the protobuf projection codec (NewProtobufProjection)
// skip every object's
// metadata.managedFields instead of decoding it: the objects they return have
// nil ManagedFields, as if they were decoded and then stripped. It is for
// consumers that drop managedFields anyway (an informer without
// KeepManagedFields): the entries are the bulk of a small object's bytes.
//
// Only the object's own metadata is affected (the managedFields of an
// embedded template's metadata are decoded as usual). For JSON, the skipped
// bytes must still be valid JSON (they are read, not decoded), and a
// managedFields that is neither an array nor null is still an error; but an
// array whose entries would not decode into ManagedFieldsEntry, an error to
// apimachinery, is not reported.
func SkipManagedFields() Option {
	return Option{func(o *codecopts.Options) { o.SkipManagedFields = true }}
}

// GeneratedDecoder makes the JSON codec (NewJSON) decode every LIST item and
// watch event object with fn, a decoder informer-gen generated for the
// codec's object type (P is that type, e.g. *v1alpha1.Foo; the generated
// package's Type vars hold it as DecodeJSON), instead of its reflective
// decoder. fn is called with a freshly allocated zero object and must decode
// exactly one JSON value into it. Framing, the envelope, kind checks,
// SkipManagedFields and errors are the codec's, unchanged. NewJSON returns an
// error naming both types if P is not the codec's object type. A nil fn (a
// generated decoder that CheckedDecoder found out of date) changes nothing.
func GeneratedDecoder[P any](fn func(*JSONDecoder, P) error) Option {
	return Option{func(o *codecopts.Options) {
		if fn == nil {
			o.JSONDecoder, o.JSONDecoderType = nil, nil
			return
		}
		o.JSONDecoderType = reflect.TypeFor[P]()
		o.JSONDecoder = func(d *JSONDecoder, obj any) error { return fn(d, obj.(P)) }
	}}
}

// codecOf is what every codec constructor resolves first: the options, and
// the Go type of the objects (elem: they are *elem) with a function making
// fresh ones as T.
type codecOf[T any] struct {
	opts codecopts.Options
	elem reflect.Type
	newT func() T
}

// resolve applies opts and finds the object type of a codec of T for gvk:
// T itself, a pointer to a struct, unless opts set an ObjectType, which must
// then be a pointer to a struct implementing the interface T. what names the
// codec in errors ("json", "protobuf", "cbor").
func resolve[T any](what string, gvk schema.GroupVersionKind, opts []Option) (codecOf[T], error) {
	var c codecOf[T]
	for _, o := range opts {
		if o.set != nil {
			o.set(&c.opts)
		}
	}
	want := reflect.TypeFor[T]()
	typ := c.opts.ObjectType
	if typ == nil {
		typ = want
	}
	if typ == nil || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return c, fmt.Errorf("%s codec for %s: %v is not a pointer to a struct", what, gvk, typ)
	}
	c.elem = typ.Elem()
	switch {
	case typ == want:
		// T is a pointer type: a new object is T without boxing it.
		elem := c.elem
		c.newT = func() T {
			p := reflect.New(elem).UnsafePointer()
			return *(*T)(unsafe.Pointer(&p))
		}
	case want.Kind() == reflect.Interface && typ.Implements(want):
		elem := c.elem
		c.newT = func() T { return reflect.New(elem).Interface().(T) }
	default:
		return c, fmt.Errorf("%s codec for %s: objects of type %v cannot be handed out as %v", what, gvk, typ, want)
	}
	if c.opts.JSONDecoder != nil && what != "json" {
		return c, fmt.Errorf("%s codec for %s: GeneratedDecoder applies to the JSON codec only", what, gvk)
	}
	if c.opts.SkipManagedFields && what != "json" && what != "protobuf" && what != "protobuf projection" {
		return c, fmt.Errorf("%s codec for %s: SkipManagedFields applies to the JSON and protobuf codecs only", what, gvk)
	}
	return c, nil
}
