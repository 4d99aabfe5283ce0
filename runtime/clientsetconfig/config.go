package clientsetconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// For returns a *rest.Config that reads through cs, an existing client-gen
// clientset (client-go's kubernetes.Clientset, a project's
// pkg/generated/clientset/versioned, or either's fake), for factory.New and
// a generated NewSharedInformerFactory, so that a controller written against
// upstream's NewSharedInformerFactory(clientset, resync) keeps its
// clientset:
//
//	f := informers.NewSharedInformerFactory(clientsetconfig.For(cs), factory.Options{ResyncPeriod: resync})
//
// A real clientset lends its server address and its HTTP client (TLS,
// credentials, proxies), found through the REST client of any of its
// group-versions; the factory still decodes with its own schemes and
// codecs, and rate-limits with its own defaults (cs's rate limiter is not
// reachable).
//
// A fake clientset (one whose group-version clients have a nil REST client,
// as client-gen's fakes and k8s.io/client-go/kubernetes/fake do) is served
// in-process: each LIST and WATCH through the config calls the fake's typed
// List and Watch (cs.SamplecontrollerV1alpha1().Foos(ns).List, found by
// matching the group's first label plus version, and the resource, to
// method names, case-insensitively), so the fake's objects, reactors and
// recorded Actions() behave as they do under upstream's informers. The fake
// is asked for plain LIST+WATCH: a WatchList request is refused (client-go's
// fakes never end an initial event stream), and the reflector lists instead.
// Objects go through JSON on the way, with the kind the factory's scheme
// registers their type as, so the informer decodes what an API server would
// send.
//
// For never fails: when cs is not a clientset, or a resource has no typed
// client in it, every request through the config fails with an error saying
// so, which the informer reports (LastError, WaitForCacheSync) with the
// resource's name. It is safe for concurrent use as cs is.
func For(cs any) *rest.Config {
	v := reflect.ValueOf(cs)
	if !v.IsValid() || v.Kind() == reflect.Pointer && v.IsNil() {
		return failingConfig(errors.New("clientsetconfig: For of a nil clientset"))
	}
	clients := groupVersionClients(v)
	if len(clients) == 0 {
		return failingConfig(fmt.Errorf("clientsetconfig: %T is not a client-gen clientset: it has no group-version method returning a client with RESTClient()", cs))
	}
	for _, c := range clients {
		rc, ok := c.rest.(*rest.RESTClient)
		if !ok || rc == nil {
			continue
		}
		cfg, err := configOfRESTClient(rc)
		if err != nil {
			return failingConfig(fmt.Errorf("clientsetconfig: clientset %T: %w", cs, err))
		}
		return cfg
	}
	// Every REST client is nil: a fake.
	cfg := &rest.Config{Host: "http://fake-clientset.invalid", Transport: fakeTransport{clients: clients, kinds: new(sync.Map)}}
	cfg.ContentType = mediaTypeJSON
	return cfg
}

// mediaTypeJSON is the media type the fake transport answers in.
const mediaTypeJSON = "application/json"

// gvClient is one group-version client of a clientset: the method that
// returns it (SamplecontrollerV1alpha1), the client and its REST client.
type gvClient struct {
	method string
	client reflect.Value
	rest   rest.Interface
}

var restInterface = reflect.TypeFor[rest.Interface]()

// groupVersionClients calls every method of cs without arguments whose one
// result has a RESTClient() rest.Interface method, in method-name order.
func groupVersionClients(cs reflect.Value) []gvClient {
	var out []gvClient
	for n := range cs.NumMethod() {
		name, m := cs.Type().Method(n).Name, cs.Method(n)
		if name == "Discovery" || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 {
			continue
		}
		if _, ok := m.Type().Out(0).MethodByName("RESTClient"); !ok {
			continue
		}
		client := m.Call(nil)[0]
		if (client.Kind() == reflect.Interface || client.Kind() == reflect.Pointer) && client.IsNil() {
			continue
		}
		rc := client.MethodByName("RESTClient")
		if rc.Type().NumIn() != 0 || rc.Type().NumOut() != 1 || !rc.Type().Out(0).AssignableTo(restInterface) {
			continue
		}
		r, _ := rc.Call(nil)[0].Interface().(rest.Interface)
		out = append(out, gvClient{method: name, client: client, rest: r})
	}
	return out
}

// configOfRESTClient recovers the server address (with any path prefix)
// and the HTTP client of a clientset's REST client.
func configOfRESTClient(rc *rest.RESTClient) (*rest.Config, error) {
	u := rc.Get().URL()
	gv := rc.APIVersion()
	suffix := "/apis/" + gv.Group + "/" + gv.Version
	if gv.Group == "" {
		suffix = "/api/" + gv.Version
	}
	prefix, ok := strings.CutSuffix(strings.TrimSuffix(u.Path, "/"), suffix)
	if !ok {
		return nil, fmt.Errorf("REST client of %s has URL path %q, not ending in %q", gv, u.Path, suffix)
	}
	cfg := &rest.Config{Host: u.Scheme + "://" + u.Host + prefix}
	if rc.Client != nil {
		cfg.Transport = rc.Client.Transport
		cfg.Timeout = rc.Client.Timeout
	}
	return cfg, nil
}

