package controllerruntime

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// SharedInformers lets controller-runtime's cache run on a factory's
// informers: its NewInformer method is a cache.Options.NewInformer that, for
// every type Share registered, returns a toolscache.SharedIndexInformer view
// of the factory's shared informer of that type instead of building a
// second one. One LIST+WATCH then serves the manager's client.Reader (Get,
// List, IndexField and field-selector Lists), its Watches, and the generated
// Lister and index methods.
//
//	shared := crinformers.NewSharedInformers(f.Factory)
//	crinformers.Share(shared, samplev1.FooType)
//	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Cache: cache.Options{NewInformer: shared.NewInformer}})
//
// What the view does not take from controller-runtime: the list/watch
// source, namespaces, selectors, resync and transform of a shared type are
// the factory's (factory.Options), not the cache's; cache.Options'
// DefaultTransform or DefaultWatchErrorHandler for a shared type make
// GetInformer fail with an error saying so. Restrict namespaces with
// factory.Options.Namespaces, not with the cache's DefaultNamespaces: with
// several namespaces controller-runtime builds one informer per namespace,
// and each would be the factory's one informer (the cache's cross-namespace
// List would return every object once per namespace). One namespace, or
// all, is fine. Objects are the cache's own
// (shared, read-only), so the client's default deep copy on Get and List
// stays as important as with controller-runtime's informers.
//
// Types not registered with Share get controller-runtime's default
// informer. Safe for concurrent use; Share before the manager starts.
type SharedInformers struct {
	f      *factory.Factory
	mu     sync.Mutex
	byType map[reflect.Type]func() toolscache.SharedIndexInformer
}

// NewSharedInformers returns an empty SharedInformers over f.
func NewSharedInformers(f *factory.Factory) *SharedInformers {
	return &SharedInformers{f: f, byType: map[reflect.Type]func() toolscache.SharedIndexInformer{}}
}

// Share makes controller-runtime's cache use f's shared informer of typ
// (created on the cache's first use of T) for objects of type T.
func Share[T store.Object[T]](s *SharedInformers, typ factory.Type[T]) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byType[reflect.TypeFor[T]()] = func() toolscache.SharedIndexInformer {
		run := func(ctx context.Context) { s.f.RunInformer(ctx, typ) }
		return newSharedIndexInformer(factory.InformerFor(s.f, typ), run)
	}
}

// NewInformer is a cache.Options.NewInformer: the factory's informer for a
// shared type (lw, resync and indexers are then ignored: the factory's
// source is used and indexes are added through AddIndexers), and
// toolscache.NewSharedIndexInformer otherwise.
func (s *SharedInformers) NewInformer(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, indexers toolscache.Indexers) toolscache.SharedIndexInformer {
	s.mu.Lock()
	mk, ok := s.byType[reflect.TypeOf(obj)]
	s.mu.Unlock()
	if !ok {
		return toolscache.NewSharedIndexInformer(lw, obj, resync, indexers)
	}
	inf := mk()
	// The namespace index is built in; anything else is added.
	extra := toolscache.Indexers{}
	for name, fn := range indexers {
		if name != toolscache.NamespaceIndex {
			extra[name] = fn
		}
	}
	if len(extra) > 0 {
		if err := inf.AddIndexers(extra); err != nil {
			// NewInformer cannot fail and has no ctx; reads of the missing
			// index will fail with its name too. (controller-runtime passes
			// only the namespace index here.)
			klog.Background().Error(err, "adding the cache's indexers to a shared informer", "type", fmt.Sprintf("%T", obj))
		}
	}
	return inf
}

// sharedIndexInformer is the toolscache.SharedIndexInformer view of an
// *informer.Informer[T] owned by a factory.
type sharedIndexInformer[T store.Object[T]] struct {
	run     func(context.Context) // Factory.RunInformer of the type
	inf     *informer.Informer[T]
	stopped atomic.Bool

	mu       sync.Mutex
	indexers toolscache.Indexers // the untyped funcs added through this view, and the namespace index
}

func newSharedIndexInformer[T store.Object[T]](inf *informer.Informer[T], run func(context.Context)) *sharedIndexInformer[T] {
	return &sharedIndexInformer[T]{run: run, inf: inf, indexers: toolscache.Indexers{toolscache.NamespaceIndex: toolscache.MetaNamespaceIndexFunc}}
}

func (s *sharedIndexInformer[T]) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{})
}

func (s *sharedIndexInformer[T]) AddEventHandlerWithResyncPeriod(h toolscache.ResourceEventHandler, resync time.Duration) (toolscache.ResourceEventHandlerRegistration, error) {
	return s.AddEventHandlerWithOptions(h, toolscache.HandlerOptions{ResyncPeriod: &resync})
}

