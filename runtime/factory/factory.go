package factory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/listwatch"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// Type describes one API type to the runtime. Generated code declares one
// package-level Type per kind (FooType); it is plain data and safe to share.
type Type[T store.Object[T], L runtime.Object] struct {
	// Resource is the group, version and plural resource name.
	Resource schema.GroupVersionResource
	// Namespaced is false for cluster-scoped types.
	Namespaced bool
	// AddToScheme registers the type's group-version (the API package's
	// AddToScheme). The factory calls it once per group-version on a scheme of
	// its own.
	AddToScheme func(*runtime.Scheme) error
	// NewList returns an empty list to decode a LIST into.
	NewList func() L
	// Items returns the items of a list as T (usually via Pointers).
	Items func(L) []T
	// Indexers, when not nil, returns the type's declared indexes; NewInformer
	// adds them to every informer of the type.
	Indexers func() store.Indexers[T]
}

// Pointers returns pointers to the elements of items, in order, without
// copying them: list.Items stays the backing array. It is how a Type's Items
// turns a FooList's []Foo into []*Foo.
func Pointers[E any](items []E) []*E {
	if items == nil {
		return nil
	}
	out := make([]*E, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// Options configures a Factory. The zero value watches every namespace with
// no selectors and no resync.
type Options struct {
	// Namespace limits every namespaced informer to one namespace ("" = all).
	Namespace string
	// Namespaces, when not empty, limits every namespaced informer to these
	// namespaces and replaces Namespace. Each informer then runs one list and
	// watch per namespace into one cache (informer.NewMultiNamespace), so its
	// Lister, indexes and handlers cover exactly these namespaces. Duplicates
	// are ignored; a "" among them means all namespaces.
	Namespaces []string
	// LabelSelector and FieldSelector apply to every informer.
	LabelSelector string
	FieldSelector string
	// Tweak edits the ListOptions of every LIST and WATCH, after selectors.
	Tweak func(*metav1.ListOptions)
	// ResyncPeriod is the default handler resync of every informer (0 = none).
	ResyncPeriod time.Duration
	// Transform runs on every object before it is cached; it must return an
	// object of the same Go type. It runs in addition to the default removal of
	// managedFields unless KeepManagedFields is set.
	Transform func(runtime.Object) (runtime.Object, error)
	// KeepManagedFields keeps metadata.managedFields in cached objects.
	// Without it they are dropped, and a JSON REST source of an informer with
	// no Transform (here or in Types) does not even decode them
	// (wire.SkipManagedFields): the Transform, when there is one, sees them.
	KeepManagedFields bool
	// InternStrings turns on the interning of repeated strings and label
	// maps in cached objects (see informer.Options.InternStrings).
	InternStrings bool
	// Reflector holds the list/watch settings of every informer (page size,
	// WatchList, watch error handler); its Name is set per type.
	Reflector reflector.Options
	// Metrics, when not nil, is called once for every informer the factory
	// creates, with its resource, before the per-type Informer func of
	// Types: the hooks it returns are set in the informer's options (nil
	// fields leave them unset). See Hooks.
	Metrics func(gvr schema.GroupVersionResource) Hooks
	// HTTPClient, when set, is shared by the REST clients of every
	// group-version; otherwise one is built from the rest.Config.
	HTTPClient *http.Client
	// Types holds per-type overrides keyed by resource; set typed fields with
	// SetListerWatcher and SetInformerOptions.
	Types map[schema.GroupVersionResource]TypeOptions
}

// Hooks are the observers of one informer (Options.Metrics): a Prometheus
// collector (integrations/prometheus) or any other.
type Hooks struct {
	// Reflector observes its lists, watches, relists and events; with
	// several namespaces, every namespace's Reflector reports to it.
	Reflector reflector.Metrics
	// Informer observes its handlers (and turns on Registration.Backlog).
	Informer informer.Metrics
}

// TypeOptions overrides Options for one type. Nil pointers inherit the
// factory-wide value.
type TypeOptions struct {
	// Namespace, when not nil, is the type's one namespace ("" = all).
	Namespace *string
	// Namespaces, when not nil, are the type's namespaces, as
	// Options.Namespaces; it wins over Namespace.
	Namespaces    []string
	LabelSelector *string
	FieldSelector *string
	ResyncPeriod  *time.Duration
	// Transform replaces Options.Transform for this type.
	Transform func(runtime.Object) (runtime.Object, error)
	// ContentType, when not empty, is the media type the type's LIST and
	// WATCH responses are requested in, instead of the one the rest.Config
	// names (its AcceptContentTypes, else ContentType): "application/json",
	// "application/vnd.kubernetes.protobuf" (built-in types only; the default
	// for them) or "application/cbor" (servers with the CBORServingAndStorage
	// feature gate). A server that refuses protobuf or CBOR (406 Not
	// Acceptable) is asked for JSON from then on.
	ContentType string
	// ListerWatcher, when not nil, replaces the REST source: runtimetest's
	// fake Source in unit tests, or listwatch.Funcs over an existing
	// clientset. It must be either a reflector.ListerWatcher[T] for the type's
	// T (namespace and selectors are then its business), or a
	// func(namespace string) reflector.ListerWatcher[T], called once per
	// namespace the type watches ("" for all); selectors are its business.
	// SetListerWatcher and SetListerWatcherFunc set it type-safely; a wrong
	// type panics at first use.
	ListerWatcher any
	// Informer, when not nil, must be a func(*informer.Options[T]); it edits
	// the informer options last. SetInformerOptions sets it type-safely.
	Informer any
}

// SetListerWatcher makes the factory read typ from lw instead of the API
// server (for tests with runtimetest's fake source, or to reuse an existing
// clientset). Call it before the factory is created from opts.
func SetListerWatcher[T store.Object[T], L runtime.Object](opts *Options, typ Type[T, L], lw reflector.ListerWatcher[T]) {
	o := opts.typeOptions(typ.Resource)
	o.ListerWatcher = lw
	opts.Types[typ.Resource] = o
}

// SetInformerOptions registers fn to edit the informer.Options of typ's shared
// informer after the factory applied its own settings.
func SetInformerOptions[T store.Object[T], L runtime.Object](opts *Options, typ Type[T, L], fn func(*informer.Options[T])) {
	o := opts.typeOptions(typ.Resource)
	o.Informer = fn
	opts.Types[typ.Resource] = o
}

// SetListerWatcherFunc makes the factory read typ from newLW(namespace), called
// once for every namespace typ watches (see Options.Namespaces; "" for all
// namespaces), instead of the API server.
func SetListerWatcherFunc[T store.Object[T], L runtime.Object](opts *Options, typ Type[T, L], newLW func(namespace string) reflector.ListerWatcher[T]) {
	o := opts.typeOptions(typ.Resource)
	o.ListerWatcher = newLW
	opts.Types[typ.Resource] = o
}

func (o *Options) typeOptions(gvr schema.GroupVersionResource) TypeOptions {
	if o.Types == nil {
		o.Types = map[schema.GroupVersionResource]TypeOptions{}
	}
	return o.Types[gvr]
}

// Factory hands out one shared informer per resource and runs them.
// All methods are safe for concurrent use.
//
// Lifecycle: informers are created on first use (InformerFor) or by
// Register; Start runs every informer not yet running and keeps running the
// ones created later; Shutdown stops them all and waits for their goroutines.
type Factory struct {
	cfg  *rest.Config
	opts Options

	// mu guards the informers; no user code runs while it is held (see
	// InformerFor).
	mu       sync.Mutex
	entries  map[schema.GroupVersionResource]*entry
	order    []schema.GroupVersionResource // creation order, for deterministic Start
	startCtx context.Context               // ctx of the last Start, nil before
	shutdown bool
	cancels  []context.CancelFunc
	wg       sync.WaitGroup

	// cmu guards the REST clients, built on first need.
	cmu       sync.Mutex
	gvs       map[schema.GroupVersion]*groupVersion
	http      *http.Client
	httpError error
}

type groupVersion struct {
	client rest.Interface
	scheme *runtime.Scheme // the group-version's types, for codecFor
	err    error
}

// entry is one shared informer: its untyped core and its typed view (an
// *informer.Informer[T], made by the Type that created it).
type entry struct {
	shared  *informer.Shared
	view    any
	generic Generic
	started bool
}

// New returns a factory that talks to the server in cfg, decoding with
// schemes built from the types' AddToScheme (one scheme and one REST client
// per group-version, built lazily). cfg may be nil when every type used has a
// ListerWatcher in opts. New starts nothing.
func New(cfg *rest.Config, opts Options) *Factory {
	return &Factory{
		cfg:     cfg,
		opts:    opts,
		gvs:     map[schema.GroupVersion]*groupVersion{},
		entries: map[schema.GroupVersionResource]*entry{},
	}
}

// NewInformer returns a standalone (unshared, not started) informer for typ
// over lw, with typ's indexes added to opts.Indexers and opts.Reflector.Name
// defaulting to the resource name. Run it with its Run method.
func NewInformer[T store.Object[T], L runtime.Object](typ Type[T, L], lw reflector.ListerWatcher[T], opts informer.Options[T]) *informer.Informer[T] {
	return informer.New(lw, typeInformerOptions(typ, opts))
}

// NewMultiNamespaceInformer is NewInformer over several namespaces, one
// source each (see informer.NewMultiNamespace).
func NewMultiNamespaceInformer[T store.Object[T], L runtime.Object](typ Type[T, L], sources []informer.NamespaceSource[T], opts informer.Options[T]) *informer.Informer[T] {
	return informer.NewMultiNamespace(sources, typeInformerOptions(typ, opts))
}

// typeInformerOptions adds typ's indexes and name to opts.
func typeInformerOptions[T store.Object[T], L runtime.Object](typ Type[T, L], opts informer.Options[T]) informer.Options[T] {
	if typ.Indexers != nil {
		if idx := typ.Indexers(); len(idx) > 0 {
			merged := make(store.Indexers[T], len(idx)+len(opts.Indexers))
			maps.Copy(merged, idx)
			maps.Copy(merged, opts.Indexers)
			opts.Indexers = merged
		}
	}
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = resourceName(typ.Resource)
	}
	if opts.Reflector.Scope == reflector.ScopeUnknown {
		opts.Reflector.Scope = reflector.ScopeCluster
		if typ.Namespaced {
			opts.Reflector.Scope = reflector.ScopeNamespaced
		}
	}
	return opts
}

// resourceName is "foos.v1alpha1.samplecontroller.example.com" (or "pods.v1").
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource + "." + gvr.Version
	}
	return gvr.Resource + "." + gvr.Version + "." + gvr.Group
}

