package factory

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// typeInfo is a Type without type parameters: what the factory's
// non-generic code needs to build a type's shared informer (the codecs decode
// into objectType, see restsource.Codecs). The typed part (the typed view)
// is a func made by Type.info, so that the factory, the informer and the
// REST source are compiled once, in the runtime, and a generated package
// that calls InformerFor compiles only these few small funcs per package.
type typeInfo struct {
	key         typeKey
	resource    schema.GroupVersionResource
	kind        string // Type.Kind
	namespaced  bool
	addToScheme func(*runtime.Scheme) error
	objectType  reflect.Type
	indexers    cache.Indexers
	// jsonDecoder is wire.GeneratedDecoder(DecodeJSON), or nil.
	jsonDecoder wire.Option
	// pbDecoder is DecodeProtobuf over cache.Obj, or nil.
	pbDecoder func(*wire.ProtobufDecoder, cache.Obj)
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
	if dec := typ.DecodeProtobuf; dec != nil {
		// The codec hands out objects of objectType, a T, only.
		ti.pbDecoder = func(d *wire.ProtobufDecoder, o cache.Obj) { dec(d, o.(T)) }
	}
	return ti
}
