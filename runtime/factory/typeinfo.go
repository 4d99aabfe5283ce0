package factory

import (
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/core"
	"github.com/informer-gen/informer-gen/runtime/internal/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/reflector"
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
	indexers    cache.Indexers
	// jsonDecoder is wire.GeneratedDecoder(DecodeJSON), or nil.
	jsonDecoder wire.JSONOption
	// pbDecoder is wire.GeneratedProtobufDecoder(DecodeProtobuf).
	pbDecoder wire.ProtobufProjection
	// listerWatcher converts TypeOptions.ListerWatcher; perNamespace is
	// false for a single source. It panics on a value of the wrong type.
	listerWatcher func(lw any) (newLW func(ns string) reflector.ListerWatcher[cache.Obj], perNamespace bool)
	// editOptions applies TypeOptions.Informer (a typed func) to opts. It
	// panics on a value of the wrong type.
	editOptions func(fn any, opts core.Options) core.Options
	// view returns the typed view of a Shared of this type, or an error
	// naming both types if the Shared holds another.
	view func(*core.Shared) (any, error)
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
		listerWatcher: func(lw any) (func(string) reflector.ListerWatcher[cache.Obj], bool) {
			switch lw := lw.(type) {
			case reflector.ListerWatcher[T]:
				u := untypedlw.New(lw)
				return func(string) reflector.ListerWatcher[cache.Obj] { return u }, false
			case func(string) reflector.ListerWatcher[T]:
				return func(ns string) reflector.ListerWatcher[cache.Obj] { return untypedlw.New(lw(ns)) }, true
			}
			panic(fmt.Sprintf("factory: the ListerWatcher override of %s is %T, not a reflector.ListerWatcher[%T] or a func(string) reflector.ListerWatcher[%[2]T]", typ.key(), lw, *new(T)))
		},
		editOptions: func(fn any, opts core.Options) core.Options {
			edit, ok := fn.(func(*informer.Options[T]))
			if !ok {
				panic(fmt.Sprintf("factory: the Informer override of %s is %T, not a func(*informer.Options[%T])", typ.key(), fn, *new(T)))
			}
			var typed informer.Options[T]
			core.SetOptions(&typed, opts)
			edit(&typed)
			return core.OptionsOf(typed)
		},
		view: func(s *core.Shared) (any, error) {
			if err := s.CheckType(reflect.TypeFor[T]()); err != nil {
				return nil, err
			}
			return (*informer.Informer[T])(s), nil
		},
	}
	if typ.Indexers != nil {
		ti.indexers = cache.IndexersOf(typ.Indexers())
	}
	if typ.DecodeJSON != nil {
		ti.jsonDecoder = wire.GeneratedDecoder(typ.DecodeJSON)
	}
	ti.pbDecoder = wire.GeneratedProtobufDecoder(typ.DecodeProtobuf)
	return ti
}
