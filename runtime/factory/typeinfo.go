package factory

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
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
	// jsonDecoder is wire.GeneratedDecoder(DecodeJSON), or nil.
	jsonDecoder wire.Option
	// pbDecoder is DecodeProtobuf over cache.Obj, or nil.
	pbDecoder func(*wire.ProtobufDecoder, cache.Obj)
	// view returns the typed view of a Shared of this type, or an error
	// naming both types if the Shared holds another.
	view func(*core.Shared) (any, error)
	// options puts the informer settings the factory resolved into the
	// type's informer.Options[T], one line each, applies own's Transform
	// and Informer edit (own may be nil) and what the type fixes
	// (withType), and returns the result with the func that builds the
	// informer with it (informer.New, or NewMultiNamespace: the one
	// conversion to the untyped core's options is theirs).
	options func(s informerSettings, own *override) informerOptions
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
	ti.options = func(s informerSettings, own *override) informerOptions {
		opts := informer.Options[T]{
			ResyncPeriod:      s.resyncPeriod,
			KeepManagedFields: s.keepManagedFields,
			InternStrings:     s.internStrings,
			Reflector:         s.reflector,
			Metrics:           s.metrics,
		}
		if fn := s.transform; fn != nil {
			opts.Transform = func(obj T) (T, error) {
				out, err := fn(obj)
				if err != nil {
					return obj, err
				}
				return cache.As[T](out, "transform")
			}
		}
		if own != nil && own.informer != nil {
			// own's objectType is T: overrideOf checked it.
			own.informer.(func(*informer.Options[T]))(&opts)
		}
		opts = withType(ti, typ, opts)
		return informerOptions{
			keepManagedFields: opts.KeepManagedFields,
			hasTransform:      opts.Transform != nil,
			build: func(sources []core.NamespaceSource) *core.Shared {
				if len(sources) == 1 {
					return (*core.Shared)(informer.New(untypedlw.Typed[T](sources[0].ListerWatcher), opts))
				}
				lws := make(map[string]reflector.ListerWatcher[T], len(sources))
				for _, src := range sources {
					lws[src.Namespace] = untypedlw.Typed[T](src.ListerWatcher)
				}
				return (*core.Shared)(informer.NewMultiNamespace(lws, opts))
			},
		}
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

// withType returns opts with what typ fixes: its indexes beside opts' own
// (opts' win on a name) and its Reflectors' name and scope
// (typeInfo.reflectorOptions). ti is typ.info().
func withType[T store.Object[T]](ti *typeInfo, typ Type[T], opts informer.Options[T]) informer.Options[T] {
	if typ.Indexers != nil {
		if own := typ.Indexers(); len(own) > 0 {
			// Plain loops, not maps.Copy: this is compiled per type.
			merged := make(store.Indexers[T], len(own)+len(opts.Indexers))
			for name, fn := range own {
				merged[name] = fn
			}
			for name, fn := range opts.Indexers {
				merged[name] = fn
			}
			opts.Indexers = merged
		}
	}
	opts.Reflector = ti.reflectorOptions(opts.Reflector)
	return opts
}
