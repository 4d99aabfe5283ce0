package restsource

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/listwatch"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// Clients builds and keeps one REST client per group-version, as a
// clientset has, and the schemes the group-version's types are registered
// in, all from one rest.Config and sharing one HTTP client. A scheme per
// group-version means no scheme is written after a client uses it
// (runtime.Scheme is not safe for that). A scheme per Go package of the
// types too, because a group-version's kinds may come from packages
// generated apart, each with an AddToScheme that registers its own kinds
// only: the first type's scheme would not know the others'. The client is
// made with the scheme of the first type that asks for it: it decodes only
// API errors (Status) and encodes ListOptions, which every such scheme
// registers (metav1.AddToGroupVersion). Safe for concurrent use.
type Clients struct {
	cfg        *rest.Config
	httpClient *http.Client

	mu      sync.Mutex
	clients map[schema.GroupVersion]rest.Interface
	schemes map[schemeKey]*schemeOf
	http    *http.Client
	httpErr error
}

// schemeKey names a scheme: a group-version, and the Go package of the
// types registered in it through one AddToScheme.
type schemeKey struct {
	gv  schema.GroupVersion
	pkg string
}

// schemeOf is a scheme and its client, or the error of making them.
type schemeOf struct {
	client rest.Interface
	scheme *runtime.Scheme
	err    error
}

// NewClients returns the clients of cfg (nil: every request for a client
// fails, saying so). httpClient, when not nil, is shared by every
// group-version's client; otherwise one is built from cfg on first need.
func NewClients(cfg *rest.Config, httpClient *http.Client) *Clients {
	return &Clients{cfg: cfg, httpClient: httpClient, clients: map[schema.GroupVersion]rest.Interface{}, schemes: map[schemeKey]*schemeOf{}}
}

// Config returns the rest.Config the clients were made from (maybe nil).
func (c *Clients) Config() *rest.Config { return c.cfg }

// For returns the REST client of gv and the scheme that the types of Go
// package pkg are registered in, building the scheme (with addToScheme)
// and, for the group-version's first, the client on first use. The
// outcome, error included, is kept: a later call for the same
// group-version and package returns the same.
func (c *Clients) For(gv schema.GroupVersion, pkg string, addToScheme func(*runtime.Scheme) error) (rest.Interface, *runtime.Scheme, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := schemeKey{gv: gv, pkg: pkg}
	if g, ok := c.schemes[key]; ok {
		return g.client, g.scheme, g.err
	}
	scheme := runtime.NewScheme()
	g := &schemeOf{scheme: scheme}
	c.schemes[key] = g
	switch {
	case c.cfg == nil:
		g.err = errors.New("the factory has no rest.Config (factory.New got nil) and no ListerWatcher for this type (TypeOptions.ListerWatcher)")
	case addToScheme == nil:
		g.err = fmt.Errorf("type of group-version %s has no AddToScheme", gv)
	default:
		if err := addToScheme(scheme); err != nil {
			g.err = fmt.Errorf("add %s to scheme: %w", gv, err)
			break
		}
		if client := c.clients[gv]; client != nil {
			g.client = client
			break
		}
		hc := c.httpClient
		if hc == nil {
			if c.http == nil && c.httpErr == nil {
				c.http, c.httpErr = rest.HTTPClientFor(c.cfg)
			}
			if c.httpErr != nil {
				g.err = fmt.Errorf("http client: %w", c.httpErr)
				break
			}
			hc = c.http
		}
		if g.client, g.err = listwatch.NewRESTClient(c.cfg, hc, scheme, gv); g.err == nil {
			c.clients[gv] = g.client
		}
	}
	return g.client, g.scheme, g.err
}

// Type is what a REST source needs to know of an API type.
type Type struct {
	// Resource is the type's group, version and plural resource.
	Resource schema.GroupVersionResource
	// Kind is the objects' kind on the wire; "" asks the scheme (required
	// for a projection).
	Kind string
	// Projection is true for a projection of the resource's kind.
	Projection bool
	// AddToScheme registers the group-version's types.
	AddToScheme func(*runtime.Scheme) error
	// ObjectType is the Go type objects are decoded into (a pointer to a
	// struct).
	ObjectType reflect.Type
	// DecodeJSON is the generated JSON decoder (wire.GeneratedDecoder), or
	// nil.
	DecodeJSON wire.Option
	// DecodeProtobuf is a projection's generated protobuf decoder.
	DecodeProtobuf func(*wire.ProtobufDecoder, cache.Obj)
}

