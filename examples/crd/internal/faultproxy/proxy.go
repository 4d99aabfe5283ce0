// Package faultproxy is a loopback reverse proxy in front of an API server
// that the end-to-end tests use to produce what a healthy local server cannot:
// injected error responses (403, 404 on LIST, 429 with Retry-After), a
// network outage that cuts open watches and refuses new requests, faults in
// the bytes of open watch streams (undecodable events, bytes that break the
// framing, a stream cut in the middle of an event, stalls), a hostile server's
// answers (watches answered with a canned event, events injected into open
// watches, objects rewritten in LIST and WATCH bodies; see hostile.go), and a
// log of the requests a client made (to tell WatchList from list+watch).
package faultproxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

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
	answers  []*answer
	rewrite  func(obj map[string]any) // of every object in LIST and WATCH bodies, or nil
	nextID   int
	down     bool
	inflight map[int]context.CancelFunc
	streams  map[*stream]struct{} // open watch responses
	log      []Request
	done     chan struct{}
}

// Request is one request the proxy received.
type Request struct {
	Method    string
	URL       *url.URL
	UserAgent string
	Time      time.Time // arrival
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
		streams:  map[*stream]struct{}{},
		done:     make(chan struct{}),
	}
	p.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(u)
			pr.Out.Host = u.Host
			// Faults work on the bytes: no compression (the server gzips
			// large LISTs and WatchList streams).
			pr.Out.Header.Del("Accept-Encoding")
		},
		Transport:     rt,
		FlushInterval: -1,                         // watches stream
		ErrorLog:      log.New(io.Discard, "", 0), // cut and truncated streams are the point
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.WriteHeader(http.StatusBadGateway)
		},
		ModifyResponse: func(resp *http.Response) error {
			req := Request{Method: resp.Request.Method, URL: resp.Request.URL}
			switch {
			case resp.StatusCode != http.StatusOK:
			case req.IsWatch():
				resp.Body = p.newStream(resp.Request.Context(), resp.Body, resp.Request.URL.Path)
			case req.IsList():
				return p.rewriteList(resp)
			}
			return nil
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
	return p.InjectStatus(match, metav1.Status{Code: code, Reason: reason, Message: message})
}