// InformerFor returns the factory's shared informer for typ, creating it on
// first use. An informer created after Start is started at once with the ctx
// of the last Start. It panics if the per-type ListerWatcher or Informer
// override in Options has the wrong type for T, or if two Types with different
// Go types claim the same resource: both are programming errors.
//
// No user code runs under the factory's lock: the per-type Informer and
// ListerWatcher funcs of Options.Types run before the informer is entered
// into the factory, so they may call InformerFor themselves (for another
// type). When two goroutines create the same informer at once, both build
// one, those funcs run for both, and the one entered second is dropped
// unstarted.
//
// InformerFor is a thin typed wrapper: the informer is built and kept by
// non-generic code (see typeInfo), so a package calling it compiles a few
// small functions, not the runtime.
func InformerFor[T store.Object[T], L runtime.Object](f *Factory, typ Type[T, L]) *informer.Informer[T] {
	e := f.informerFor(typ.Resource, typ.info)
	inf, ok := e.view.(*informer.Informer[T])
	if !ok {
		panic(fmt.Sprintf("factory: resource %s already has an informer of type %T, not %T", typ.Resource, e.view, inf))
	}
	return inf
}

// informerFor returns the entry of gvr, creating it from info() on first use.
func (f *Factory) informerFor(gvr schema.GroupVersionResource, info func() *typeInfo) *entry {
	f.mu.Lock()
	e, ok := f.entries[gvr]
	f.mu.Unlock()
	if ok {
		return e
	}
	ti := info()
	shared := newShared(f, ti) // user code: without f.mu
	return f.enter(gvr, &entry{
		shared:  shared,
		view:    ti.view(shared),
		generic: newGeneric(gvr, shared),
	})
}

