package factory

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/restsource"
	"github.com/informer-gen/informer-gen/runtime/internal/logctx"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// Type describes one API type to the runtime. Generated code declares one
// package-level Type per kind (FooType); it is plain data and safe to share.
type Type[T store.Object[T]] struct {
	// Resource is the group, version and plural resource name.
	Resource schema.GroupVersionResource
	// Namespaced is false for cluster-scoped types.
	Namespaced bool
	// AddToScheme registers the type's group-version (the API package's
	// AddToScheme). The factory calls it once per group-version and Go
	// package of the types on a scheme of its own.
	AddToScheme func(*runtime.Scheme) error
	// Indexers, when not nil, returns the type's declared indexes; NewInformer
	// adds them to every informer of the type.
	Indexers func() store.Indexers[T]
	// DecodeJSON, when not nil, is the type's generated JSON decoder
	// (informer-gen's decode.go): the JSON codec decodes objects with it
	// (wire.GeneratedDecoder) instead of its reflective decoder, with the
	// same results.
	DecodeJSON func(*wire.JSONDecoder, T) error
	// DecodeProtobuf, when not nil, is a projection's generated protobuf
	// decoder (informer-gen's decode_protobuf.go, for projections of kinds
	// with generated protobuf methods): for a built-in kind (a group kube-apiserver serves)
	// the factory then asks for protobuf, as for the kind's own informer,
	// and decodes each object straight into the projection, skipping the
	// other fields on the wire (wire.NewProtobufProjection).
	DecodeProtobuf func(*wire.ProtobufDecoder, T)
	// Projection, when not empty, says T is a projection of the resource's
	// kind: a type informer-gen generates that holds the kind's ObjectMeta and
	// some of its fields, decoded straight from the kind's JSON or protobuf (the
	// fields T lacks are skipped, never materialized). It names the projection (its
	// Go type, "FooSummary"). The factory keeps one shared informer, with its
	// own LIST and WATCH, per resource and projection; a projection's objects
	// are requested and decoded as JSON (T is registered in no scheme),
	// except for a projection of a built-in kind with DecodeProtobuf, read
	// as protobuf (falling back to JSON as the kind's own informer does).
	// ForResource and Resources tables mean
	// the kind's own informer, never a projection's.
	Projection string
	// Kind is the kind of the resource's objects on the wire ("Foo"), which
	// the JSON codec checks every object's kind against. Required with
	// Projection; otherwise, when empty, the group-version's scheme says it.
	Kind string
}

// key is what the factory keeps one shared informer per.
func (typ Type[T]) key() typeKey { return typeKey{typ.Resource, typ.Projection} }

// typeKey is a resource and a projection of it ("" for the kind itself).
type typeKey struct {
	resource   schema.GroupVersionResource
	projection string
}

// String is the informer's default name: the resource's (resourceName),
// followed by "/" and the projection for one.
func (k typeKey) String() string {
	if k.projection == "" {
		return resourceName(k.resource)
	}
	return resourceName(k.resource) + "/" + k.projection
}

// Factory hands out one shared informer per resource and runs them.
// All methods are safe for concurrent use.
//
// Lifecycle: informers are created on first use (InformerFor, or
// ForResource); Start runs every informer not yet running and keeps running the
// ones created later; Shutdown stops them all and waits for their goroutines.
type Factory struct {
	cfg  *rest.Config
	opts Options

	// mu guards the informers; no user code runs while it is held (see
	// InformerFor).
	mu       sync.Mutex
	entries  map[typeKey]*entry
	order    []typeKey       // creation order, for deterministic Start
	startCtx context.Context // ctx of the last Start, nil before
	shutdown bool
	wg       sync.WaitGroup

	// clients are the REST clients of the group-versions, built on first
	// need.
	clients *restsource.Clients
	// overrides are Options.Types without type parameters.
	overrides []*override
	// mistakes are set-up mistakes not of one informer's making (a
	// TypeOptions without a Type, a Type claimed with two Go types), under
	// mu: WaitForCacheSync returns them.
	mistakes []error
}

// entry is one shared informer: its untyped core and its typed view (an
// *informer.Informer[T], made by the Type that created it).
type entry struct {
	shared     *core.Shared
	view       any
	generic    Generic
	objectType reflect.Type // T, for RemoveInformerOf
	started    bool
	stop       context.CancelFunc // set by startLocked
	stopped    chan struct{}      // closed when its Run has returned
	// setupErr is the informer's set-up mistake (wrapping ErrSetup), if
	// any: WaitForCacheSync returns it at once.
	setupErr error
}

