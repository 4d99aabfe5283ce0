// Package faultproxy is a loopback reverse proxy in front of an API server
// that the end-to-end tests use to produce what a healthy local server cannot:
// injected error responses (403, 404 on LIST), a network outage that cuts
// open watches and refuses new requests, and a log of the requests a client
// made (to tell WatchList from list+watch).
package faultproxy

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// Proxy forwards plain HTTP on 127.0.0.1 to the API server of a rest.Config,
// adding that config's credentials. All methods are safe for concurrent use.
type Proxy struct {
	url string
	srv *http.Server
	rp  *httputil.ReverseProxy

	mu       sync.Mutex
	faults   []*fault // in injection order; the first match wins
	nextID   int
	down     bool
	inflight map[int]context.CancelFunc
	log      []Request
	done     chan struct{}
}

// Request is one request the proxy received.
type Request struct {
	Method string
	URL    *url.URL
}

// IsWatch reports whether r is a WATCH (watch=true or =1).
func (r Request) IsWatch() bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1"
}

// IsWatchList reports whether r is a streaming list (a WATCH with
// sendInitialEvents=true).
func (r Request) IsWatchList() bool {
	return r.IsWatch() && r.URL.Query().Get("sendInitialEvents") == "true"
}

// IsList reports whether r is a LIST/GET that is not a watch.
func (r Request) IsList() bool { return r.Method == http.MethodGet && !r.IsWatch() }

type fault struct {
	match  func(Request) bool
	status metav1.Status
}

// New starts a proxy in front of the server of target. Close stops it.
func New(target *rest.Config) (*Proxy, error) {
	u, err := url.Parse(target.Host)
	if err != nil {
		return nil, fmt.Errorf("parsing host %q: %w", target.Host, err)
	}
	rt, err := rest.TransportFor(target)
	if err != nil {
		return nil, fmt.Errorf("building a transport for %s: %w", target.Host, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	p := &Proxy{
		url:      "http://" + ln.Addr().String(),
		inflight: map[int]context.CancelFunc{},
		done:     make(chan struct{}),
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = u.Host
		},
		Transport:     rt,
		FlushInterval: -1, // watches stream
		ErrorLog:      nil,
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(p.serve)}
	go func() {
		defer close(p.done)
		_ = p.srv.Serve(ln)
	}()
	return p, nil
}

// Config returns a client config that talks to the server through the
// proxy: plain HTTP on loopback, no client-side throttling.
func (p *Proxy) Config() *rest.Config {
	return &rest.Config{Host: p.url, QPS: -1}
}

// Inject makes the proxy answer requests matching match with a Status of the
// given code and reason instead of forwarding them, until the returned func
// is called.
func (p *Proxy) Inject(match func(Request) bool, code int32, reason metav1.StatusReason, message string) (remove func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := &fault{match: match, status: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: code, Reason: reason, Message: message,
	}}
	p.faults = append(p.faults, f)
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.faults = slices.DeleteFunc(p.faults, func(g *fault) bool { return g == f })
	}
}

// SetDown(true) simulates a network outage: every request in flight (open
// watches included) is cut and new connections are closed without an
// answer. SetDown(false) restores service.
func (p *Proxy) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for id, cancel := range p.inflight {
			cancel()
			delete(p.inflight, id)
		}
	}
}

// CutWatches ends every request in flight (watches, mostly) without taking
// the proxy down; clients reconnect at once.
func (p *Proxy) CutWatches() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, cancel := range p.inflight {
		cancel()
		delete(p.inflight, id)
	}
}

// Requests returns the requests received so far, in arrival order.
func (p *Proxy) Requests() []Request {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Request(nil), p.log...)
}

// Close stops the proxy, cutting every open request, and waits for its
// server goroutine to exit.
func (p *Proxy) Close() error {
	p.CutWatches()
	err := p.srv.Close()
	<-p.done
	return err
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	req := Request{Method: r.Method, URL: r.URL}
	p.mu.Lock()
	p.log = append(p.log, req)
	if p.down {
		p.mu.Unlock()
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	for _, f := range p.faults {
		if f.match(req) {
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(int(f.status.Code))
			_ = json.NewEncoder(w).Encode(f.status)
			return
		}
	}
	ctx, cancel := context.WithCancel(r.Context())
	id := p.nextID
	p.nextID++
	p.inflight[id] = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.inflight, id)
		p.mu.Unlock()
		cancel()
	}()
	p.rp.ServeHTTP(w, r.WithContext(ctx))
}