// enter makes e the shared informer of gvr, started if the factory is, and
// returns it; if another goroutine (or a callback of e's construction)
// entered one first, it returns that one and e is dropped unstarted.
func (f *Factory) enter(gvr schema.GroupVersionResource, e *entry) *entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	if first, ok := f.entries[gvr]; ok {
		return first
	}
	f.entries[gvr] = e
	f.order = append(f.order, gvr)
	if f.startCtx != nil && !f.shutdown {
		f.startLocked(f.startCtx, gvr, e)
	}
	return e
}

// Register makes types known to ForResource (creating their shared informers,
// which Start then runs). Generated factories call it once with every type.
func Register(f *Factory, types ...Registrant) {
	for _, t := range types {
		t.register(f)
	}
}

// Registrant is implemented by every Type; it lets Register take types with
// different type parameters in one call.
type Registrant interface{ register(f *Factory) }

func (typ Type[T, L]) register(f *Factory) { f.informerFor(typ.Resource, typ.info) }

// Resources maps resources to their Types. Every generated version package
// exports one, so that turning a Type into a Registrant (which instantiates
// the whole generic informer machinery for its object type) happens in the
// package that instantiates it anyway, not once more for every type of the
// project in the factory's package — for all of k8s.io/api that one package
// took two minutes and 1.5 GB to compile.
type Resources map[schema.GroupVersionResource]Registrant

