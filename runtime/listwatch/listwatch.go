package listwatch

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// Options configures New.
type Options[T any, L runtime.Object] struct {
	// Resource is the lower-case plural resource name, e.g. "foos". Required.
	Resource string
	// Namespace scopes LIST and WATCH to one namespace; "" means all
	// namespaces (and is the only valid value for cluster-scoped resources).
	Namespace string
	// LabelSelector and FieldSelector, when not empty, are set on every
	// request and override whatever the caller put in metav1.ListOptions.
	LabelSelector string
	FieldSelector string
	// Tweak, when not nil, edits the ListOptions of every request last, after
	// the selectors were applied (upstream's TweakListOptionsFunc).
	Tweak func(*metav1.ListOptions)
	// Codec, when set, decodes LIST and WATCH responses straight into T
	// (wire.NewJSON, say): each request asks for Codec.MediaType and the
	// body is decoded once, item by item, without the REST client's
	// serializer (which still decodes error responses). When nil, responses
	// are decoded by the REST client's serializer into NewList's list type.
	Codec wire.Codec[T]
	// FallbackCodec, when set, replaces Codec for good once the server
	// refuses Codec's media type (406 Not Acceptable): custom resources asked
	// for protobuf, or CBOR without the CBORServingAndStorage feature gate.
	// The refused request is made again with it at once.
	FallbackCodec wire.Codec[T]
	// NewList returns an empty list object to decode a LIST response into,
	// e.g. func() *v1alpha1.FooList { return new(v1alpha1.FooList) }.
	// Required when Codec is nil.
	NewList func() L
	// Items returns the items of a decoded list as T, e.g.
	// func(l *v1alpha1.FooList) []*v1alpha1.Foo { return listwatch.Pointers(l.Items) }.
	// Required when Codec is nil.
	Items func(L) []T
	// ParameterCodec encodes ListOptions into the query string; nil means
	// metav1.ParameterCodec, which is right for every API type.
	ParameterCodec runtime.ParameterCodec
}

// ListerWatcher lists and watches one resource through a rest.Interface and
// decodes straight into T and its list type L with the scheme the client was
// built with: no dynamic client, no unstructured round trip.
//
// It implements reflector.ListerWatcher[T]. It holds no state besides its
// configuration and whether it fell back to Options.FallbackCodec, and is safe
// for concurrent use.
type ListerWatcher[T any, L runtime.Object] struct {
	client  rest.Interface
	opts    Options[T, L]
	refused atomic.Bool // the server refused opts.Codec's media type
}

var _ reflector.ListerWatcher[*metav1.PartialObjectMetadata] = (*ListerWatcher[*metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList])(nil)

// New returns a ListerWatcher for opts.Resource over client, which must have
// been built for the resource's group-version with a serializer that knows T
// and L (NewRESTClient builds one). It panics if a required option is missing:
// that is a programming error, not a runtime condition.
func New[T any, L runtime.Object](client rest.Interface, opts Options[T, L]) *ListerWatcher[T, L] {
	if client == nil || opts.Resource == "" || opts.Codec == nil && (opts.NewList == nil || opts.Items == nil) {
		panic("listwatch.New: client, Resource, and Codec or NewList and Items are required")
	}
	if opts.ParameterCodec == nil {
		opts.ParameterCodec = metav1.ParameterCodec
	}
	return &ListerWatcher[T, L]{client: client, opts: opts}
}

func (lw *ListerWatcher[T, L]) listOptions(opts metav1.ListOptions) *metav1.ListOptions {
	if lw.opts.LabelSelector != "" {
		opts.LabelSelector = lw.opts.LabelSelector
	}
	if lw.opts.FieldSelector != "" {
		opts.FieldSelector = lw.opts.FieldSelector
	}
	if lw.opts.Tweak != nil {
		lw.opts.Tweak(&opts)
	}
	return &opts
}

func (lw *ListerWatcher[T, L]) where() string {
	if lw.opts.Namespace == "" {
		return lw.opts.Resource
	}
	return lw.opts.Resource + " in namespace " + lw.opts.Namespace
}

// get starts a GET of the resource (in the namespace, when set) with lo as
// its query: the part every LIST and WATCH request shares.
func (lw *ListerWatcher[T, L]) get(lo *metav1.ListOptions) *rest.Request {
	return lw.client.Get().
		NamespaceIfScoped(lw.opts.Namespace, lw.opts.Namespace != "").
		Resource(lw.opts.Resource).
		VersionedParams(lo, lw.opts.ParameterCodec)
}

