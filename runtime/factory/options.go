package factory

import (
	"maps"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

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
	// fields leave them unset). See Hooks. A projection's informer
	// (Type.Projection) is called with its kind's resource too: use
	// InformerMetrics to tell them apart.
	Metrics func(gvr schema.GroupVersionResource) Hooks
	// InformerMetrics, when not nil, is Metrics keyed by the informer's
	// name instead of its resource (and replaces it): the resource's name,
	// "foos.v1alpha1.samplecontroller.example.com" ("pods.v1" in the core
	// group), and "<that>/<Projection>" for a projection's informer — the
	// name its logs, errors and GenericInformer.Name carry (unless a
	// per-type Informer func renames it afterwards), so every informer of
	// a factory gets hooks of its own.
	InformerMetrics func(informer string) Hooks
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

// TypeOptions overrides Options for one resource: for its kind's informer and
// for every projection's of it (Type.Projection) alike, except ListerWatcher
// and Informer, which are typed and belong to the kind's informer (a
// projection's are set with SetListerWatcher and SetInformerOptions and its
// Type). Nil pointers inherit the factory-wide value.
type TypeOptions struct {
	// Namespace, when not nil, is the type's one namespace ("" = all).
	Namespace *string
	// Namespaces, when not nil, are the type's namespaces, as
	// Options.Namespaces; it wins over Namespace.
	Namespaces    []string
	LabelSelector *string
	FieldSelector *string
	ResyncPeriod  *time.Duration
	// Transform replaces Options.Transform for this resource; for a
	// projection's informer it receives (and must return) the projection's
	// objects.
	Transform func(runtime.Object) (runtime.Object, error)
	// ContentType, when not empty, is the media type the type's LIST and
	// WATCH responses are requested in, instead of the one the rest.Config
	// names (its AcceptContentTypes, else ContentType): "application/json",
	// "application/vnd.kubernetes.protobuf" (built-in types only; the default
	// for them) or "application/cbor" (servers with the CBORServingAndStorage
	// feature gate). A server that refuses protobuf or CBOR (406 Not
	// Acceptable) is asked for JSON from then on. Projections are always
	// read as JSON.
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

	// projections holds the typed overrides of the resource's projections,
	// by projection name (see setTyped).
	projections map[string]typedOverrides
}

// SetListerWatcher makes the factory read typ from lw instead of the API
// server (for tests with runtimetest's fake source, or to reuse an existing
// clientset). Call it before the factory is created from opts. For a
// projection's Type it sets the projection's source only.
func SetListerWatcher[T store.Object[T]](opts *Options, typ Type[T], lw reflector.ListerWatcher[T]) {
	opts.setTyped(typ.key(), func(o *typedOverrides) { o.listerWatcher = lw })
}

// SetInformerOptions registers fn to edit the informer.Options of typ's shared
// informer after the factory applied its own settings. For a projection's
// Type it edits the projection's informer only.
func SetInformerOptions[T store.Object[T]](opts *Options, typ Type[T], fn func(*informer.Options[T])) {
	opts.setTyped(typ.key(), func(o *typedOverrides) { o.informer = fn })
}

// SetListerWatcherFunc makes the factory read typ from newLW(namespace), called
// once for every namespace typ watches (see Options.Namespaces; "" for all
// namespaces), instead of the API server. For a projection's Type it sets the
// projection's sources only.
func SetListerWatcherFunc[T store.Object[T]](opts *Options, typ Type[T], newLW func(namespace string) reflector.ListerWatcher[T]) {
	opts.setTyped(typ.key(), func(o *typedOverrides) { o.listerWatcher = newLW })
}

// typedOverrides are the overrides of TypeOptions whose type depends on the
// informer's Go type: the kind's own (TypeOptions.ListerWatcher, Informer)
// or a projection's (TypeOptions.projections).
type typedOverrides struct{ listerWatcher, informer any }

// setTyped edits the typed overrides of k in o.Types. A projection's are
// kept in a map that is copied on write, so that a TypeOptions value read
// out of o.Types before does not change under its holder.
func (o *Options) setTyped(k typeKey, edit func(*typedOverrides)) {
	if o.Types == nil {
		o.Types = map[schema.GroupVersionResource]TypeOptions{}
	}
	to := o.Types[k.resource]
	if k.projection == "" {
		t := typedOverrides{to.ListerWatcher, to.Informer}
		edit(&t)
		to.ListerWatcher, to.Informer = t.listerWatcher, t.informer
	} else {
		t := to.projections[k.projection]
		edit(&t)
		to.projections = maps.Clone(to.projections)
		if to.projections == nil {
			to.projections = map[string]typedOverrides{}
		}
		to.projections[k.projection] = t
	}
	o.Types[k.resource] = to
}

// typed returns the typed overrides of k's informer.
func (to TypeOptions) typed(k typeKey) typedOverrides {
	if k.projection == "" {
		return typedOverrides{to.ListerWatcher, to.Informer}
	}
	return to.projections[k.projection]
}