// Request is what the sources of one informer ask the server for.
type Request struct {
	// ContentType is the media type asked for; "" takes the rest.Config's
	// (see Codecs).
	ContentType string
	// LabelSelector and FieldSelector are set on every request.
	LabelSelector, FieldSelector string
	// Tweak edits the ListOptions of every request last.
	Tweak func(*metav1.ListOptions)
	// SkipManagedFields reads and drops metadata.managedFields instead of
	// decoding it (wire.SkipManagedFields).
	SkipManagedFields bool
	// DistinctMaps gives every object maps of its own
	// (codecopts.Options.DistinctMaps): for informers with a Transform,
	// which may write into them.
	DistinctMaps bool
}

// Sources returns the func that makes t's REST source of one namespace
// ("" for all): a listwatch.ListerWatcher with the codec (and fallback)
// Codecs chooses, over the client of t's group-version. A non-nil error is
// a mistake no retry can fix (no rest.Config, no AddToScheme, a type the
// scheme does not register, a projection without Kind, an unknown content
// type); the func is then nil.
func (c *Clients) Sources(t Type, r Request) (func(namespace string) reflector.ListerWatcher[cache.Obj], error) {
	var pkg string
	if t.ObjectType != nil && t.ObjectType.Kind() == reflect.Pointer {
		pkg = t.ObjectType.Elem().PkgPath()
	}
	client, scheme, err := c.For(t.Resource.GroupVersion(), pkg, t.AddToScheme)
	if err != nil {
		return nil, err
	}
	if t.Projection && t.Kind == "" {
		return nil, errors.New("a projection has no Type.Kind: its objects' kind cannot come from a scheme")
	}
	codec, fallback, err := Codecs(c.cfg, scheme, t, r)
	if err != nil {
		return nil, err
	}
	fake := c.cfg != nil && watchListUnsupported(c.cfg.Transport)
	if fake {
		if ks, ok := c.cfg.Transport.(kindSetter); ok {
			// Codecs found the kind already: a type it could not make an
			// object of, or find in the scheme, did not get here.
			obj, _ := reflect.New(t.ObjectType.Elem()).Interface().(runtime.Object)
			if gvk, err := kindOf(scheme, t.Resource.GroupVersion().WithKind(t.Kind), obj, t.ObjectType); err == nil {
				ks.SetKind(t.Resource, gvk.Kind)
			}
		}
	}
	return func(ns string) reflector.ListerWatcher[cache.Obj] {
		lw := listwatch.New(client, listwatch.Options[cache.Obj, runtime.Object]{
			Resource:      t.Resource.Resource,
			Namespace:     ns,
			LabelSelector: r.LabelSelector,
			FieldSelector: r.FieldSelector,
			Tweak:         r.Tweak,
			Codec:         codec,
			FallbackCodec: fallback,
		})
		if fake {
			return fakeSource{lw}
		}
		return lw
	}, nil
}

// watchListUnsupported reports whether rt, a rest.Config's Transport, says
// that what it serves is client-go's fakes (clientsetconfig's transport over
// a fake clientset does), with the marker client-go's fakes carry.
func watchListUnsupported(rt http.RoundTripper) bool {
	m, ok := rt.(interface{ IsWatchListSemanticsUnSupported() bool })
	return ok && m.IsWatchListSemanticsUnSupported()
}

// kindSetter is clientsetconfig's transport over a fake clientset, told the
// kind the codecs expect of a resource's objects: the fakes know none, and a
// type's name is not always its kind.
type kindSetter interface {
	SetKind(gvr schema.GroupVersionResource, kind string)
}

// fakeSource is a REST source whose requests a fake clientset serves: it
// carries the fakes' marker to the Reflector, which then lists instead of
// asking for a WatchList and does not require resourceVersions of the
// objects (the fakes NewSimpleClientset makes store objects as the test gave
// them, mostly without one; client-go's informers accept them).
type fakeSource struct {
	*listwatch.ListerWatcher[cache.Obj, runtime.Object]
}

// IsWatchListSemanticsUnSupported is client-go's fakes' marker: true.
func (fakeSource) IsWatchListSemanticsUnSupported() bool { return true }