// failingConfig is a config whose every request fails with err.
func failingConfig(err error) *rest.Config {
	return &rest.Config{Host: "http://clientset-error.invalid", Transport: failingTransport{err}}
}

type failingTransport struct{ err error }

func (t failingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, t.err
}

// fakeTransport serves the factory's LIST and WATCH requests from a fake
// clientset's typed clients.
type fakeTransport struct {
	clients []gvClient
	// kinds maps a schema.GroupVersionResource to the kind its objects are
	// sent as (SetKind).
	kinds *sync.Map
}

// SetKind makes the transport send gvr's lists as kind+"List": the kind the
// factory's scheme registers their type as. The factory's REST sources call
// it; without it, a kind is its Go type's name, as client-gen names types,
// which is not every package's kind (Zalando's postgres-operator registers
// type Postgresql as kind "postgresql"). The fakes know no kinds: they keep
// objects as the test gave them, TypeMeta mostly empty, and so does the
// transport (LIST items and watch event objects go out as they are).
func (t fakeTransport) SetKind(gvr schema.GroupVersionResource, kind string) {
	t.kinds.Store(gvr, kind)
}

// kindOf is the kind SetKind gave gvr, or "".
func (t fakeTransport) kindOf(gvr schema.GroupVersionResource) string {
	k, _ := t.kinds.Load(gvr)
	s, _ := k.(string)
	return s
}

// IsWatchListSemanticsUnSupported is the marker of client-go's fakes, which
// the factory's REST sources pass on to their Reflectors: they list rather
// than ask for a WatchList, and accept objects without a resourceVersion
// (NewSimpleClientset's objects have none).
func (fakeTransport) IsWatchListSemanticsUnSupported() bool { return true }

func (t fakeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	gvr, ns, err := parseResourcePath(req.URL.Path)
	if err != nil {
		return nil, fmt.Errorf("fake clientset: %w", err)
	}
	if req.Method != http.MethodGet {
		return statusResponse(req, apierrors.NewMethodNotSupported(gvr.GroupResource(), req.Method)), nil
	}
	var opts metav1.ListOptions
	if err := metav1.Convert_url_Values_To_v1_ListOptions(new(req.URL.Query()), &opts, nil); err != nil {
		return statusResponse(req, apierrors.NewBadRequest(err.Error())), nil
	}
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		// client-go's fakes say IsWatchListSemanticsUnSupported: refused,
		// so the reflector lists (a 400 is a refusal to it).
		return statusResponse(req, apierrors.NewBadRequest("fake clientset: WatchList (sendInitialEvents) is not supported by client-go's fakes")), nil
	}
	typed, err := t.typedClient(gvr, ns)
	if err != nil {
		return nil, fmt.Errorf("fake clientset: %w", err)
	}
	ctx := req.Context()
	args := []reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(opts)}
	if opts.Watch {
		m := typed.MethodByName("Watch")
		if !m.IsValid() {
			return nil, fmt.Errorf("fake clientset: the typed client of %s has no Watch method", gvr)
		}
		out := m.Call(args)
		if err, _ := out[1].Interface().(error); err != nil {
			return statusResponse(req, err), nil
		}
		w, ok := out[0].Interface().(watch.Interface)
		if !ok {
			return nil, fmt.Errorf("fake clientset: Watch of %s returned %s, not a watch.Interface", gvr, out[0].Type())
		}
		return watchResponse(req, w), nil
	}
	m := typed.MethodByName("List")
	if !m.IsValid() {
		return nil, fmt.Errorf("fake clientset: the typed client of %s has no List method", gvr)
	}
	out := m.Call(args)
	if err, _ := out[1].Interface().(error); err != nil {
		return statusResponse(req, err), nil
	}
	list, ok := out[0].Interface().(runtime.Object)
	if !ok || out[0].Kind() == reflect.Pointer && out[0].IsNil() {
		return nil, fmt.Errorf("fake clientset: List of %s returned %s, not a runtime.Object", gvr, out[0].Type())
	}
	body, err := encodeList(gvr.GroupVersion().WithKind(t.kindOf(gvr)), list)
	if err != nil {
		return nil, fmt.Errorf("fake clientset: list %s: %w", gvr, err)
	}
	return response(req, http.StatusOK, io.NopCloser(bytes.NewReader(body))), nil
}