// List performs one LIST request (one page when opts.Limit is set) and returns
// the decoded items with the list's resourceVersion, continue token and
// remaining item count. Errors wrap the API error, so apierrors.IsResourceExpired
// and friends still work on them. Cancelling ctx aborts the request.
func (lw *ListerWatcher[T, L]) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[T], error) {
	lo := lw.listOptions(opts)
	if lw.opts.Codec != nil {
		return lw.listCodec(ctx, lo)
	}
	list := lw.opts.NewList()
	err := lw.get(lo).
		Do(ctx).
		Into(list)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", lw.where(), err)
	}
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", lw.where(), err)
	}
	res := &reflector.ListResult[T]{
		Items:              lw.opts.Items(list),
		ResourceVersion:    acc.GetResourceVersion(),
		Continue:           acc.GetContinue(),
		RemainingItemCount: acc.GetRemainingItemCount(),
	}
	klog.FromContext(ctx).V(5).Info("listed", "resource", lw.opts.Resource, "namespace", lw.opts.Namespace,
		"items", len(res.Items), "resourceVersion", res.ResourceVersion, "more", res.Continue != "")
	return res, nil
}

// codec returns the codec requests use: Options.Codec, or
// Options.FallbackCodec once the server refused the former.
func (lw *ListerWatcher[T, L]) codec() wire.Codec[T] {
	if lw.refused.Load() {
		return lw.opts.FallbackCodec
	}
	return lw.opts.Codec
}

// fallBack reports whether err, the failure of a request made with c, is the
// server refusing c's media type while a fallback codec is there to use
// instead, and makes the fallback the codec of every later request.
func (lw *ListerWatcher[T, L]) fallBack(ctx context.Context, c wire.Codec[T], err error) bool {
	if lw.opts.FallbackCodec == nil || c == lw.opts.FallbackCodec || !apierrors.IsNotAcceptable(err) {
		return false
	}
	if lw.refused.CompareAndSwap(false, true) {
		klog.FromContext(ctx).V(2).Info("server refused the media type; using the fallback from now on",
			"resource", lw.opts.Resource, "refused", c.MediaType(), "fallback", lw.opts.FallbackCodec.MediaType())
	}
	return true
}

// listCodec is List with opts.Codec: the body is read once and its items
// decoded one by one straight into T.
func (lw *ListerWatcher[T, L]) listCodec(ctx context.Context, lo *metav1.ListOptions) (*reflector.ListResult[T], error) {
	codec := lw.codec()
	body, err := lw.get(lo).
		SetHeader("Accept", codec.MediaType()).
		Stream(ctx)
	if err != nil {
		if lw.fallBack(ctx, codec, err) {
			return lw.listCodec(ctx, lo)
		}
		return nil, fmt.Errorf("list %s: %w", lw.where(), err)
	}
	defer body.Close()
	var items []T
	if lo.Limit > 0 && lo.Limit <= 10000 {
		items = make([]T, 0, lo.Limit)
	}
	add := func(obj T) error {
		items = append(items, obj)
		return nil
	}
	var lm metav1.ListMeta
	if kc, l := knownOf(ctx, codec); l != nil {
		lm, err = kc.DecodeListKnown(body, l, add)
	} else {
		lm, err = codec.DecodeList(body, add)
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", lw.where(), err)
	}
	res := &reflector.ListResult[T]{
		Items:              items,
		ResourceVersion:    lm.ResourceVersion,
		Continue:           lm.Continue,
		RemainingItemCount: lm.RemainingItemCount,
	}
	klog.FromContext(ctx).V(5).Info("listed", "resource", lw.opts.Resource, "namespace", lw.opts.Namespace,
		"items", len(res.Items), "resourceVersion", res.ResourceVersion, "more", res.Continue != "")
	return res, nil
}

// Watch starts a WATCH request; events carry decoded T values (and
// *metav1.Status for ERROR events). With a Codec, an event it cannot decode
// arrives as a *reflector.MalformedObject (the reflector reports it and
// ends the watch: see the reflector package doc, "Hostile servers"); after
// one whose framing was lost, the stream ends too. The stream ends when ctx is cancelled,
// when the server closes it (after opts.TimeoutSeconds), or on Stop.
func (lw *ListerWatcher[T, L]) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	lo := lw.listOptions(opts)
	lo.Watch = true
	var timeout time.Duration
	if lo.TimeoutSeconds != nil {
		timeout = time.Duration(*lo.TimeoutSeconds) * time.Second
	}
	if lw.opts.Codec != nil {
		return lw.watchCodec(ctx, lo, timeout)
	}
	w, err := lw.get(lo).
		Timeout(timeout).
		Watch(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", lw.where(), err)
	}
	return w, nil
}

