package factory

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/core"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/restsource"
	"github.com/informer-gen/informer-gen/runtime/internal/redact"
	"github.com/informer-gen/informer-gen/runtime/internal/scope"
	"github.com/informer-gen/informer-gen/runtime/internal/settings"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// How the factory builds a type's shared informer: its settings, resolved
// once by one rule (settingsFor) into one value, and from that value alone
// its sources (restsource's REST sources, or the TypeOptions'
// ListerWatcher) and the informer, all without type parameters but for the
// few typed funcs of typeInfo and override (which put the settings into the
// type's informer.Options[T] and build the informer with informer.New or
// NewMultiNamespace, so that the one conversion to the untyped core's
// options is theirs), so this is compiled once, here.

// resolved is everything one informer is built from, once Options and the
// TypeOptions that apply to it are resolved (settingsFor): the informer's
// options (the informer, its Reflectors and FIFO read them), the request
// (the REST source and its codecs read it) and the source. Nothing else of
// Options is read for an informer.
type resolved struct {
	namespaces []string // nil for all, else sorted and distinct
	// newLW is the user's source (TypeOptions.ListerWatcher), nil for the
	// REST source; perNamespace says whether it is called per namespace.
	newLW        func(namespace string) reflector.ListerWatcher[cache.Obj]
	perNamespace bool
	informer     informerOptions
	request      restsource.Request
}

// informerSettings are the informer options (informer.Options) that
// Options and TypeOptions set, resolved without type parameters;
// typeInfo.options puts each into the type's informer.Options[T].
type informerSettings struct {
	resyncPeriod      time.Duration
	keepManagedFields bool
	internStrings     bool
	reflector         reflector.Options
	// transform is Options.Transform, checked to return typ's Go type
	// (typedTransform), or nil.
	transform func(cache.Obj) (cache.Obj, error)
	metrics   informer.Metrics
}

// informerOptions is an informer's informer.Options[T], final (the type's
// own TypeOptions.Transform and Informer edit applied, then what the type
// fixes), seen without type parameters: what the REST source needs to know
// of it, and build, which builds the informer with it over sources (one
// source: its Namespace is not read; several: one per namespace, sorted and
// distinct).
type informerOptions struct {
	keepManagedFields bool
	hasTransform      bool
	build             func(sources []core.NamespaceSource) *core.Shared
}

// settingsFor resolves the configuration of typ's informer, field by field,
// by the one rule that Options and TypeOptions document: typ's own
// TypeOptions (own), then for a projection its kind's (kind; only the
// fields that do not depend on the Go type), then the factory's Options,
// then the default (the zero value: all namespaces, no selector, no
// resync, the rest.Config's content type, the REST source); then own's
// Transform and Informer edit, then what the type itself fixes (its
// indexes, name and scope): typeInfo.options. The only place that reads
// Options and Types for an informer. own and kind may be nil.
func settingsFor(opts *Options, typ *typeInfo, own, kind *override) resolved {
	var s resolved
	in := informerSettings{
		resyncPeriod:      opts.ResyncPeriod,
		keepManagedFields: opts.KeepManagedFields,
		internStrings:     opts.InternStrings,
		reflector:         opts.Reflector,
	}
	s.request = restsource.Request{
		LabelSelector: opts.LabelSelector,
		FieldSelector: opts.FieldSelector,
		Tweak:         opts.Tweak,
	}
	in.reflector.Name = typ.key.String()
	namespaces := opts.Namespaces
	// The kind's layer first, so the informer's own overwrites it.
	for _, o := range slices.Backward([]*override{own, kind}) {
		if o == nil {
			continue
		}
		if o.namespaces != nil {
			namespaces = o.namespaces
		}
		if o.labelSelector != nil {
			s.request.LabelSelector = *o.labelSelector
		}
		if o.fieldSelector != nil {
			s.request.FieldSelector = *o.fieldSelector
		}
		if o.resyncPeriod != nil {
			in.resyncPeriod = *o.resyncPeriod
		}
		if o.contentType != "" {
			s.request.ContentType = o.contentType
		}
	}
	if typ.namespaced && len(namespaces) > 0 && !slices.Contains(namespaces, metav1.NamespaceAll) {
		s.namespaces = slices.Compact(slices.Sorted(slices.Values(namespaces)))
	}
	if opts.Transform != nil {
		in.transform = typedTransform(typ, opts.Transform)
	}
	if opts.Metrics != nil {
		rm, im := opts.Metrics(typ.key.String())
		if rm != nil {
			in.reflector.Metrics = rm
		}
		in.metrics = im
	}
	if own != nil {
		s.newLW, s.perNamespace = own.newLW, own.perNamespace
	}
	s.informer = typ.options(in, own)
	// managedFields the informer drops, and no Transform reads first, need
	// not be decoded at all.
	s.request.SkipManagedFields = !s.informer.keepManagedFields && !s.informer.hasTransform
	// A Transform may write into the maps of the objects it gets: they must
	// be their own, not shared with other objects.
	s.request.DistinctMaps = s.informer.hasTransform
	return s
}