// typedClient finds cs.<Group><Version>().<Resource>(ns) by name.
func (t fakeTransport) typedClient(gvr schema.GroupVersionResource, ns string) (reflect.Value, error) {
	group, _, _ := strings.Cut(gvr.Group, ".")
	if group == "" {
		group = "core"
	}
	i := slices.IndexFunc(t.clients, func(c gvClient) bool { return strings.EqualFold(c.method, group+gvr.Version) })
	if i < 0 {
		return reflect.Value{}, fmt.Errorf("no method %s%s returning the client of %s", strings.ToUpper(group[:1])+group[1:], strings.ToUpper(gvr.Version[:1])+gvr.Version[1:], gvr.GroupVersion())
	}
	c := t.clients[i].client
	for n := range c.NumMethod() {
		m := c.Method(n)
		if !strings.EqualFold(c.Type().Method(n).Name, gvr.Resource) || m.Type().NumOut() != 1 {
			continue
		}
		switch {
		case m.Type().NumIn() == 1 && m.Type().In(0).Kind() == reflect.String:
			return m.Call([]reflect.Value{reflect.ValueOf(ns)})[0], nil
		case m.Type().NumIn() == 0:
			return m.Call(nil)[0], nil
		}
	}
	return reflect.Value{}, fmt.Errorf("%s has no method %s (the resource's typed client)", t.clients[i].method, gvr.Resource)
}

// parseResourcePath splits /api/v1/[namespaces/ns/]resource and
// /apis/group/version/[namespaces/ns/]resource.
func parseResourcePath(path string) (schema.GroupVersionResource, string, error) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	var gvr schema.GroupVersionResource
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		gvr.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		gvr.Group, gvr.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return gvr, "", fmt.Errorf("path %q is not a resource path", path)
	}
	var ns string
	if len(parts) == 3 && parts[0] == "namespaces" {
		ns, parts = parts[1], parts[2:]
	}
	if len(parts) != 1 {
		return gvr, "", fmt.Errorf("path %q is not a collection", path)
	}
	gvr.Resource = parts[0]
	return gvr, ns, nil
}

// encodeList encodes list, a LIST of objects of kind gvk, as JSON as a
// server sends it, with the apiVersion and kind a decoder needs. Its items
// keep the TypeMeta the test gave them (mostly none), and so do watch event
// objects (watchResponse), for the factory's REST sources decode what this
// transport sends with the objects' TypeMeta kept as it is
// (codecopts.Options.FakeTypeMeta), and upstream's informers over a fake
// hold the fake's objects as they are: a controller's unit test that
// compares an object from the lister with one it built (sample-controller's
// TestUpdateDeployment) must find the same TypeMeta. Without gvk.Kind, a
// kind is the Go type's name, as client-gen names types.
func encodeList(gvk schema.GroupVersionKind, list runtime.Object) ([]byte, error) {
	list = list.DeepCopyObject()
	if gvk.Kind == "" {
		t := reflect.TypeOf(list)
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		gvk.Kind = strings.TrimSuffix(t.Name(), "List")
	}
	gvk.Kind += "List"
	list.GetObjectKind().SetGroupVersionKind(gvk)
	return json.Marshal(list)
}

// watchResponse streams w's events as JSON watch events until w ends or the
// request's context does; closing the body stops w. Objects go out as the
// fake has them (see encodeList), a Status as a server sends it.
func watchResponse(req *http.Request, w watch.Interface) *http.Response {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(req.Context())
	go func() {
		defer w.Stop()
		defer cancel()
		enc := json.NewEncoder(pw)
		for {
			select {
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			case ev, ok := <-w.ResultChan():
				if !ok {
					pw.Close()
					return
				}
				var raw []byte
				var err error
				if st, isStatus := ev.Object.(*metav1.Status); isStatus {
					st = st.DeepCopy()
					st.APIVersion, st.Kind = "v1", "Status"
					raw, err = json.Marshal(st)
				} else {
					raw, err = json.Marshal(ev.Object)
				}
				if err == nil {
					err = enc.Encode(metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: raw}})
				}
				if err != nil {
					pw.CloseWithError(err)
					return
				}
			}
		}
	}()
	return response(req, http.StatusOK, bodyCloser{pr, cancel})
}

// bodyCloser stops the watch goroutine when the reader closes the body.
type bodyCloser struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (b bodyCloser) Close() error {
	b.cancel()
	return b.PipeReader.Close()
}

// statusResponse answers with err as an API server would: a Status with
// err's code (500 for an error that is not an API status).
func statusResponse(req *http.Request, err error) *http.Response {
	var st metav1.Status
	if s, ok := err.(apierrors.APIStatus); ok || errors.As(err, &s) {
		st = s.Status()
	} else {
		st = apierrors.NewInternalError(err).ErrStatus
	}
	st.APIVersion, st.Kind = "v1", "Status"
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	body, merr := json.Marshal(st)
	if merr != nil {
		// A Status has only plain fields, so this does not happen; if it
		// did, an empty body would read as a success-less nothing, so say
		// what failed instead (a 500, without err's text).
		code = http.StatusInternalServerError
		body = []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"encoding the error's Status failed"}`)
	}
	return response(req, code, io.NopCloser(bytes.NewReader(body)))
}

func response(req *http.Request, code int, body io.ReadCloser) *http.Response {
	return &http.Response{
		StatusCode: code,
		Status:     http.StatusText(code),
		Proto:      "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {mediaTypeJSON}},
		Body:          body,
		ContentLength: -1,
		Request:       req,
	}
}
