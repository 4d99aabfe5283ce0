package factory

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/restsource"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// How the factory builds a type's shared informer: its sources (a REST
// client and codec per group-version, or the user's ListerWatcher), its
// namespaces and its options, all without type parameters (typeInfo holds
// the few typed funcs), so this is compiled once, here.

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
// Options.Types; f.mu must not be held. A non-nil error is a set-up mistake
// (it wraps ErrSetup and names the informer): the informer's source then
// returns it once and never retries (setupErrorLW).
func newShared(f *Factory, typ *typeInfo) (*informer.Shared, error) {
	to := f.opts.Types[typ.resource]
	typed := to.typed(typ.key)
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

	opts := informer.Options[store.Obj]{
		ResyncPeriod:      resync,
		KeepManagedFields: f.opts.KeepManagedFields,
		InternStrings:     f.opts.InternStrings,
		Reflector:         f.opts.Reflector,
	}
	opts.Reflector.Name = typ.key.String()
	if f.opts.InformerMetrics != nil || f.opts.Metrics != nil {
		var h Hooks
		if f.opts.InformerMetrics != nil {
			h = f.opts.InformerMetrics(typ.key.String())
		} else {
			h = f.opts.Metrics(typ.resource)
		}
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
	if typed.informer != nil {
		opts = typ.editOptions(typed.informer, opts)
	}
	opts = sharedOptions(typ, opts)

	// newLW returns the source of one namespace ("" = all).
	var newLW func(ns string) reflector.ListerWatcher[store.Obj]
	var setupErr error
	if typed.listerWatcher == nil {
		var err error
		newLW, err = f.clients.Sources(restsource.Type{
			Resource:       typ.resource,
			Kind:           typ.kind,
			Projection:     typ.key.projection != "",
			AddToScheme:    typ.addToScheme,
			ObjectType:     typ.objectType,
			DecodeJSON:     typ.jsonDecoder,
			DecodeProtobuf: typ.pbDecoder,
		}, restsource.Request{
			ContentType:   to.ContentType,
			LabelSelector: lsel,
			FieldSelector: fsel,
			Tweak:         f.opts.Tweak,
			// managedFields the informer drops, and no Transform reads
			// first, need not be decoded at all.
			SkipManagedFields: !opts.KeepManagedFields && opts.Transform == nil,
		})
		if err != nil {
			setupErr = fmt.Errorf("%s: %w", typ.key, setupError{err})
			// One source for every namespace: the mistake is reported once.
			failing := &setupErrorLW{err: setupErr}
			newLW = func(string) reflector.ListerWatcher[store.Obj] { return failing }
		}
	} else {
		lw, perNamespace := typ.listerWatcher(typed.listerWatcher)
		if !perNamespace {
			namespaces = nil // one source: its namespaces are its business
		}
		newLW = lw
	}

	if len(namespaces) <= 1 {
		ns := ""
		if len(namespaces) == 1 {
			ns = namespaces[0]
		}
		return informer.NewShared(newLW(ns), typ.objectType, opts), setupErr
	}
	sources := make([]informer.NamespaceSource[store.Obj], len(namespaces))
	for n, ns := range namespaces {
		sources[n] = informer.NamespaceSource[store.Obj]{Namespace: ns, ListerWatcher: newLW(ns)}
	}
	return informer.NewSharedMultiNamespace(sources, typ.objectType, opts), setupErr
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
	opts.Reflector = reflectorDefaults(opts.Reflector, typ.key.String(), typ.namespaced)
	return opts
}

// reflectorDefaults fills in what ro leaves unset for a type: its name (the
// resource's and projection's, typeKey.String, for logs and errors) and its
// scope (from the type's declaration, so objects of the wrong scope are
// refused).
func reflectorDefaults(ro reflector.Options, name string, namespaced bool) reflector.Options {
	if ro.Name == "" {
		ro.Name = name
	}
	if ro.Scope == reflector.ScopeUnknown {
		ro.Scope = reflector.ScopeCluster
		if namespaced {
			ro.Scope = reflector.ScopeNamespaced
		}
	}
	return ro
}

// typedTransform checks that fn returns an object of typ's Go type.
func typedTransform(typ *typeInfo, fn func(runtime.Object) (runtime.Object, error)) func(store.Obj) (store.Obj, error) {
	return func(obj store.Obj) (store.Obj, error) {
		out, err := fn(obj)
		if err != nil {
			return obj, fmt.Errorf("transform %s %s: %w", typ.key, store.Key(obj), err)
		}
		o, ok := out.(store.Obj)
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

func (l *setupErrorLW) List(ctx context.Context, _ metav1.ListOptions) (*reflector.ListResult[store.Obj], error) {
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