func (s *sharedIndexInformer[T]) AddEventHandlerWithOptions(h toolscache.ResourceEventHandler, opts toolscache.HandlerOptions) (toolscache.ResourceEventHandlerRegistration, error) {
	var hopts informer.HandlerOptions
	if opts.ResyncPeriod != nil {
		hopts.ResyncPeriod = *opts.ResyncPeriod
		if hopts.ResyncPeriod == 0 {
			hopts.ResyncPeriod = -1 // client-go: 0 means no resync
		}
	}
	reg, err := s.inf.AddHandler(untypedHandler[T]{h}, hopts)
	if err != nil {
		return nil, err
	}
	return registration{reg}, nil
}

func (s *sharedIndexInformer[T]) RemoveEventHandler(handle toolscache.ResourceEventHandlerRegistration) error {
	r, ok := handle.(registration)
	if !ok {
		return fmt.Errorf("informer %s: RemoveEventHandler: %T is not a registration of this informer", s.inf.Name(), handle)
	}
	return s.inf.RemoveHandler(r.reg)
}

func (s *sharedIndexInformer[T]) GetStore() toolscache.Store           { return indexerView[T]{s} }
func (s *sharedIndexInformer[T]) GetIndexer() toolscache.Indexer       { return indexerView[T]{s} }
func (s *sharedIndexInformer[T]) GetController() toolscache.Controller { return controllerView[T]{s} }

// Run is RunWithContext until stopCh is closed.
func (s *sharedIndexInformer[T]) Run(stopCh <-chan struct{}) {
	s.RunWithContext(wait.ContextForChannel(stopCh))
}

// RunWithContext runs this type's informer until ctx ends
// (Factory.RunInformer): controller-runtime's cache gives every informer a
// context of its own and cancels it on RemoveInformer or shutdown, so ending
// ctx stops and removes this informer only, and only if RunWithContext
// started it; an informer the factory's Start runs is governed by that
// Start's context and the factory's Shutdown. The factory's other informers
// are neither started nor stopped here.
func (s *sharedIndexInformer[T]) RunWithContext(ctx context.Context) {
	s.run(ctx)
	s.stopped.Store(true)
}

func (s *sharedIndexInformer[T]) HasSynced() bool { return s.inf.HasSynced() }
func (s *sharedIndexInformer[T]) HasSyncedChecker() toolscache.DoneChecker {
	return doneChecker{name: s.inf.Name(), done: s.inf.Synced()}
}
func (s *sharedIndexInformer[T]) LastSyncResourceVersion() string {
	return s.inf.LastSyncResourceVersion()
}

var errFactoryOwned = errors.New("the factory owns this informer's list/watch: set it in factory.Options")

func (s *sharedIndexInformer[T]) SetWatchErrorHandler(toolscache.WatchErrorHandler) error {
	return fmt.Errorf("informer %s: watch error handler: %w (Reflector.WatchErrorHandler)", s.inf.Name(), errFactoryOwned)
}
func (s *sharedIndexInformer[T]) SetWatchErrorHandlerWithContext(toolscache.WatchErrorHandlerWithContext) error {
	return fmt.Errorf("informer %s: watch error handler: %w (Reflector.WatchErrorHandler)", s.inf.Name(), errFactoryOwned)
}

// SetTransform accepts only nil: the factory's Transform applies.
func (s *sharedIndexInformer[T]) SetTransform(fn toolscache.TransformFunc) error {
	if fn == nil {
		return nil
	}
	return fmt.Errorf("informer %s: transform: %w (Transform; managedFields are dropped by default)", s.inf.Name(), errFactoryOwned)
}

func (s *sharedIndexInformer[T]) IsStopped() bool { return s.stopped.Load() }

// AddIndexers adds controller-runtime's untyped index funcs (IndexField's
// "field:<name>") to the typed cache.
func (s *sharedIndexInformer[T]) AddIndexers(indexers toolscache.Indexers) error {
	typed := make(store.Indexers[T], len(indexers))
	for name, fn := range indexers {
		if name == toolscache.NamespaceIndex {
			continue // built in
		}
		typed[name] = func(obj T) ([]string, error) { return fn(obj) }
	}
	if err := s.inf.AddIndexers(typed); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.indexers = maps.Clone(s.indexers)
	maps.Copy(s.indexers, indexers)
	return nil
}

type controllerView[T store.Object[T]] struct{ s *sharedIndexInformer[T] }

func (c controllerView[T]) RunWithContext(ctx context.Context)       { c.s.RunWithContext(ctx) }
func (c controllerView[T]) Run(stopCh <-chan struct{})               { c.s.Run(stopCh) }
func (c controllerView[T]) HasSynced() bool                          { return c.s.HasSynced() }
func (c controllerView[T]) HasSyncedChecker() toolscache.DoneChecker { return c.s.HasSyncedChecker() }
func (c controllerView[T]) LastSyncResourceVersion() string          { return c.s.LastSyncResourceVersion() }

