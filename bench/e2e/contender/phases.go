package main

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptrace"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// phaseClock records when the contender's sync reached each phase (see
// proto.Phases). Safe for concurrent use.
type phaseClock struct {
	start time.Time

	mu     sync.Mutex
	p      proto.Phases
	listed bool // the first LIST's request was seen
	watch  bool // the first WATCH's request was seen
	// The last body byte times are updated on every read of the body, so
	// they are kept apart from mu.
	listLast, watchLast atomic.Int64 // ns since start
	listBytes           atomic.Int64
	frozen              atomic.Bool // synced: the watch's later bytes are updates
}

func newPhaseClock(start time.Time) *phaseClock { return &phaseClock{start: start} }

func (c *phaseClock) since() float64 { return time.Since(c.start).Seconds() }

func (c *phaseClock) set(f *float64) {
	c.mu.Lock()
	if *f == 0 {
		*f = c.since()
	}
	c.mu.Unlock()
}

// wrap is a rest.Config WrapTransport that times the first request, the
// first connection, and the first LIST's and WATCH's responses for foos.
func (c *phaseClock) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		c.set(&c.p.FirstRequest)
		isFoos := req.Method == http.MethodGet && strings.HasSuffix(req.URL.Path, "/foos")
		isWatch := req.URL.Query().Get("watch") == "true"
		var first bool
		if isFoos {
			c.mu.Lock()
			if isWatch {
				first, c.watch = !c.watch, true
				if first {
					c.p.WatchRequest = c.since()
				}
			} else {
				first, c.listed = !c.listed, true
				if first {
					c.p.ListRequest = c.since()
				}
			}
			c.mu.Unlock()
		}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			GotConn: func(httptrace.GotConnInfo) { c.set(&c.p.Connected) },
			TLSHandshakeDone: func(tls.ConnectionState, error) {
				c.set(&c.p.Connected)
			},
		}))
		resp, err := rt.RoundTrip(req)
		if err != nil || !first {
			return resp, err
		}
		c.mu.Lock()
		if c.p.Proto == "" || !isWatch {
			c.p.Proto = resp.Proto
		}
		c.mu.Unlock()
		if isWatch {
			c.set(&c.p.WatchHeaders)
			resp.Body = &timedBody{ReadCloser: resp.Body, c: c, first: &c.p.WatchFirstByte, last: &c.watchLast, freeze: true}
		} else {
			c.set(&c.p.ListHeaders)
			resp.Body = &timedBody{ReadCloser: resp.Body, c: c, first: &c.p.ListFirstByte, last: &c.listLast, bytes: &c.listBytes}
		}
		return resp, nil
	})
}

// synced records the moment of the sync and returns the phases.
func (c *phaseClock) synced() proto.Phases {
	c.frozen.Store(true)
	c.mu.Lock()
	p := c.p
	c.mu.Unlock()
	p.ListLastByte = time.Duration(c.listLast.Load()).Seconds()
	p.WatchLastByte = time.Duration(c.watchLast.Load()).Seconds()
	p.ListBytes = c.listBytes.Load()
	samples := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(samples)
	if samples[0].Value.Kind() == metrics.KindUint64 {
		p.GCCycles = samples[0].Value.Uint64()
	}
	if samples[1].Value.Kind() == metrics.KindFloat64 {
		p.GCCPUSeconds = samples[1].Value.Float64()
	}
	return p
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// timedBody records the first and the latest read that returned bytes.
type timedBody struct {
	io.ReadCloser
	c      *phaseClock
	first  *float64
	last   *atomic.Int64
	bytes  *atomic.Int64
	freeze bool // stop recording once synced (a watch's later bytes are updates)
	seen   bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !(b.freeze && b.c.frozen.Load()) {
		if !b.seen {
			b.seen = true
			b.c.set(b.first)
		}
		b.last.Store(int64(time.Since(b.c.start)))
		if b.bytes != nil {
			b.bytes.Add(int64(n))
		}
	}
	return n, err
}