// New returns a factory that talks to the server in cfg, decoding with
// schemes built from the types' AddToScheme (one REST client per
// group-version and one scheme per group-version and Go package of the
// types, built lazily). cfg may be nil when every type used has
// a TypeOptions.ListerWatcher. New starts nothing. The mistakes it finds
// in opts.Types (a nil entry, a TypeOptions without Type) are set-up
// mistakes that WaitForCacheSync returns (ErrSetup).
func New(cfg *rest.Config, opts Options) *Factory {
	f := &Factory{
		cfg:     cfg,
		opts:    opts,
		clients: restsource.NewClients(cfg, opts.HTTPClient),
		entries: map[typeKey]*entry{},
	}
	for n, t := range opts.Types {
		if t == nil {
			f.mistakes = append(f.mistakes, setupError{fmt.Errorf("Options.Types[%d] is nil", n)})
			continue
		}
		o := t.override()
		if o.key.resource.Resource == "" {
			f.mistakes = append(f.mistakes, setupError{fmt.Errorf("Options.Types[%d], a TypeOptions[%v], has no Type", n, o.objectType)})
			continue
		}
		f.overrides = append(f.overrides, o)
	}
	f.opts.Types = nil // f.overrides holds them
	return f
}

// NewInformer returns a standalone informer for typ over lw: not shared,
// not started, unknown to any Factory. Run it with its Run method. typ's
// indexes are added to opts.Indexers, opts.Reflector.Name defaults to the
// resource's name, and its Reflector refuses objects of the wrong scope for
// typ (as the factory's informers do). Generated code exposes it as
// New<Kind>Informer.
//
// Use it when one informer's lifetime and source are the caller's: a unit
// test over runtimetest's fake source, or a source of one's own. For
// several namespaces in one cache, pass lw to informer.NewMultiNamespace
// instead, or use the factory (Options.Namespaces).
func NewInformer[T store.Object[T]](typ Type[T], lw reflector.ListerWatcher[T], opts informer.Options[T]) *informer.Informer[T] {
	return informer.New(lw, withType(typ.info(), typ, opts))
}

// resourceName is "foos.v1alpha1.samplecontroller.example.com" (or "pods.v1").
func resourceName(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return gvr.Resource + "." + gvr.Version
	}
	return gvr.Resource + "." + gvr.Version + "." + gvr.Group
}

// InformerFor returns the factory's shared informer for typ, creating it on
// first use (one per resource, and one per projection of it: see
// Type.Projection). An informer created after Start is started at once with
// the ctx of the last Start. Generated code exposes it as the accessor
// factory.<Group>().<Version>().<Plural>().Informer().
//
// Use it (through the generated accessors) for a controller's informers:
// shared by every caller, configured by Options, started by Start, synced
// by WaitForCacheSync, stopped by Shutdown.
//
// If another Type with a different Go type already holds typ's resource
// and projection, InformerFor does not panic: it returns a new informer of
// typ that is never started, and WaitForCacheSync returns a set-up mistake
// (ErrSetup) naming both Go types.
//
// No user code runs under the factory's lock: the funcs of Options and
// TypeOptions run before the informer is entered into the factory, so they
// may call InformerFor themselves (for another type). When two goroutines
// create the same informer at once, both build one, those funcs run for
// both, and the one entered second is dropped unstarted.
//
// InformerFor is a thin typed wrapper: the informer is built and kept by
// non-generic code (see typeInfo), so a package calling it compiles a few
// small functions, not the runtime.
func InformerFor[T store.Object[T]](f *Factory, typ Type[T]) *informer.Informer[T] {
	e := f.informerFor(typ.key(), typ.info)
	if inf, ok := e.view.(*informer.Informer[T]); ok {
		return inf
	}
	err := fmt.Errorf("%s: %w", typ.key(), setupError{fmt.Errorf("claimed by two Types of different Go types, %v and %v", e.objectType, reflect.TypeFor[T]())})
	f.mu.Lock()
	f.mistakes = append(f.mistakes, err)
	f.mu.Unlock()
	return (*informer.Informer[T])(core.NewShared(&setupErrorLW{err: err}, reflect.TypeFor[T](), core.Options{}))
}

// informerFor returns the entry of k, creating it from info() on first use.
func (f *Factory) informerFor(k typeKey, info func() *typeInfo) *entry {
	f.mu.Lock()
	e, ok := f.entries[k]
	f.mu.Unlock()
	if ok {
		return e
	}
	ti := info()
	shared, setupErr := newShared(f, ti) // user code: without f.mu
	view, err := ti.view(shared)
	if err != nil {
		panic(fmt.Sprintf("factory: %s: %v", k, err)) // a Type whose info is not its own: a bug here
	}
	return f.enter(k, &entry{
		shared:     shared,
		view:       view,
		generic:    newGeneric(k.resource, shared),
		objectType: ti.objectType,
		setupErr:   setupErr,
	})
}

// enter makes e the shared informer of k, started if the factory is, and
// returns it; if another goroutine (or a callback of e's construction)
// entered one first, it returns that one and e is dropped unstarted.
func (f *Factory) enter(k typeKey, e *entry) *entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	if first, ok := f.entries[k]; ok {
		return first
	}
	f.entries[k] = e
	f.order = append(f.order, k)
	if f.startCtx != nil && !f.shutdown {
		f.startLocked(f.startCtx, e)
	}
	return e
}

