package listwatchtest

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
)

// Server is a minimal API server for Widgets over httptest: paged LIST
// (limit/continue with remainingItemCount), label selectors, namespaces, and
// WATCH streams of the changes made through Add, Update and Delete (a watch
// from a resourceVersion replays the changes after it first). Safe for
// concurrent use. It records every request's path and query.
type Server struct {
	srv       *httptest.Server
	transport *http.Transport
	token     string // the bearer token every request must carry, or ""

	mu       sync.Mutex
	rv       int
	objects  map[string]*Widget // key namespace/name
	watchers map[chan watch.Event]watchFilter
	history  []watch.Event // every change, in order, for watches from a resourceVersion
	requests []*http.Request
	// failWith, when set, answers every request with that status.
	failWith        *metav1.Status
	refuseWatchList bool
	// watchersChanged is closed and replaced whenever a watcher registers.
	watchersChanged chan struct{}
}

type watchFilter struct {
	namespace string
	selector  labels.Selector
}

// NewServer starts a Server; it is closed (and its client's idle connections
// too, so goleak stays quiet) when the test ends.
func NewServer(t testing.TB) *Server {
	s := newServer()
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.transport = &http.Transport{}
	s.cleanup(t)
	return s
}

// NewTLSServer starts a Server that speaks HTTP/2 over TLS (as an API
// server does) and answers 401 to a request without the bearer token
// token; Config carries the server's CA and the token. It is closed when
// the test ends, as NewServer's.
func NewTLSServer(t testing.TB, token string) *Server {
	s := newServer()
	s.token = token
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.EnableHTTP2 = true
	s.srv.StartTLS()
	s.transport = s.srv.Client().Transport.(*http.Transport)
	s.cleanup(t)
	return s
}

func newServer() *Server {
	return &Server{objects: map[string]*Widget{}, watchers: map[chan watch.Event]watchFilter{}, rv: 1, watchersChanged: make(chan struct{})}
}

func (s *Server) cleanup(t testing.TB) {
	t.Cleanup(func() {
		s.mu.Lock()
		for ch := range s.watchers {
			close(ch)
			delete(s.watchers, ch)
		}
		s.mu.Unlock()
		s.transport.CloseIdleConnections()
		s.srv.Close()
	})
}

// Config returns a rest.Config pointing at the server.
// For a NewTLSServer, it trusts the server's certificate and carries the
// token.
func (s *Server) Config() *rest.Config {
	cfg := &rest.Config{Host: s.srv.URL}
	if cert := s.srv.Certificate(); cert != nil {
		cfg.CAData = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw})
		cfg.BearerToken = s.token
	}
	return cfg
}

// HTTPClient returns an http.Client whose connections the server closes at
// the end of the test.
func (s *Server) HTTPClient() *http.Client { return &http.Client{Transport: s.transport} }

// Requests returns the requests received so far, in order: copies of
// each request's URL and headers, without body or context.
func (s *Server) Requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// Fail makes every later request fail with status (nil: stop failing).
func (s *Server) Fail(status *metav1.Status) {
	s.mu.Lock()
	s.failWith = status
	s.mu.Unlock()
}

// ResourceVersion is the server's current resourceVersion.
func (s *Server) ResourceVersion() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strconv.Itoa(s.rv)
}

// Add stores a copy of w (with a new resourceVersion) and sends ADDED to
// matching watchers.
func (s *Server) Add(w *Widget) { s.change(watch.Added, w) }

// Update replaces w and sends MODIFIED.
func (s *Server) Update(w *Widget) { s.change(watch.Modified, w) }

// Delete removes w and sends DELETED.
func (s *Server) Delete(w *Widget) { s.change(watch.Deleted, w) }

func (s *Server) change(typ watch.EventType, w *Widget) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rv++
	w = w.DeepCopy()
	w.APIVersion, w.Kind = GVR.GroupVersion().String(), "Widget"
	w.ResourceVersion = strconv.Itoa(s.rv)
	key := w.Namespace + "/" + w.Name
	if typ == watch.Deleted {
		delete(s.objects, key)
	} else {
		s.objects[key] = w
	}
	s.history = append(s.history, watch.Event{Type: typ, Object: w})
	for ch, f := range s.watchers {
		if f.matches(w) {
			select {
			case ch <- watch.Event{Type: typ, Object: w}:
			default: // a reader that fell behind: end its stream, as a server would
				close(ch)
				delete(s.watchers, ch)
			}
		}
	}
}

