// Package codecopts holds the options of runtime/wire's codecs: a wire.Option
// sets some of Options. It is internal so that one option stays out of the
// public API: ObjectType, with which the runtime's untyped informer core
// (runtime/factory) builds the codecs of a Go type known only at run time,
// handing its objects out as an interface, so that the codecs are compiled
// once, in the runtime, rather than once per generated package. Users build
// codecs of their own T with wire.NewJSON[T] and the like, and set the other
// fields through wire.SkipManagedFields and wire.GeneratedDecoder.
package codecopts

import "reflect"

// Options are what the Options given to a runtime/wire codec constructor
// set, in order. The zero value is the default codec of T.
type Options struct {
	// SkipManagedFields is wire.SkipManagedFields: the JSON and protobuf
	// projection codecs skip each object's metadata.managedFields.
	SkipManagedFields bool
	// JSONDecoder is wire.GeneratedDecoder's decoder, a
	// func(*wire.JSONDecoder, any) error (package wire cannot be named here),
	// and JSONDecoderType the object type it decodes; both nil when none.
	JSONDecoder     any
	JSONDecoderType reflect.Type
	// ObjectType, when not nil, is the Go type of the objects (a pointer to
	// a struct), which the codec hands out as T, an interface ObjectType
	// implements; a constructor reports any other combination as an error
	// naming both types. When nil, T itself is the object type.
	ObjectType reflect.Type
	// DistinctMaps stops the protobuf codecs of a built-in kind and of its
	// projections from sharing a map or a sub-object (a pointed-to message,
	// a repeated field's slice) between objects whose bytes for it were
	// the same (strings are still interned: they are immutable). The
	// factory sets it for an informer with a Transform, which may write
	// into the objects it gets.
	DistinctMaps bool
	// FakeTypeMeta makes the JSON codec read what clientsetconfig's
	// transport over client-go's fake clientsets sends: LIST items and watch
	// event objects as the test gave them to the fake, whose TypeMeta (often
	// none) they keep, unchecked, as client-go's informers over a fake get
	// the fake's objects themselves, not decoded ones. The fake's typed
	// clients return the right Go type by construction.
	FakeTypeMeta bool
}

// Wrap returns a wire.Option (held in an any: this package is below wire
// and cannot name it) that applies set: how the runtime's engines set the
// fields users do not (ObjectType, DistinctMaps, FakeTypeMeta). Package wire
// sets it at init.
var Wrap func(set func(*Options)) any