// InjectStatus is Inject with a whole Status (Kind and Status are filled
// in); a Details.RetryAfterSeconds is also sent as a Retry-After header, as
// the API server does with 429.
func (p *Proxy) InjectStatus(match func(Request) bool, st metav1.Status) (remove func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	st.Status = metav1.StatusFailure
	f := &fault{match: match, status: st}
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
	req := Request{Method: r.Method, URL: r.URL, UserAgent: r.UserAgent(), Time: time.Now()}
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
	for _, a := range p.answers {
		if a.match(req) {
			p.mu.Unlock()
			a.serve(w, req)
			return
		}
	}
	for _, f := range p.faults {
		if f.match(req) {
			p.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			if d := f.status.Details; d != nil && d.RetryAfterSeconds > 0 {
				w.Header().Set("Retry-After", strconv.Itoa(int(d.RetryAfterSeconds)))
			}
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

// WatchFault is a fault in the bytes of a watch response (see
// InjectWatchFault). The API server's JSON watch stream is one event per
// line; faults go between lines, or cut one.
type WatchFault int

// The watch faults.
const (
	// GarbageEvent sends a well-framed event whose object cannot be decoded
	// (a number for metadata.name): a decoder can skip it and go on.
	GarbageEvent WatchFault = iota + 1
	// GarbageBytes sends bytes that are not JSON: the stream loses its
	// framing.
	GarbageBytes
	// Truncate sends the first half of the next event, then cuts the
	// connection.
	Truncate
)

// String names f.
func (f WatchFault) String() string {
	switch f {
	case GarbageEvent:
		return "garbage-event"
	case GarbageBytes:
		return "garbage-bytes"
	case Truncate:
		return "truncate"
	}
	return "WatchFault(" + strconv.Itoa(int(f)) + ")"
}

var (
	garbageEvent = []byte(`{"type":"MODIFIED","object":{"apiVersion":"samplecontroller.example.com/v1","kind":"Foo","metadata":{"name":7,"resourceVersion":[]}}}` + "\n")
	garbageBytes = []byte("\x00\xffnot json}{\n")
)

// InjectWatchFault applies f once to every watch response open now: garbage
// at once (between two events), a truncation at the next event. It returns
// how many watches it hit.
func (p *Proxy) InjectWatchFault(f WatchFault) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for s := range p.streams {
		s.pending = append(s.pending, f)
		s.kickLocked()
	}
	return len(p.streams)
}

// StallWatches holds the bytes of every watch response open now for d, as
// a hung connection would; they are delivered afterwards, nothing is lost.
// It returns how many watches it hit.
func (p *Proxy) StallWatches(d time.Duration) int {
	return p.StallWatchesOf(d, func(string) bool { return true })
}

// StallWatchesOf is StallWatches for the watches whose URL path match
// accepts (e.g. one resource's, so that its events lag another's).
func (p *Proxy) StallWatchesOf(d time.Duration, match func(path string) bool) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	until := time.Now().Add(d)
	n := 0
	for s := range p.streams {
		if match(s.path) {
			s.stallUntil = until
			n++
		}
	}
	return n
}

// stream is the body of a watch response on its way to the client: a pump
// goroutine reads the server's lines, Read hands them on with the faults
// injected.
type stream struct {
	p     *Proxy
	ctx   context.Context
	body  io.ReadCloser
	path  string        // the watch request's URL path
	lines chan []byte   // from the pump; closed when the body ends
	kick  chan struct{} // cap 1: a fault is pending
	once  sync.Once

	// Guarded by p.mu.
	pending    []WatchFault
	stallUntil time.Time
	inject     [][]byte // event lines to send next
	closeAfter bool     // end the stream once inject is sent

	// Owned by Read (the proxy's copy loop).
	out      []byte
	err      error
	truncate bool
	pumpErr  error // set by the pump before it closes lines
}

func (p *Proxy) newStream(ctx context.Context, body io.ReadCloser, path string) *stream {
	s := &stream{p: p, ctx: ctx, body: body, path: path, lines: make(chan []byte, 64), kick: make(chan struct{}, 1)}
	p.mu.Lock()
	p.streams[s] = struct{}{}
	p.mu.Unlock()
	go s.pump()
	return s
}

func (s *stream) pump() {
	defer close(s.lines)
	r := bufio.NewReaderSize(s.body, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			select {
			case s.lines <- line:
			case <-s.ctx.Done():
				s.pumpErr = s.ctx.Err()
				return
			}
		}
		if err != nil {
			s.pumpErr = err
			return
		}
	}
}

func (s *stream) kickLocked() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Read implements io.Reader.
func (s *stream) Read(b []byte) (int, error) {
	for len(s.out) == 0 {
		if s.err != nil {
			return 0, s.err
		}
		s.p.mu.Lock()
		var (
			f    WatchFault
			line []byte
		)
		switch {
		case len(s.inject) > 0:
			line, s.inject = s.inject[0], s.inject[1:]
		case s.closeAfter:
			s.err = io.EOF
		case len(s.pending) > 0:
			f, s.pending = s.pending[0], s.pending[1:]
		}
		until := s.stallUntil
		rewrite := s.p.rewrite
		s.p.mu.Unlock()
		if line != nil || s.err != nil {
			s.out = line
			continue
		}
		switch f {
		case GarbageEvent:
			s.out = garbageEvent
			continue
		case GarbageBytes:
			s.out = garbageBytes
			continue
		case Truncate:
			s.truncate = true
		}
		if d := time.Until(until); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-s.kick:
				t.Stop()
			case <-s.ctx.Done():
				t.Stop()
				return 0, s.ctx.Err()
			}
			continue
		}
		select {
		case line, ok := <-s.lines:
			switch {
			case !ok:
				s.err = s.pumpErr
			case s.truncate:
				s.out, s.err = line[:len(line)/2], io.ErrUnexpectedEOF
			case rewrite != nil:
				s.out = rewriteEvent(line, rewrite)
			default:
				s.out = line
			}
		case <-s.kick:
		case <-s.ctx.Done():
			return 0, s.ctx.Err()
		}
	}
	n := copy(b, s.out)
	s.out = s.out[n:]
	return n, nil
}

// Close implements io.Closer: it closes the server's body (which ends the
// pump) and forgets the stream.
func (s *stream) Close() error {
	var err error
	s.once.Do(func() {
		s.p.mu.Lock()
		delete(s.p.streams, s)
		s.p.mu.Unlock()
		err = s.body.Close()
	})
	return err
}