func (f watchFilter) matches(w *Widget) bool {
	return (f.namespace == "" || f.namespace == w.Namespace) && f.selector.Matches(labels.Set(w.Labels))
}

// serve handles /apis/<group>/<version>[/namespaces/<ns>]/widgets.
func (s *Server) serve(rw http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests = append(s.requests, &http.Request{Method: r.Method, URL: new(*r.URL), Header: r.Header.Clone()})
	fail := s.failWith
	s.mu.Unlock()
	if s.token != "" && r.Header.Get("Authorization") != "Bearer "+s.token {
		writeStatus(rw, apierrors.NewUnauthorized("a bearer token is required"))
		return
	}
	if fail != nil {
		writeJSON(rw, int(fail.Code), fail)
		return
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		// As an API server answers for a custom resource asked for protobuf
		// (or for CBOR without its feature gate).
		writeStatus(rw, &apierrors.StatusError{ErrStatus: metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusNotAcceptable, Reason: metav1.StatusReasonNotAcceptable,
			Message: "only the following media types are accepted: application/json",
		}})
		return
	}
	prefix := "/apis/" + GVR.GroupVersion().String() + "/"
	rest, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok || r.Method != http.MethodGet {
		writeStatus(rw, apierrors.NewNotFound(GVR.GroupResource(), r.URL.Path))
		return
	}
	var ns string
	if after, ok := strings.CutPrefix(rest, "namespaces/"); ok {
		ns, rest, _ = strings.Cut(after, "/")
	}
	if rest != GVR.Resource {
		writeStatus(rw, apierrors.NewNotFound(GVR.GroupResource(), rest))
		return
	}
	q := r.URL.Query()
	sel, err := labels.Parse(q.Get("labelSelector"))
	if err != nil {
		writeStatus(rw, apierrors.NewBadRequest(err.Error()))
		return
	}
	f := watchFilter{namespace: ns, selector: sel}
	if q.Get("watch") == "true" {
		s.mu.Lock()
		refuse := s.refuseWatchList
		s.mu.Unlock()
		if q.Get("sendInitialEvents") == "true" && refuse {
			writeStatus(rw, apierrors.NewBadRequest("sendInitialEvents is not supported"))
			return
		}
		s.watch(rw, r, f, q.Get("sendInitialEvents") == "true")
		return
	}
	s.list(rw, q, f)
}