type doneChecker struct {
	name string
	done <-chan struct{}
}

func (d doneChecker) Name() string          { return d.name }
func (d doneChecker) Done() <-chan struct{} { return d.done }

type registration struct{ reg *informer.Registration }

func (r registration) HasSynced() bool { return r.reg.HasSynced() }
func (r registration) HasSyncedChecker() toolscache.DoneChecker {
	return doneChecker{name: r.reg.Name(), done: r.reg.Synced()}
}

// untypedHandler feeds a client-go handler; tombstones become
// toolscache.DeletedFinalStateUnknown as client-go's informers deliver them.
type untypedHandler[T store.Object[T]] struct {
	h toolscache.ResourceEventHandler
}

func (u untypedHandler[T]) OnAdd(obj T, initial bool) { u.h.OnAdd(obj, initial) }
func (u untypedHandler[T]) OnUpdate(oldObj, newObj T) { u.h.OnUpdate(oldObj, newObj) }
func (u untypedHandler[T]) OnDelete(obj T, finalStateUnknown bool) {
	if finalStateUnknown {
		u.h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: store.Key(obj), Obj: obj})
		return
	}
	u.h.OnDelete(obj)
}

// indexerView is the read-only toolscache.Indexer view of the typed cache.
// Writes fail: the informer is the cache's one writer.
type indexerView[T store.Object[T]] struct{ s *sharedIndexInformer[T] }

var errReadOnly = errors.New("the cache of a shared informer is read-only")

func (v indexerView[T]) ix() *store.Indexer[T]       { return v.s.inf.Indexer() }
func (v indexerView[T]) Add(any) error               { return errReadOnly }
func (v indexerView[T]) Update(any) error            { return errReadOnly }
func (v indexerView[T]) Delete(any) error            { return errReadOnly }
func (v indexerView[T]) Replace([]any, string) error { return errReadOnly }
func (v indexerView[T]) Resync() error               { return nil }
func (v indexerView[T]) Bookmark(string)             {}
func (v indexerView[T]) ListKeys() []string          { return v.ix().ListKeys() }

// LastStoreSyncResourceVersion is what KEP-5647's consumers (the
// consistency store of kube-controller-manager's DaemonSet, Job and other
// controllers, k8s.io/kubernetes/pkg/controller/util/consistency) read: the
// resourceVersion the cache has applied, never ahead of what Get
// and List return (informer.Informer.LastStoreSyncResourceVersion; for a
// multi-namespace informer the oldest of its namespaces').
func (v indexerView[T]) LastStoreSyncResourceVersion() string {
	return v.s.inf.LastStoreSyncResourceVersion()
}

func (v indexerView[T]) List() []any { return untyped(v.ix().List()) }

func (v indexerView[T]) Get(obj any) (any, bool, error) {
	key, err := toolscache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return nil, false, err
	}
	return v.GetByKey(key)
}

func (v indexerView[T]) GetByKey(key string) (any, bool, error) {
	obj, ok := v.ix().Get(key)
	if !ok {
		return nil, false, nil
	}
	return obj, true, nil
}

func (v indexerView[T]) Index(indexName string, obj any) ([]any, error) {
	v.s.mu.Lock()
	fn := v.s.indexers[indexName]
	v.s.mu.Unlock()
	if fn == nil {
		return nil, fmt.Errorf("informer %s: index %q: %w", v.s.inf.Name(), indexName, store.ErrUnknownIndex)
	}
	values, err := fn(obj)
	if err != nil {
		return nil, err
	}
	var out []any
	seen := map[string]bool{}
	for _, val := range values {
		objs, err := v.ix().ByIndex(indexName, val)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if k := store.Key(o); !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
}

func (v indexerView[T]) IndexKeys(indexName, value string) ([]string, error) {
	return v.ix().IndexKeys(indexName, value)
}

func (v indexerView[T]) ListIndexFuncValues(indexName string) []string {
	return v.ix().ListIndexFuncValues(indexName)
}

func (v indexerView[T]) ByIndex(indexName, value string) ([]any, error) {
	objs, err := v.ix().ByIndex(indexName, value)
	if err != nil {
		return nil, err
	}
	return untyped(objs), nil
}

// GetIndexers returns the namespace index and the indexes added through
// this view (the typed indexes the factory declared have no untyped func).
func (v indexerView[T]) GetIndexers() toolscache.Indexers {
	v.s.mu.Lock()
	defer v.s.mu.Unlock()
	return v.s.indexers
}

func (v indexerView[T]) AddIndexers(indexers toolscache.Indexers) error {
	return v.s.AddIndexers(indexers)
}

func untyped[T any](objs []T) []any {
	out := make([]any, len(objs))
	for i, o := range objs {
		out[i] = o
	}
	return out
}