// overrideOf returns the TypeOptions of k in the factory's Options.Types
// (nil when there is none), or a set-up mistake: two of them for k, or one
// whose Go type is not objectType (a Type of another Go type for the same
// resource and projection), naming both types.
func (f *Factory) overrideOf(k typeKey, objectType reflect.Type) (*override, error) {
	found := f.overridesOf(k)
	switch {
	case len(found) > 1:
		return nil, fmt.Errorf("Options.Types has %d TypeOptions for %s, want at most one", len(found), k)
	case len(found) == 0:
		return nil, nil
	case found[0].objectType != objectType:
		return nil, fmt.Errorf("Options.Types has a TypeOptions[%v] for %s, whose informer holds %v", found[0].objectType, k, objectType)
	}
	return found[0], nil
}

// overridesOf returns the TypeOptions of k in Options.Types.
func (f *Factory) overridesOf(k typeKey) []*override {
	var found []*override
	for _, o := range f.overrides {
		if o.key == k {
			found = append(found, o)
		}
	}
	return found
}

// newShared builds the shared informer of a type, calling the user's funcs in
// Options; f.mu must not be held. A non-nil error is a set-up mistake
// (it wraps ErrSetup and names the informer): the informer's source then
// returns it once and never retries (setupErrorLW).
func newShared(f *Factory, typ *typeInfo) (*core.Shared, error) {
	own, err := f.overrideOf(typ.key, typ.objectType)
	var kind *override
	if err == nil && typ.key.projection != "" {
		// The kind's untyped fields only: its Go type is another.
		if l := f.overridesOf(typeKey{resource: typ.resource}); len(l) == 1 {
			kind = l[0]
		}
	}
	s := settingsFor(&f.opts, typ, own, kind)

	// newLW returns the source of one namespace ("" = all).
	newLW, namespaces := s.newLW, s.namespaces
	switch {
	case err != nil:
	case newLW == nil:
		newLW, err = f.clients.Sources(restsource.Type{
			Resource:       typ.resource,
			Kind:           typ.kind,
			Projection:     typ.key.projection != "",
			AddToScheme:    typ.addToScheme,
			ObjectType:     typ.objectType,
			DecodeJSON:     typ.jsonDecoder,
			DecodeProtobuf: typ.pbDecoder,
		}, s.request)
	case !s.perNamespace:
		namespaces = nil // one source: its namespaces are its business
	}
	var setupErr error
	if err != nil {
		setupErr = fmt.Errorf("%s: %w", typ.key, setupError{err})
		// One source for every namespace: the mistake is reported once.
		failing := &setupErrorLW{err: setupErr}
		newLW = func(string) reflector.ListerWatcher[cache.Obj] { return failing }
	}

	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	sources := make([]core.NamespaceSource, len(namespaces))
	for n, ns := range namespaces {
		sources[n] = core.NamespaceSource{Namespace: ns, ListerWatcher: newLW(ns)}
	}
	return s.informer.build(sources), setupErr
}

// reflectorOptions returns r with what typ fixes of it: its name (the
// resource's and projection's, typeKey.String, for logs and errors) unless r
// names it, and its scope (from the type's declaration, so that objects of
// the wrong scope are refused).
func (typ *typeInfo) reflectorOptions(r reflector.Options) reflector.Options {
	if r.Name == "" {
		r.Name = typ.key.String()
	}
	sc := scope.Cluster
	if typ.namespaced {
		sc = scope.Namespaced
	}
	return settings.WithReflector(r, settings.Reflector{Scope: sc}).(reflector.Options)
}

// typedTransform checks that fn returns an object of typ's Go type.
func typedTransform(typ *typeInfo, fn func(runtime.Object) (runtime.Object, error)) func(cache.Obj) (cache.Obj, error) {
	return func(obj cache.Obj) (cache.Obj, error) {
		out, err := fn(obj)
		if err != nil {
			// Its text may quote the object.
			return obj, fmt.Errorf("transform %s %s: %w", typ.key, store.Key(obj), redact.Withhold(err))
		}
		o, ok := out.(cache.Obj)
		if !ok || reflect.TypeOf(out) != typ.objectType {
			return obj, fmt.Errorf("transform %s %s: returned %T, want %v", typ.key, store.Key(obj), out, typ.objectType)
		}
		return o, nil
	}
}

// setupErrorLW is the source of an informer that cannot be built (no
// rest.Config, a type its scheme does not know, a projection without a
// Kind): its first List or Watch returns err, so the reflector reports it
// once (LastError, one log line); every later call waits for its ctx, since
// no retry can change the outcome. WaitForCacheSync returns err at once.
type setupErrorLW struct {
	err  error
	once sync.Once
}

// first reports whether this is the source's first call.
func (l *setupErrorLW) first() bool {
	first := false
	l.once.Do(func() { first = true })
	return first
}

func (l *setupErrorLW) List(ctx context.Context, _ metav1.ListOptions) (*reflector.ListResult[cache.Obj], error) {
	if l.first() {
		return nil, l.err
	}
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

func (l *setupErrorLW) Watch(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	if l.first() {
		return nil, l.err
	}
	<-ctx.Done()
	return nil, context.Cause(ctx)
}