func (s *Server) list(rw http.ResponseWriter, q url.Values, f watchFilter) {
	s.mu.Lock()
	var items []Widget
	for _, w := range s.objects {
		if f.matches(w) {
			items = append(items, *w.DeepCopy())
		}
	}
	rv := strconv.Itoa(s.rv)
	s.mu.Unlock()
	slices.SortFunc(items, func(a, b Widget) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	list := &WidgetList{TypeMeta: metav1.TypeMeta{APIVersion: GVR.GroupVersion().String(), Kind: "WidgetList"}}
	list.ResourceVersion = rv
	start := 0
	if c := q.Get("continue"); c != "" {
		var err error
		if start, err = strconv.Atoi(c); err != nil {
			writeStatus(rw, apierrors.NewResourceExpired("continue token expired"))
			return
		}
	}
	items = items[min(start, len(items)):]
	if l, _ := strconv.Atoi(q.Get("limit")); l > 0 && l < len(items) {
		rest := int64(len(items) - l)
		list.RemainingItemCount = &rest
		list.Continue = strconv.Itoa(start + l)
		items = items[:l]
	}
	list.Items = items
	if list.Items == nil {
		list.Items = []Widget{}
	}
	writeJSON(rw, http.StatusOK, list)
}

func (s *Server) watch(rw http.ResponseWriter, r *http.Request, f watchFilter, initialEvents bool) {
	ch := make(chan watch.Event, 100)
	s.mu.Lock()
	if initialEvents {
		// WatchList: the current state as ADDED events, then the bookmark
		// that marks its end, then changes. Registered under the same lock as
		// the snapshot, so no change is lost or doubled.
		var initial []*Widget
		for _, w := range s.objects {
			if f.matches(w) {
				initial = append(initial, w)
			}
		}
		slices.SortFunc(initial, func(a, b *Widget) int {
			return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
		})
		ch = make(chan watch.Event, 100+len(initial)+1)
		for _, w := range initial {
			ch <- watch.Event{Type: watch.Added, Object: w}
		}
		end := &Widget{TypeMeta: metav1.TypeMeta{APIVersion: GVR.GroupVersion().String(), Kind: "Widget"}}
		end.ResourceVersion = strconv.Itoa(s.rv)
		end.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
		ch <- watch.Event{Type: watch.Bookmark, Object: end}
	} else if rv, err := strconv.Atoi(r.URL.Query().Get("resourceVersion")); err == nil && rv > 0 {
		// A watch from a resourceVersion first replays the changes after
		// it, as an API server does, so a client that watches again loses
		// nothing.
		var replay []watch.Event
		for _, ev := range s.history {
			if w := ev.Object.(*Widget); f.matches(w) && resourceVersion(w) > rv {
				replay = append(replay, ev)
			}
		}
		ch = make(chan watch.Event, 100+len(replay))
		for _, ev := range replay {
			ch <- ev
		}
	}
	s.watchers[ch] = f
	close(s.watchersChanged)
	s.watchersChanged = make(chan struct{})
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if _, ok := s.watchers[ch]; ok {
			delete(s.watchers, ch)
		}
		s.mu.Unlock()
	}()
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(http.StatusOK)
	flusher := rw.(http.Flusher)
	flusher.Flush()
	enc := json.NewEncoder(rw)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if r, ok := ev.Object.(*rawBytes); ok {
				if _, err := rw.Write(r.b); err != nil {
					return
				}
				flusher.Flush()
				continue
			}
			raw, err := json.Marshal(ev.Object)
			if err != nil {
				panic(err)
			}
			if err := enc.Encode(metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: raw}}); err != nil {
				return
			}
			flusher.Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// resourceVersion is w's resourceVersion as the number the server made it.
func resourceVersion(w *Widget) int {
	rv, _ := strconv.Atoi(w.ResourceVersion)
	return rv
}

// acceptsJSON reports whether an Accept header admits JSON, the only media
// type the server writes (as for a custom resource).
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch mt {
		case "application/json", "application/*", "*/*":
			return true
		}
	}
	return false
}

func writeStatus(rw http.ResponseWriter, err *apierrors.StatusError) {
	st := err.Status()
	st.APIVersion, st.Kind = "v1", "Status"
	writeJSON(rw, int(st.Code), &st)
}

func writeJSON(rw http.ResponseWriter, code int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(code)
	if err := json.NewEncoder(rw).Encode(v); err != nil {
		panic(fmt.Sprintf("encode: %v", err))
	}
}

// rawBytes is an "event" written to watch streams as is.
type rawBytes struct {
	runtime.Object
	b []byte
}

// SendRaw writes b as is to every open watch stream (malformed events, say).
func (s *Server) SendRaw(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers {
		select {
		case ch <- watch.Event{Object: &rawBytes{b: b}}:
		default:
			close(ch)
			delete(s.watchers, ch)
		}
	}
}

// Bookmark sends a BOOKMARK event with the current resourceVersion to every
// watcher.
func (s *Server) Bookmark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := &Widget{TypeMeta: metav1.TypeMeta{APIVersion: GVR.GroupVersion().String(), Kind: "Widget"}}
	w.ResourceVersion = strconv.Itoa(s.rv)
	for ch := range s.watchers {
		select {
		case ch <- watch.Event{Type: watch.Bookmark, Object: w}:
		default:
			close(ch)
			delete(s.watchers, ch)
		}
	}
}

// WaitForWatchers blocks until at least n watch streams are open (changes
// made before a stream opens are not sent on it) or ctx ends.
func (s *Server) WaitForWatchers(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		if len(s.watchers) >= n {
			s.mu.Unlock()
			return nil
		}
		ch := s.watchersChanged
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// RefuseWatchList makes the server answer WatchList requests
// (sendInitialEvents=true) with 400 Bad Request, as a server without the
// feature does; by default it serves them.
func (s *Server) RefuseWatchList(refuse bool) {
	s.mu.Lock()
	s.refuseWatchList = refuse
	s.mu.Unlock()
}
