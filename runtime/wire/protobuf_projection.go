package wire

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// NewProtobufProjection returns the Codec of media type
// "application/vnd.kubernetes.protobuf" for a projection T of the built-in
// kind gvk (a type informer-gen generates: the kind's ObjectMeta and some of
// its fields, see factory.Type.Projection): the envelopes are read as
// NewProtobuf reads them, and each object's bytes are handed to decode, the
// projection's generated decoder (factory.Type.DecodeProtobuf), which keeps
// the projected fields and skips the rest on the wire. The server encodes the
// full object; only the projection is built. T must be a pointer to a
// struct and decode not nil; anything else is an error. SkipManagedFields
// applies: each object's metadata.managedFields are skipped, not decoded.
//
// The metadata, and the maps and repeated messages the projection keeps
// (ProtobufStringMap, ProtobufMessageMap, ProtobufMessages), are decoded,
// and shared between the objects of one Codec, as NewProtobuf decodes and
// shares them: repeated strings are one string (names, UIDs and
// resourceVersions, unique to an object, are not interned), and a map
// (labels, annotations, a node selector) or a repeated message field
// (tolerations) whose entries were encoded with the same bytes as those of
// an earlier object is that object's. The objects are read-only, as those of every informer cache:
// copy one before changing it.
//
// The Codec is safe for concurrent use; it decodes one object at a time.
func NewProtobufProjection[T any](gvk schema.GroupVersionKind, decode func(*ProtobufDecoder, T), opts ...Option) (Codec[T], error) {
	c, err := resolve[T]("protobuf projection", gvk, opts)
	if err != nil {
		return nil, err
	}
	if decode == nil {
		return nil, fmt.Errorf("protobuf projection codec for %s: %v has no generated protobuf decoder", gvk, reflect.PointerTo(c.elem))
	}
	return newProtobufProjection(gvk, c.newT, decode, c.opts.SkipManagedFields, !c.opts.DistinctMaps), nil
}

func newProtobufProjection[T any](gvk schema.GroupVersionKind, newT func() T, decode func(*ProtobufDecoder, T), skipManagedFields, shareMaps bool) *protobufCodec[T] {
	// One decoder per codec, as NewProtobuf's: what it keeps for sharing
	// (interned strings, maps) is shared by the objects of this codec.
	var mu sync.Mutex
	d := &ProtobufDecoder{table: newPBTableDecoder()}
	d.table.noSharedMaps = !shareMaps
	return newProtobuf(gvk, newT, func(t T, b []byte) error {
		mu.Lock()
		defer mu.Unlock()
		d.reset(b, skipManagedFields)
		decode(d, t)
		err := d.err
		d.reset(nil, false) // not holding on to b
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
