package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	certutil "k8s.io/client-go/util/cert"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

// initialEventsEnd is the annotation of the bookmark that ends a WatchList
// stream's initial events; it appears nowhere else in a stream, in JSON or
// protobuf.
var initialEventsEnd = []byte("k8s.io/initial-events-end")

// relistProxy is a loopback TLS reverse proxy in front of the server that
// forces a relist on a synced informer: force ends the open watches of a
// resource and answers the next watch of it (the client's re-watch from
// its last resourceVersion) with 410 Expired, as a server does for a
// resourceVersion compacted away, so the client lists again (a LIST, or a
// WatchList stream with WatchList on); a client whose re-watch is itself a
// WatchList stream of every object (client-go's) gets no 410. It reports the relist done when the
// client is watching again after a LIST (the reflector starts its watch
// once the LIST replaced its store) or a WatchList stream passed its
// initial-events-end bookmark.
type relistProxy struct {
	srv        *http.Server
	kubeconfig string

	mu       sync.Mutex
	resource string        // armed for, "" when not
	state    int           // relistArmed, relistExpired, relistListed
	watches  []openWatch   // watches served so far
	done     chan struct{} // closed when the relist is done
	// hold, while open, holds the armed resource's requests (the client's
	// re-watch) back: the objects change meanwhile (-relist-change), unseen
	// by any watch, and the relist is the first to see them.
	hold chan struct{}
}

const (
	relistArmed = iota + 1
	relistExpired
	relistListed
)

// startRelistProxy serves the proxy on 127.0.0.1 in front of upstream and
// writes a kubeconfig for it (the upstream's token, the proxy's own CA)
// into path.
func startRelistProxy(upstream *rest.Config, path string) (*relistProxy, error) {
	target, err := url.Parse(upstream.Host)
	if err != nil {
		return nil, err
	}
	tr, err := rest.TransportFor(&rest.Config{TLSClientConfig: upstream.TLSClientConfig})
	if err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}})
	if err != nil {
		return nil, err
	}
	p := &relistProxy{kubeconfig: path}
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = tr
	rp.FlushInterval = -1 // watches stream
	rp.ModifyResponse = p.watchResponse
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, ok := p.request(w, r)
		if ok {
			rp.ServeHTTP(w, r.WithContext(ctx))
		}
	})}
	go func() { _ = p.srv.Serve(ln) }()
	cfg := &rest.Config{
		Host:            "https://" + ln.Addr().String(),
		BearerToken:     upstream.BearerToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: certPEM},
	}
	if err := kubeapiserver.WriteKubeconfig(path, cfg); err != nil {
		p.srv.Close()
		return nil, err
	}
	return p, nil
}

// startRelistProxyFor starts a proxy in front of the server of kubeconfig.
func startRelistProxyFor(kubeconfig, path string) (*relistProxy, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	return startRelistProxy(cfg, path)
}

func (p *relistProxy) close() { p.srv.Close() }

// isResource reports whether r is a core/v1 request for resource across
// namespaces (what the contenders list and watch).
func isResource(r *http.Request, resource string) bool {
	return r.URL.Path == "/api/v1/"+resource
}

// request tracks r (a watch of the armed resource can be ended by force)
// and answers it itself when it is the watch to expire; it returns the
// context to proxy r with, and false when it answered.
func (p *relistProxy) request(w http.ResponseWriter, r *http.Request) (context.Context, bool) {
	ctx := r.Context()
	p.mu.Lock()
	hold := p.hold
	p.mu.Unlock()
	if hold != nil && isResource(r, p.armed()) {
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
	q := r.URL.Query()
	watching := q.Get("watch") == "true" || q.Get("watch") == "1"
	initial := q.Get("sendInitialEvents") == "true"
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.resource != "" && isResource(r, p.resource) {
		switch {
		case watching && p.state == relistArmed && !initial:
			p.state = relistExpired
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusGone)
			_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version (relist forced by bench/builtin)","reason":"Expired","code":410}`)
			return ctx, false
		case watching && p.state == relistArmed && initial:
			// A WatchList client that streams everything again
			// on a re-watch (client-go does) relists by itself.
			p.state = relistExpired
		case !watching && p.state == relistExpired:
			p.state = relistListed
		case watching && !initial && p.state == relistListed:
			p.finish()
		}
	}
	if watching {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		p.watches = append(p.watches, openWatch{r.URL.Path, cancel})
	}
	return ctx, true
}

// openWatch is a watch the proxy serves.
type openWatch struct {
	path   string
	cancel context.CancelFunc
}

// watchResponse watches a WatchList stream of the relist for its
// initial-events-end bookmark.
func (p *relistProxy) watchResponse(resp *http.Response) error {
	r := resp.Request
	p.mu.Lock()
	relisting := p.resource != "" && p.state == relistExpired && isResource(r, p.resource) && r.URL.Query().Get("sendInitialEvents") == "true"
	p.mu.Unlock()
	if relisting && resp.StatusCode == http.StatusOK {
		pr, pw := io.Pipe()
		resp.Body = &endWatcher{ReadCloser: resp.Body, pw: pw}
		go p.scanForEnd(pr, resp.Header.Get("Content-Encoding") == "gzip")
	}
	return nil
}

// finish marks the relist done; p.mu is held.
func (p *relistProxy) finish() {
	if p.done != nil {
		close(p.done)
		p.done = nil
	}
	p.resource, p.state = "", 0
}