// ForResourceIn registers the Type of gvr from the first of tables that has
// it (creating its shared informer) and returns f.ForResource(gvr): the
// generated factory's ForResource, which works before the type's first use.
func ForResourceIn(f *Factory, gvr schema.GroupVersionResource, tables ...Resources) (Generic, error) {
	for _, t := range tables {
		if r, ok := t[gvr]; ok {
			Register(f, r)
			break
		}
	}
	return f.ForResource(gvr)
}

// namespaces returns the namespaces a type watches: nil for all, else a
// sorted list of distinct namespaces.
func (f *Factory) namespaces(namespaced bool, to TypeOptions) []string {
	if !namespaced {
		return nil
	}
	var list []string
	switch {
	case to.Namespaces != nil:
		list = to.Namespaces
	case to.Namespace != nil:
		list = []string{*to.Namespace}
	case len(f.opts.Namespaces) > 0:
		list = f.opts.Namespaces
	default:
		list = []string{f.opts.Namespace}
	}
	if len(list) == 0 || slices.Contains(list, metav1.NamespaceAll) {
		return nil
	}
	list = slices.Clone(list)
	slices.Sort(list)
	return slices.Compact(list)
}

// newShared builds the shared informer of a type, calling the user's funcs in
// Options.Types; f.mu must not be held.
func newShared(f *Factory, typ *typeInfo) *informer.Shared {
	to := f.opts.Types[typ.resource]
	lsel, fsel, resync := f.opts.LabelSelector, f.opts.FieldSelector, f.opts.ResyncPeriod
	namespaces := f.namespaces(typ.namespaced, to)
	if to.LabelSelector != nil {
		lsel = *to.LabelSelector
	}
	if to.FieldSelector != nil {
		fsel = *to.FieldSelector
	}
	if to.ResyncPeriod != nil {
		resync = *to.ResyncPeriod
	}

	// newLW returns the source of one namespace ("" = all).
	var newLW func(ns string) reflector.ListerWatcher[store.Obj]
	newCodecs := func(informer.Options[store.Obj]) {} // set for the REST source
	if to.ListerWatcher == nil {
		client, scheme, err := f.client(typ.resource.GroupVersion(), typ.addToScheme)
		// The codecs are chosen below, once the informer's options are final
		// (whether managedFields are dropped decides how JSON is decoded), and
		// before newLW is first called.
		var codec, fallback wire.Codec[store.Obj]
		newCodecs = func(opts informer.Options[store.Obj]) {
			if err == nil {
				skip := !opts.KeepManagedFields && opts.Transform == nil
				codec, fallback, err = codecFor(f.cfg, to.ContentType, scheme, typ.resource.GroupVersion(), typ.objectType, skip)
			}
		}
		newLW = func(ns string) reflector.ListerWatcher[store.Obj] {
			if err != nil {
				return failingLW{err: err} // the reflector's errors name the resource
			}
			return listwatch.New(client, listwatch.Options[store.Obj, runtime.Object]{
				Resource:      typ.resource.Resource,
				Namespace:     ns,
				LabelSelector: lsel,
				FieldSelector: fsel,
				Tweak:         f.opts.Tweak,
				Codec:         codec,
				FallbackCodec: fallback,
				NewList:       typ.newList,
				Items:         typ.items,
			})
		}
	} else {
		lw, perNamespace := typ.listerWatcher(to.ListerWatcher)
		if !perNamespace {
			namespaces = nil // one source: its namespaces are its business
		}
		newLW = lw
	}

	opts := informer.Options[store.Obj]{
		ResyncPeriod:      resync,
		KeepManagedFields: f.opts.KeepManagedFields,
		InternStrings:     f.opts.InternStrings,
		Reflector:         f.opts.Reflector,
	}
	opts.Reflector.Name = resourceName(typ.resource)
	if f.opts.Metrics != nil {
		h := f.opts.Metrics(typ.resource)
		if h.Reflector != nil {
			opts.Reflector.Metrics = h.Reflector
		}
		if h.Informer != nil {
			opts.Metrics = h.Informer
		}
	}
	transform := f.opts.Transform
	if to.Transform != nil {
		transform = to.Transform
	}
	if transform != nil {
		opts.Transform = typedTransform(typ, transform)
	}
	if to.Informer != nil {
		opts = typ.editOptions(to.Informer, opts)
	}
	opts = sharedOptions(typ, opts)
	newCodecs(opts)
	if len(namespaces) <= 1 {
		ns := ""
		if len(namespaces) == 1 {
			ns = namespaces[0]
		}
		return informer.NewShared(newLW(ns), typ.objectType, opts)
	}
	sources := make([]informer.NamespaceSource[store.Obj], len(namespaces))
	for n, ns := range namespaces {
		sources[n] = informer.NamespaceSource[store.Obj]{Namespace: ns, ListerWatcher: newLW(ns)}
	}
	return informer.NewSharedMultiNamespace(sources, typ.objectType, opts)
}

