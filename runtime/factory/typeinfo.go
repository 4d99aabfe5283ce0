package factory

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// typeInfo is a Type without type parameters: what the factory's
// non-generic code needs to build a type's shared informer (the codecs decode
// into objectType, see codecFor). The typed parts (the typed overrides of
// Options.Types, the typed view) are funcs made by Type.info, so that the factory, the informer and the REST
// source are compiled once, in the runtime, and a generated package that
// calls InformerFor compiles only these few small funcs per package.
type typeInfo struct {
	key         typeKey
	resource    schema.GroupVersionResource
	kind        string // Type.Kind
	namespaced  bool
	addToScheme func(*runtime.Scheme) error
	objectType  reflect.Type
	indexers    store.Indexers[store.Obj]
	// jsonDecoder is wire.GeneratedDecoder(DecodeJSON), or nil.
	jsonDecoder wire.Option
	// pbDecoder is DecodeProtobuf over store.Obj, or nil.
	pbDecoder func(*wire.ProtobufDecoder, store.Obj)
	// listerWatcher converts TypeOptions.ListerWatcher; perNamespace is
	// false for a single source. It panics on a value of the wrong type.
	listerWatcher func(lw any) (newLW func(ns string) reflector.ListerWatcher[store.Obj], perNamespace bool)
	// editOptions applies TypeOptions.Informer (a typed func) to opts. It
	// panics on a value of the wrong type.
	editOptions func(fn any, opts informer.Options[store.Obj]) informer.Options[store.Obj]
	// view returns the typed view of a Shared of this type.
	view func(*informer.Shared) any
}

// info returns typ without type parameters.
func (typ Type[T]) info() *typeInfo {
	ti := &typeInfo{
		key:         typ.key(),
		resource:    typ.Resource,
		kind:        typ.Kind,
		namespaced:  typ.Namespaced,
		addToScheme: typ.AddToScheme,
		objectType:  reflect.TypeFor[T](),
		listerWatcher: func(lw any) (func(string) reflector.ListerWatcher[store.Obj], bool) {
			switch lw := lw.(type) {
			case reflector.ListerWatcher[T]:
				u := reflector.Untyped(lw)
				return func(string) reflector.ListerWatcher[store.Obj] { return u }, false
			case func(string) reflector.ListerWatcher[T]:
				return func(ns string) reflector.ListerWatcher[store.Obj] { return reflector.Untyped(lw(ns)) }, true
			}
			panic(fmt.Sprintf("factory: the ListerWatcher override of %s is %T, not a reflector.ListerWatcher[%T] or a func(string) reflector.ListerWatcher[%[2]T]", typ.key(), lw, *new(T)))
		},
		editOptions: func(fn any, opts informer.Options[store.Obj]) informer.Options[store.Obj] {
			edit, ok := fn.(func(*informer.Options[T]))
			if !ok {
				panic(fmt.Sprintf("factory: the Informer override of %s is %T, not a func(*informer.Options[%T])", typ.key(), fn, *new(T)))
			}
			typed := informer.TypedOptions[T](opts)
			edit(&typed)
			return informer.UntypedOptions(typed)
		},
		view: func(s *informer.Shared) any { return informer.View[T](s) },
	}
	if typ.Indexers != nil {
		ti.indexers = store.UntypedIndexers(typ.Indexers())
	}
	if typ.DecodeJSON != nil {
		ti.jsonDecoder = wire.GeneratedDecoder(typ.DecodeJSON)
	}
	if dec := typ.DecodeProtobuf; dec != nil {
		// The codec hands out objects of objectType, a T, only.
		ti.pbDecoder = func(d *wire.ProtobufDecoder, o store.Obj) { dec(d, o.(T)) }
	}
	return ti
}