// endWatcher copies what the client reads of a stream into pw, for
// scanForEnd.
type endWatcher struct {
	io.ReadCloser
	pw *io.PipeWriter
}

func (e *endWatcher) Read(b []byte) (int, error) {
	n, err := e.ReadCloser.Read(b)
	if n > 0 {
		_, _ = e.pw.Write(b[:n]) // scanForEnd reads it all
	}
	if err != nil {
		e.pw.CloseWithError(err)
	}
	return n, err
}

func (e *endWatcher) Close() error {
	e.pw.Close()
	return e.ReadCloser.Close()
}

// scanForEnd reads a stream (gzip-compressed when gzipped: the server
// compresses watches too) until initialEventsEnd, finishes the relist and
// drains the rest.
func (p *relistProxy) scanForEnd(pr *io.PipeReader, gzipped bool) {
	defer func() { _, _ = io.Copy(io.Discard, pr) }()
	var r io.Reader = pr
	if gzipped {
		gz, err := gzip.NewReader(pr)
		if err != nil {
			return
		}
		r = gz
	}
	buf := make([]byte, 64<<10)
	var tail []byte
	for {
		n, err := r.Read(buf)
		chunk := append(tail, buf[:n]...)
		if bytes.Contains(chunk, initialEventsEnd) {
			p.mu.Lock()
			p.finish()
			p.mu.Unlock()
			return
		}
		tail = append(tail[:0], chunk[max(0, len(chunk)-len(initialEventsEnd)):]...)
		if err != nil {
			return
		}
	}
}

// armed returns the resource the proxy is armed for, "" if none.
func (p *relistProxy) armed() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.resource
}

// force ends the open watches of resource and expires the client's next
// watch of it, which waits until hold is closed (nil: it does not wait);
// the returned channel is closed once the client has relisted.
func (p *relistProxy) force(resource string, hold chan struct{}) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	done := make(chan struct{})
	p.resource, p.state, p.done, p.hold = resource, relistArmed, done, hold
	kept := p.watches[:0]
	for _, w := range p.watches {
		if w.path == "/api/v1/"+resource {
			w.cancel()
		} else {
			kept = append(kept, w)
		}
	}
	p.watches = kept
	return done
}

// relistReport is a forced relist on a synced contender.
type relistReport struct {
	// SteadyRSS is the contender's RSS once synced, just before the relist;
	// PeakRSS its peak RSS from then until synced again (VmHWM reset
	// through /proc/PID/clear_refs).
	SteadyRSS, PeakRSS int64
	// Seconds is from the forced end of the watch until the client has
	// relisted; CPUSeconds the contender's CPU in that time.
	Seconds, CPUSeconds float64
}

// relist forces a relist of resource on the synced contender pid through
// p and measures it, waiting at most timeout. change, when not nil, changes
// objects after the contender's watch has ended and before its relist
// starts (the relist's time and CPU are counted from then; its peak RSS
// from before).
func relist(ctx context.Context, p *relistProxy, pid int, resource string, timeout time.Duration, change func(context.Context) error) (relistReport, error) {
	var rep relistReport
	var err error
	if rep.SteadyRSS, err = procStatusBytes(pid, "VmRSS"); err != nil {
		return rep, err
	}
	// Writing 5 resets VmHWM to the current RSS.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return rep, fmt.Errorf("resetting the contender's peak RSS: %w", err)
	}
	var hold chan struct{}
	if change != nil {
		hold = make(chan struct{})
	}
	done := p.force(resource, hold)
	if change != nil {
		err := change(ctx)
		close(hold)
		if err != nil {
			return rep, fmt.Errorf("changing objects before the relist: %w", err)
		}
	}
	cpu0, err := procCPU(pid)
	if err != nil {
		return rep, err
	}
	start := time.Now()
	deadline := time.After(timeout)
	// A contender that dies during the relist (OOM-killed) ends the wait.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			if !procAlive(pid) {
				return rep, fmt.Errorf("the contender exited during the relist (RSS before it %.0f MB)", float64(rep.SteadyRSS)/1e6)
			}
		case <-deadline:
			return rep, fmt.Errorf("not relisted within %v", timeout)
		case <-ctx.Done():
			return rep, context.Cause(ctx)
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	// The old objects may be dropped just after the new list is in.
	time.Sleep(500 * time.Millisecond)
	cpu1, err1 := procCPU(pid)
	hwm, err2 := procStatusBytes(pid, "VmHWM")
	if err := errors.Join(err1, err2); err != nil {
		return rep, err
	}
	rep.CPUSeconds, rep.PeakRSS = cpu1-cpu0, hwm
	return rep, nil
}

// relistChange returns the change made before each forced relist: with
// Config.RelistChange, a merge patch of one label on that percentage of the
// size Pods, spread evenly over them; nil without it or for another
// resource.
func (d *driver) relistChange(resource string, size int) func(context.Context) error {
	n := int(float64(size) * d.cfg.RelistChange / 100)
	if resource != "pods" || n <= 0 {
		return nil
	}
	gen := 0
	return func(ctx context.Context) error {
		gen++
		patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{"bench-relist":"%d"}}}`, gen))
		return parallel(ctx, d.cfg.Writers, 0, n, func(ctx context.Context, j int) error {
			i := j * size / n
			return retry(ctx, func() error {
				_, err := d.cs.CoreV1().Pods(namespace(i)).Patch(ctx, "pod-"+strconv.Itoa(i), types.MergePatchType, patch, metav1.PatchOptions{})
				return err
			})
		})
	}
}
