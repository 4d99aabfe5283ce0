package fleet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// errConnsClosed is what a dial of a disengaged cluster's transport returns.
var errConnsClosed = errors.New("fleet: cluster disengaged: its transport is closed")

// conns is the set of network connections one cluster's HTTP transport
// opened, so that stopping the cluster closes every one of them — idle or
// not — once its informers have stopped.
//
// Why not http.Client.CloseIdleConnections: client-go's bearer-token round
// tripper does not pass it on (so with a token it closes nothing), and a
// watch stream that was just cancelled still counts as active on its HTTP/2
// connection while the transport tears it down, so the connection is not
// idle yet and stays open until the transport's 90 s idle timeout, with its
// read loop goroutine and buffers. The transport is the cluster's own (see
// clusterHTTPClient), so no other user's connection is closed with them.
type conns struct {
	dial func(ctx context.Context, network, address string) (net.Conn, error)
	// transport is the *http.Transport under client-go's round trippers
	// (nil if not found): its pool is emptied after the connections close.
	transport *http.Transport

	mu     sync.Mutex
	open   map[*trackedConn]struct{}
	closed bool
}

// trackedConn removes itself from its set when closed.
type trackedConn struct {
	net.Conn
	set  *conns
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.set.mu.Lock()
		delete(c.set.open, c)
		c.set.mu.Unlock()
	})
	return c.Conn.Close()
}

func (s *conns) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	conn, err := s.dial(ctx, network, address)
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: conn, set: s}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = conn.Close()
		return nil, errConnsClosed
	}
	s.open[tc] = struct{}{}
	s.mu.Unlock()
	return tc, nil
}

// closeAll closes every connection of the transport; later dials fail.
//
// Gracefully first: the cluster's watch streams were just cancelled, and
// x/net's HTTP/2 client ends a stream in a goroutine of its own, after
// which the connection is idle and CloseIdleConnections closes it cleanly.
// Closing the connection under a stream still ending instead makes that
// goroutine re-arm the connection's idle timer (90 s), which then keeps
// the transport reachable until it fires. So idle connections are closed
// every few milliseconds for up to closeGrace, while connections remain;
// what remains after it (a stream that does not end) is closed by force.
func (s *conns) closeAll() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	if s.transport != nil {
		for deadline := time.Now().Add(closeGrace); ; time.Sleep(5 * time.Millisecond) {
			s.transport.CloseIdleConnections()
			if s.count() == 0 || time.Now().After(deadline) {
				break
			}
		}
	}
	s.mu.Lock()
	open := s.open
	s.open = nil
	s.mu.Unlock()
	for c := range open {
		_ = c.Close()
	}
	if s.transport != nil {
		// Drops the pool's entries of the connections closed by force.
		s.transport.CloseIdleConnections()
	}
}

// closeGrace bounds how long closeAll waits for connections to go idle.
const closeGrace = time.Second

func (s *conns) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.open)
}

// clusterHTTPClient builds the HTTP client of one cluster: rest.HTTPClientFor
// over a copy of cfg whose transport client-go builds for this cluster alone,
// and the set of its connections.
//
// client-go keeps every transport it builds for a TLS config in a
// process-wide cache keyed by that config (CA and client certificate data,
// server name), so that clients of one config share connections. In a fleet
// each cluster has a config of its own, so the cache would only keep each
// disengaged cluster's transport reachable (and, with the
// ClientsAllowTLSCacheGC gate off, keep it for ever). A config with a Proxy
// func is never cached (a func cannot be compared), so the copy gets
// http.ProxyFromEnvironment, which is what client-go uses when Proxy is nil:
// the cluster is reached as before. Its Dial (the config's own, or client-go's
// default dialer) is wrapped to record every connection.
//
// A config with its own Transport is used as it is, and the connections are
// not tracked (nil conns): the caller owns that transport.
func clusterHTTPClient(cfg *rest.Config) (*http.Client, *conns, error) {
	if cfg.Transport != nil {
		hc, err := rest.HTTPClientFor(cfg)
		return hc, nil, err
	}
	cfg = rest.CopyConfig(cfg)
	if cfg.Proxy == nil {
		cfg.Proxy = http.ProxyFromEnvironment
	}
	s := &conns{dial: cfg.Dial, open: map[*trackedConn]struct{}{}}
	if s.dial == nil {
		// client-go's default (transport/cache.go).
		s.dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	cfg.Dial = s.DialContext
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	s.transport = httpTransport(hc.Transport)
	return hc, s, nil
}

// httpTransport unwraps client-go's round trippers down to the
// *http.Transport, or returns nil.
func httpTransport(rt http.RoundTripper) *http.Transport {
	for {
		switch t := rt.(type) {
		case *http.Transport:
			return t
		case utilnet.RoundTripperWrapper:
			rt = t.WrappedRoundTripper()
		default:
			return nil
		}
	}
}
