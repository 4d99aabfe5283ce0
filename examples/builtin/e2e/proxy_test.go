package e2e

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
)

// proxy forwards TCP connections from a loopback port to the API server,
// and can cut them (SetDown): a network partition of one client, TLS and
// all, without touching the server.
type proxy struct {
	ln     net.Listener
	target string
	cfg    *rest.Config

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// newProxy starts a proxy to cfg's server; it stops with the test.
func newProxy(t *testing.T, cfg *rest.Config) *proxy {
	t.Helper()
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: u.Host, conns: map[net.Conn]struct{}{}}
	p.cfg = rest.CopyConfig(cfg)
	p.cfg.Host = "https://" + ln.Addr().String()
	// The server's certificate is for 127.0.0.1, which the proxy is too.
	p.wg.Go(p.accept)
	t.Cleanup(p.close)
	return p
}

// Config returns cfg with the proxy's address.
func (p *proxy) Config() *rest.Config { return rest.CopyConfig(p.cfg) }

// SetDown cuts every connection and refuses new ones (true), or lets them
// through again (false).
func (p *proxy) SetDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			c.Close()
		}
	}
}

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.mu.Unlock()
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		if p.down { // cut while dialling
			p.mu.Unlock()
			c.Close()
			up.Close()
			continue
		}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(c, up) })
		p.wg.Go(func() { p.pipe(up, c) })
	}
}

func (p *proxy) pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *proxy) close() {
	p.ln.Close()
	p.SetDown(true)
	p.wg.Wait()
}