// AnyType is a Type of any Go type: the values of Resources, and what
// Factory.RemoveInformer and RunInformer take. Only Type implements it.
type AnyType interface {
	key() typeKey
	info() *typeInfo
}

// Resources maps resources to their Types. Every generated version package
// exports one, so that turning a Type into an AnyType (which instantiates
// the whole generic informer machinery for its object type) happens in the
// package that instantiates it anyway, not once more for every type of the
// project in the factory's package — for all of k8s.io/api that one package
// took two minutes and 1.5 GB to compile.
type Resources map[schema.GroupVersionResource]AnyType

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
	for _, k := range f.order {
		if e := f.entries[k]; !e.started {
			f.startLocked(ctx, e)
		}
	}
}

func (f *Factory) startLocked(ctx context.Context, e *entry) {
	e.started = true
	ctx, cancel := context.WithCancel(ctx)
	e.stop, e.stopped = cancel, make(chan struct{})
	f.wg.Go(func() {
		defer close(e.stopped)
		defer cancel()
		// The informer's name, unless Options.Types overrode it; if it
		// differs, the informer adds its own (under the same key).
		ctx := logctx.With(ctx, e.shared.Name())
		logger := klog.FromContext(ctx)
		if err := e.shared.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			logger.Error(err, "informer stopped")
		}
	})
}

// WaitForCacheSync blocks until every started informer has synced (nil) or
// ctx ends. On ctx's end the error names each unsynced resource and wraps
// the informer's last error (a 403 on LIST, say) rather than only timing out.
//
// A set-up mistake that no retry can fix (see ErrSetup) is returned at once,
// without waiting for ctx or for the other informers: one error naming every
// started informer that has one, for which errors.Is(err, ErrSetup) holds.
func (f *Factory) WaitForCacheSync(ctx context.Context) error {
	f.mu.Lock()
	var syncs []informer.Syncable
	setup := slices.Clone(setupErrors(f.mistakes))
	for _, k := range f.order {
		e := f.entries[k]
		switch {
		case !e.started:
		case e.setupErr != nil:
			setup = append(setup, e.setupErr)
		default:
			syncs = append(syncs, e.shared)
		}
	}
	f.mu.Unlock()
	if len(setup) > 0 {
		return setup
	}
	return informer.WaitForCacheSync(ctx, syncs...)
}

// ErrSetup is wrapped by the error of an informer the factory cannot build,
// a mistake in the program that no retry can fix: no rest.Config and no
// ListerWatcher for the type, a type its group-version's AddToScheme does
// not register (or no AddToScheme), a projection without Type.Kind, an
// unknown TypeOptions.ContentType. Such an informer tries once (its
// LastError and one log line report the mistake) and then waits for its
// ctx; Factory.WaitForCacheSync returns the mistake at once.
var ErrSetup = errors.New("informer set-up mistake (no retry can fix it)")

// setupError marks its cause as a set-up mistake for errors.Is(ErrSetup)
// without changing its message.
type setupError struct{ err error }

func (e setupError) Error() string   { return e.err.Error() }
func (e setupError) Unwrap() []error { return []error{ErrSetup, e.err} }

// setupErrors is WaitForCacheSync's error for set-up mistakes, each already
// naming its informer.
type setupErrors []error

func (e setupErrors) Error() string {
	msgs := make([]string, len(e))
	for n, err := range e {
		msgs[n] = err.Error()
	}
	return "caches cannot sync, set-up mistake (no retry can fix it): " + strings.Join(msgs, "; ")
}

func (e setupErrors) Unwrap() []error { return e }

// Shutdown stops every informer the factory started and waits until all of
// their goroutines have exited. Safe to call more than once and concurrently
// with other methods; after it, Start and late InformerFor start nothing.
func (f *Factory) Shutdown() {
	f.mu.Lock()
	f.shutdown = true
	for _, e := range f.entries {
		if e.stop != nil {
			e.stop()
		}
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// Informers returns the untyped view of every informer the factory has
// created (started or not), projections' included, in creation order: for
// readiness checks and metrics collectors that cover a whole factory.
// Informers created later are not in it; call it again (at scrape time, say).
func (f *Factory) Informers() []Generic {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Generic, len(f.order))
	for n, k := range f.order {
		out[n] = f.entries[k].generic
	}
	return out
}

// ForResource returns the untyped view of the informer for gvr (of its
// kind, not of a projection). When the factory has none yet, it creates it
// from the Type of the first of tables that has gvr (the generated version
// packages' Resources: the generated ForResource passes them all, so it
// works before the type's first typed use); it fails for a resource no
// table has and no InformerFor created.
func (f *Factory) ForResource(gvr schema.GroupVersionResource, tables ...Resources) (Generic, error) {
	k := typeKey{resource: gvr}
	for _, t := range tables {
		if typ, ok := t[gvr]; ok {
			return f.informerFor(k, typ.info).generic, nil
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if e, ok := f.entries[k]; ok {
		return e.generic, nil
	}
	return nil, fmt.Errorf("no informer for resource %s", gvr)
}