// sharedOptions adds typ's indexes, name and scope to opts (as
// typeInformerOptions does for a typed informer).
func sharedOptions(typ *typeInfo, opts informer.Options[store.Obj]) informer.Options[store.Obj] {
	if len(typ.indexers) > 0 {
		merged := make(store.Indexers[store.Obj], len(typ.indexers)+len(opts.Indexers))
		maps.Copy(merged, typ.indexers)
		maps.Copy(merged, opts.Indexers)
		opts.Indexers = merged
	}
	if opts.Reflector.Name == "" {
		opts.Reflector.Name = resourceName(typ.resource)
	}
	if opts.Reflector.Scope == reflector.ScopeUnknown {
		opts.Reflector.Scope = reflector.ScopeCluster
		if typ.namespaced {
			opts.Reflector.Scope = reflector.ScopeNamespaced
		}
	}
	return opts
}

// typedTransform checks that fn returns an object of typ's Go type.
func typedTransform(typ *typeInfo, fn func(runtime.Object) (runtime.Object, error)) func(store.Obj) (store.Obj, error) {
	return func(obj store.Obj) (store.Obj, error) {
		out, err := fn(obj)
		if err != nil {
			return obj, fmt.Errorf("transform %s %s: %w", resourceName(typ.resource), store.Key(obj), err)
		}
		o, ok := out.(store.Obj)
		if !ok || reflect.TypeOf(out) != typ.objectType {
			return obj, fmt.Errorf("transform %s %s: returned %T, want %v", resourceName(typ.resource), store.Key(obj), out, typ.objectType)
		}
		return o, nil
	}
}