// watchCodec is Watch with opts.Codec.
func (lw *ListerWatcher[T, L]) watchCodec(ctx context.Context, lo *metav1.ListOptions, timeout time.Duration) (watch.Interface, error) {
	codec := lw.codec()
	// Stream, unlike Watch, waits for the client's rate limiter: one token
	// per watch, which the informer's few watches can afford.
	body, err := lw.get(lo).
		SetHeader("Accept", codec.MediaType()).
		Timeout(timeout).
		Stream(ctx)
	if err != nil {
		if lw.fallBack(ctx, codec, err) {
			return lw.watchCodec(ctx, lo, timeout)
		}
		return nil, fmt.Errorf("watch %s: %w", lw.where(), err)
	}
	var dec wire.WatchDecoder[T]
	if kc, l := knownOf(ctx, codec); l != nil {
		dec = kc.NewWatchDecoderKnown(body, l)
	} else {
		dec = codec.NewWatchDecoder(body)
	}
	return newStreamWatch(ctx, lw.where(), body, dec), nil
}

// knownCodec is a Codec that can hand on the objects a relist's cache holds
// instead of decoding them again (wire's protobuf and JSON codecs): the
// Reflector asks for it, through the context of its LIST and WatchList
// requests (runtime/internal/known).
type knownCodec[T any] interface {
	DecodeListKnown(body io.Reader, l known.Lookup[T], each func(T) error) (metav1.ListMeta, error)
	NewWatchDecoderKnown(body io.Reader, l known.Lookup[T]) wire.WatchDecoder[T]
}

// knownOf returns codec as a knownCodec and the Lookup ctx carries; l is
// nil unless there are both.
func knownOf[T any](ctx context.Context, codec wire.Codec[T]) (kc knownCodec[T], l known.Lookup[T]) {
	kc, ok := codec.(knownCodec[T])
	if !ok {
		return nil, nil
	}
	return kc, known.From[T](ctx)
}

// The client-side rate limits that NewRESTClient sets when cfg leaves them
// at zero. client-go's own defaults (5 QPS, burst 10) make a paged initial
// LIST of 100k objects (200 pages of 500) take 40 s; an informer-only client
// makes few requests, so it can afford more.
const (
	defaultQPS   = 50
	defaultBurst = 100
)

// configFor returns a copy of cfg set up for the group-version gv with a
// serializer built from scheme: APIPath "/api" for the core group and
// "/apis" otherwise, NegotiatedSerializer
// serializer.NewCodecFactory(scheme).WithoutConversion(), a default user
// agent, and defaultQPS/defaultBurst when cfg has no limits.
func configFor(cfg *rest.Config, scheme *runtime.Scheme, gv schema.GroupVersion) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &gv
	if gv.Group == "" {
		c.APIPath = "/api"
	} else {
		c.APIPath = "/apis"
	}
	c.NegotiatedSerializer = serializer.NewCodecFactory(scheme).WithoutConversion()
	if c.UserAgent == "" {
		c.UserAgent = rest.DefaultKubernetesUserAgent()
	}
	if c.QPS == 0 && c.RateLimiter == nil {
		c.QPS = defaultQPS
	}
	if c.Burst == 0 && c.RateLimiter == nil {
		c.Burst = defaultBurst
	}
	return c
}

// NewRESTClient returns a REST client for the group-version gv built from
// a copy of cfg (cfg itself is not modified): APIPath "/api" for the core
// group and "/apis" otherwise, responses decoded by
// serializer.NewCodecFactory(scheme).WithoutConversion(), a default user
// agent when cfg has none, and, when cfg sets no rate limit, 50 QPS with a
// burst of 100 (client-go's 5 and 10 make a paged initial LIST of 100k
// objects take 40 s; an informer-only client makes few requests). scheme
// must not be modified afterwards (runtime.Scheme is not safe for
// concurrent writes and reads). When httpClient is nil one is built from
// cfg; pass a shared one so that clients for several group-versions share
// connections.
func NewRESTClient(cfg *rest.Config, httpClient *http.Client, scheme *runtime.Scheme, gv schema.GroupVersion) (*rest.RESTClient, error) {
	c := configFor(cfg, scheme, gv)
	if httpClient == nil {
		var err error
		if httpClient, err = rest.HTTPClientFor(c); err != nil {
			return nil, fmt.Errorf("http client for %s: %w", gv, err)
		}
	}
	rc, err := rest.RESTClientForConfigAndClient(c, httpClient)
	if err != nil {
		return nil, fmt.Errorf("rest client for %s: %w", gv, err)
	}
	return rc, nil
}
