package factory

import (
	"net/http"
	"reflect"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/engine/untypedlw"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Options configures a Factory: every informer it builds, unless a
// TypeOptions in Types overrides a setting for one type. The zero value
// watches every namespace with no selectors and no resync, and reads every
// type from the API server.
//
// How the settings of one informer are found is one rule, applied field by
// field (see TypeOptions): the type's own TypeOptions, then (for a
// projection, Type.Projection) its kind's TypeOptions, then these Options,
// then the default.
type Options struct {
	// Namespaces limits every namespaced informer to these namespaces: one
	// list and watch per namespace into one cache, so its Lister, indexes
	// and handlers cover exactly these namespaces. Empty, or holding "",
	// means all namespaces (one list and watch). Duplicates are ignored.
	Namespaces []string
	// LabelSelector and FieldSelector are set on every LIST and WATCH.
	LabelSelector string
	FieldSelector string
	// Tweak edits the ListOptions of every LIST and WATCH, after selectors
	// (upstream's TweakListOptionsFunc).
	Tweak func(*metav1.ListOptions)
	// ResyncPeriod is every informer's default handler resync (0 = none).
	ResyncPeriod time.Duration
	// Transform runs on every object before it is cached; it must return an
	// object of the same Go type (another is an error naming both types,
	// reported as the informer's LastError). It runs in addition to the
	// default removal of managedFields unless KeepManagedFields is set.
	Transform func(runtime.Object) (runtime.Object, error)
	// KeepManagedFields keeps metadata.managedFields in cached objects.
	// Without it they are dropped, and an informer with no Transform does
	// not even decode them (a Transform, when there is one, sees them).
	KeepManagedFields bool
	// InternStrings turns on the interning of repeated strings and label
	// maps in cached objects (see informer.Options.InternStrings).
	InternStrings bool
	// Reflector holds the list/watch settings of every informer (page size,
	// WatchList, watch error handler); its Name defaults to the informer's
	// name.
	Reflector reflector.Options
	// Metrics, when not nil, is called once for every informer the factory
	// builds, with the informer's name: its resource's
	// ("foos.v1alpha1.samplecontroller.example.com", "pods.v1" in the core
	// group), followed by "/<Projection>" for a projection's informer — the
	// name its logs, errors and GenericInformer.Name carry. It returns the
	// informer's observers (a Prometheus collector's, integrations/prometheus,
	// or any other): the Reflector's (with several namespaces, every
	// namespace's Reflector reports to it) and the informer's (which turns
	// on Registration.Backlog). They are set in the informer's options
	// (nil leaves one unset), before TypeOptions.Informer edits them.
	Metrics func(name string) (reflector.Metrics, informer.Metrics)
	// HTTPClient, when set, is shared by the REST clients of every
	// group-version; otherwise one is built from the rest.Config.
	HTTPClient *http.Client
	// Types overrides settings for single types: TypeOptions values, at
	// most one per Type (two for one Type make its informer fail with
	// ErrSetup).
	Types []TypeOverride
}

// TypeOptions overrides the factory's Options for the informer of one Type
// (the kind's, or a projection's). Its type parameter is the Type's, so an
// override of the wrong Go type does not compile.
//
// The rule, field by field: a field set here wins; a field left unset
// (nil, or "" for ContentType) takes the value of the kind's TypeOptions
// when Type is a projection and its kind has one; else the factory's
// Options; else the default. The typed fields (Transform, ListerWatcher,
// Informer) are never taken from the kind's TypeOptions, whose funcs take
// another Go type; an unset Transform falls back to Options.Transform.
type TypeOptions[T store.Object[T]] struct {
	// Type is the type whose informer these options are for. Required.
	Type Type[T]
	// Namespaces, when not nil, replaces Options.Namespaces for this type
	// (empty or holding "": all namespaces).
	Namespaces []string
	// LabelSelector and FieldSelector, when not nil, replace the
	// factory-wide selectors ("" removes one).
	LabelSelector *string
	FieldSelector *string
	// ResyncPeriod, when not nil, replaces Options.ResyncPeriod.
	ResyncPeriod *time.Duration
	// ContentType, when not empty, is the media type the type's LIST and
	// WATCH responses are requested in, instead of the one the rest.Config
	// names (its AcceptContentTypes, else ContentType): "application/json",
	// "application/vnd.kubernetes.protobuf" (built-in kinds and their
	// projections with a generated protobuf decoder; the default for them)
	// or "application/cbor" (servers with the CBORServingAndStorage feature
	// gate; a projection asks for JSON instead). A server that refuses
	// protobuf or CBOR (406 Not Acceptable) is asked for JSON from then on.
	// Another media type makes the informer fail with ErrSetup.
	ContentType string
	// Transform, when not nil, replaces Options.Transform for this type.
	Transform func(T) (T, error)
	// ListerWatcher, when not nil, replaces the REST source: runtimetest's
	// fake Source in unit tests, or listwatch.Funcs over an existing
	// clientset. It is the type's one source, whatever namespaces it would
	// watch (namespaces and selectors are then its business), and is used
	// again when the informer is rebuilt after RemoveInformer.
	ListerWatcher reflector.ListerWatcher[T]
	// Informer, when not nil, edits the informer's options last, after the
	// factory applied every other setting.
	Informer func(*informer.Options[T])

	// perNamespace, when not nil, is called once per namespace the informer
	// watches ("" for all) instead of ListerWatcher: for the factory's own
	// tests of several namespaces without a server (export_test.go).
	perNamespace func(namespace string) reflector.ListerWatcher[T]
}

// TypeOverride is a TypeOptions of any Go type, for Options.Types; only
// TypeOptions implements it.
type TypeOverride interface {
	override() *override
}

// override is a TypeOptions without type parameters: what the factory's
// non-generic code merges (settingsFor).
type override struct {
	key           typeKey
	objectType    reflect.Type
	namespaces    []string
	labelSelector *string
	fieldSelector *string
	resyncPeriod  *time.Duration
	contentType   string
	// newLW returns the source of one namespace; perNamespace says whether
	// it is called per namespace (else once, with "").
	newLW        func(namespace string) reflector.ListerWatcher[cache.Obj]
	perNamespace bool
	// informer, when not nil, is a func(*informer.Options[T]) of the
	// override's T (objectType): it sets TypeOptions.Transform, if any, then
	// calls TypeOptions.Informer, if any. typeInfo.options calls it on the
	// informer's options as the factory resolved them.
	informer any
}

func (o TypeOptions[T]) override() *override {
	ov := &override{
		key:           o.Type.key(),
		objectType:    reflect.TypeFor[T](),
		namespaces:    o.Namespaces,
		labelSelector: o.LabelSelector,
		fieldSelector: o.FieldSelector,
		resyncPeriod:  o.ResyncPeriod,
		contentType:   o.ContentType,
	}
	switch {
	case o.perNamespace != nil:
		fn := o.perNamespace
		ov.newLW = func(ns string) reflector.ListerWatcher[cache.Obj] { return untypedlw.New(fn(ns)) }
		ov.perNamespace = true
	case o.ListerWatcher != nil:
		lw := untypedlw.New(o.ListerWatcher)
		ov.newLW = func(string) reflector.ListerWatcher[cache.Obj] { return lw }
	}
	if transform, edit := o.Transform, o.Informer; transform != nil || edit != nil {
		ov.informer = func(opts *informer.Options[T]) {
			if transform != nil {
				opts.Transform = transform
			}
			if edit != nil {
				edit(opts)
			}
		}
	}
	return ov
}