// client returns the REST client of gv and the scheme its types are
// registered in, building both (with addToScheme) on first use, under f.cmu.
func (f *Factory) client(gv schema.GroupVersion, addToScheme func(*runtime.Scheme) error) (rest.Interface, *runtime.Scheme, error) {
	f.cmu.Lock()
	defer f.cmu.Unlock()
	if g, ok := f.gvs[gv]; ok {
		return g.client, g.scheme, g.err
	}
	scheme := runtime.NewScheme()
	g := &groupVersion{scheme: scheme}
	f.gvs[gv] = g
	switch {
	case f.cfg == nil:
		g.err = errors.New("factory has no rest.Config and no ListerWatcher was set for this type")
	case addToScheme == nil:
		g.err = fmt.Errorf("type of group-version %s has no AddToScheme", gv)
	default:
		if err := addToScheme(scheme); err != nil {
			g.err = fmt.Errorf("add %s to scheme: %w", gv, err)
			break
		}
		hc := f.opts.HTTPClient
		if hc == nil {
			if f.http == nil && f.httpError == nil {
				f.http, f.httpError = rest.HTTPClientFor(f.cfg)
			}
			if f.httpError != nil {
				g.err = fmt.Errorf("http client: %w", f.httpError)
				break
			}
			hc = f.http
		}
		g.client, g.err = listwatch.NewRESTClient(f.cfg, hc, scheme, gv)
	}
	return g.client, g.scheme, g.err
}

// failingLW reports a construction error (bad config, scheme error) through
// the informer, so WaitForCacheSync names the resource and the cause.
type failingLW struct{ err error }

func (l failingLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[store.Obj], error) {
	return nil, l.err
}
func (l failingLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, l.err
}

// Start runs every informer not yet running, each in its own goroutine with a
// context derived from ctx, and returns at once. Informers created later by
// InformerFor are started with the same ctx. Cancelling ctx stops the
// informers it started; Shutdown stops all and waits. Start after Shutdown
// does nothing.
func (f *Factory) Start(ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.shutdown {
		return
	}
	f.startCtx = ctx
	for _, gvr := range f.order {
		if e := f.entries[gvr]; !e.started {
			f.startLocked(ctx, gvr, e)
		}
	}
}

func (f *Factory) startLocked(ctx context.Context, gvr schema.GroupVersionResource, e *entry) {
	e.started = true
	ctx, cancel := context.WithCancel(ctx)
	f.cancels = append(f.cancels, cancel)
	f.wg.Go(func() {
		defer cancel()
		// The informer's name, unless Options.Types overrode it; if it
		// differs, the informer adds its own (under the same key).
		ctx := reflector.LogContext(ctx, e.shared.Name())
		logger := klog.FromContext(ctx)
		if err := e.shared.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			logger.Error(err, "informer stopped")
		}
	})
}

// WaitForCacheSync blocks until every started informer has synced (nil) or
// ctx ends. On ctx's end the error names each unsynced resource and wraps
// the informer's last error (a 403 on LIST, say) rather than only timing out.
func (f *Factory) WaitForCacheSync(ctx context.Context) error {
	f.mu.Lock()
	var syncs []informer.Syncable
	for _, gvr := range f.order {
		if e := f.entries[gvr]; e.started {
			syncs = append(syncs, e.shared)
		}
	}
	f.mu.Unlock()
	return informer.WaitForCacheSync(ctx, syncs...)
}

// Shutdown stops every informer the factory started and waits until all of
// their goroutines have exited. Safe to call more than once and concurrently
// with other methods; after it, Start and late InformerFor start nothing.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shutdown = true
	for _, c := range f.cancels {
		c()
	}
	f.cancels = nil
	f.mu.Unlock()
	f.wg.Wait()
}

// Informers returns the untyped view of every informer the factory has
// created (started or not), in creation order: for readiness checks and
// metrics collectors that cover a whole factory. Informers created later
// are not in it; call it again (at scrape time, say).
func (f *Factory) Informers() []Generic {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Generic, len(f.order))
	for n, gvr := range f.order {
		out[n] = f.entries[gvr].generic
	}
	return out
}

// ForResource returns the untyped view of the informer for gvr, which must
// have been created by InformerFor or Register.
func (f *Factory) ForResource(gvr schema.GroupVersionResource) (Generic, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.entries[gvr]; ok {
		return e.generic, nil
	}
	return nil, fmt.Errorf("no informer for resource %s", gvr)
}
