package factory

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Generic is the untyped view of one shared informer that ForResource
// returns, for code that works on any resource (garbage collectors, quota,
// generic controllers). Typed code should use the generated accessors.
type Generic interface {
	// Resource is the group, version and resource of the informer.
	Resource() schema.GroupVersionResource
	Informer() GenericInformer
	Lister() GenericLister
}

// GenericInformer is the untyped informer of a Generic. Safe for concurrent
// use; see informer.Informer for the contract of each method.
type GenericInformer interface {
	// Name is the informer's name (its resource, unless Options.Types
	// renamed it), as in logs.
	Name() string
	// Len is the number of cached objects.
	Len() int
	// Handlers are the registrations of its handlers (informer.Handlers).
	Handlers() []*informer.Registration
	HasSynced() bool
	Synced() <-chan struct{}
	LastError() error
	LastSyncResourceVersion() string
	// AddHandler registers h, which receives the typed objects as
	// runtime.Object (always the informer's T).
	AddHandler(h informer.Handler[runtime.Object], opts informer.HandlerOptions) (*informer.Registration, error)
	RemoveHandler(r *informer.Registration) error
}

// GenericLister reads the informer's cache as runtime.Object. Returned objects
// are shared with the cache: do not mutate them.
type GenericLister interface {
	// List returns every cached object matching sel.
	List(sel labels.Selector) ([]runtime.Object, error)
	// Get returns the object with the given cache key: "name" for a
	// cluster-scoped resource, "namespace/name" for a namespaced one (as
	// client-go's GenericLister). A missing object is an error for which
	// apierrors.IsNotFound is true.
	Get(key string) (runtime.Object, error)
	// ByNamespace scopes reads to one namespace.
	ByNamespace(namespace string) GenericNamespaceLister
}

// GenericNamespaceLister reads the objects of one namespace.
type GenericNamespaceLister interface {
	List(sel labels.Selector) ([]runtime.Object, error)
	Get(name string) (runtime.Object, error)
}

type generic[T store.Object[T]] struct {
	gvr schema.GroupVersionResource
	inf *informer.Informer[T]
}

func newGeneric[T store.Object[T], L runtime.Object](typ Type[T, L], inf *informer.Informer[T]) Generic {
	return &generic[T]{gvr: typ.Resource, inf: inf}
}

func (g *generic[T]) Resource() schema.GroupVersionResource { return g.gvr }
func (g *generic[T]) Informer() GenericInformer             { return genericInformer[T]{g} }
func (g *generic[T]) Lister() GenericLister                 { return genericLister[T]{g} }

type genericInformer[T store.Object[T]] struct{ g *generic[T] }

func (i genericInformer[T]) Name() string                       { return i.g.inf.Name() }
func (i genericInformer[T]) Len() int                           { return i.g.inf.Indexer().Len() }
func (i genericInformer[T]) Handlers() []*informer.Registration { return i.g.inf.Handlers() }
func (i genericInformer[T]) HasSynced() bool                    { return i.g.inf.HasSynced() }
func (i genericInformer[T]) Synced() <-chan struct{}            { return i.g.inf.Synced() }
func (i genericInformer[T]) LastError() error                   { return i.g.inf.LastError() }
func (i genericInformer[T]) LastSyncResourceVersion() string {
	return i.g.inf.LastSyncResourceVersion()
}
func (i genericInformer[T]) RemoveHandler(r *informer.Registration) error {
	return i.g.inf.RemoveHandler(r)
}
func (i genericInformer[T]) AddHandler(h informer.Handler[runtime.Object], opts informer.HandlerOptions) (*informer.Registration, error) {
	return i.g.inf.AddHandler(untypedHandler[T]{h}, opts)
}

type untypedHandler[T store.Object[T]] struct {
	h informer.Handler[runtime.Object]
}

func (u untypedHandler[T]) OnAdd(obj T, initial bool)         { u.h.OnAdd(obj, initial) }
func (u untypedHandler[T]) OnUpdate(oldObj, newObj T)         { u.h.OnUpdate(oldObj, newObj) }
func (u untypedHandler[T]) OnDelete(obj T, finalUnknown bool) { u.h.OnDelete(obj, finalUnknown) }

// genericLister is the all-namespaces GenericLister.
type genericLister[T store.Object[T]] struct{ g *generic[T] }

func (l genericLister[T]) lister() store.Lister[T] {
	return store.NewLister(l.g.inf.Indexer(), l.g.gvr.GroupResource())
}

func (l genericLister[T]) List(sel labels.Selector) ([]runtime.Object, error) {
	if sel == nil {
		sel = labels.Everything()
	}
	items, err := l.lister().List(sel)
	return objects(items), err
}

// Get takes a cache key, as client-go's GenericLister does: "name" for
// cluster-scoped objects, "namespace/name" for namespaced ones.
func (l genericLister[T]) Get(key string) (runtime.Object, error) {
	obj, ok := l.g.inf.Indexer().Get(key)
	if !ok {
		_, name, err := store.SplitKey(key)
		if err != nil {
			name = key
		}
		return nil, apierrors.NewNotFound(l.g.gvr.GroupResource(), name)
	}
	return obj, nil
}

func (l genericLister[T]) ByNamespace(namespace string) GenericNamespaceLister {
	return genericNamespaceLister[T]{l.lister().Namespace(namespace)}
}

type genericNamespaceLister[T store.Object[T]] struct{ l store.NamespaceLister[T] }

func (l genericNamespaceLister[T]) List(sel labels.Selector) ([]runtime.Object, error) {
	if sel == nil {
		sel = labels.Everything()
	}
	items, err := l.l.List(sel)
	return objects(items), err
}

func (l genericNamespaceLister[T]) Get(name string) (runtime.Object, error) {
	obj, err := l.l.Get(name)
	if err != nil {
		return nil, err
	}
	return obj, nil
}

func objects[T store.Object[T]](items []T) []runtime.Object {
	out := make([]runtime.Object, len(items))
	for i, o := range items {
		out[i] = o
	}
	return out
}
