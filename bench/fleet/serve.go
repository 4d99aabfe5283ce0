package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/bench/fleet/internal/endpoints"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
)

// serve starts the API servers and the proxy, creates the Foos, writes the
// endpoints file and serves until SIGINT/SIGTERM.
func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	clusters := fs.Int("clusters", 100, "clusters with Foos")
	direct := fs.Int("direct", 3, "of those, clusters that are a real API server of their own; the others are namespaces of one more server behind the proxy")
	empty := fs.Int("empty", 100, "clusters with no Foo (through the proxy)")
	objects := fs.Int("objects", 1000, "Foos per cluster")
	out := fs.String("endpoints", "", "where to write the endpoints file (required)")
	_ = fs.Parse(args)
	if *out == "" || *direct > *clusters {
		return errors.New("serve: -endpoints is required and -direct must not exceed -clusters")
	}
	localapi.QuietKlog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		return err
	}
	start := func() (*localapi.Server, error) {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
		defer cancel()
		return localapi.Start(sctx, localapi.Options{CRDs: crds})
	}
	var servers []*localapi.Server
	defer func() {
		for _, s := range servers {
			sctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			_ = s.Stop(sctx)
			cancel()
		}
	}()
	backing, err := start()
	if err != nil {
		return fmt.Errorf("starting the backing server: %w", err)
	}
	servers = append(servers, backing)

	px, err := newProxy(backing.Config())
	if err != nil {
		return err
	}
	defer px.Close()

	var eps endpoints.Endpoints
	for n := range *clusters {
		name := fmt.Sprintf("c%03d", n)
		if n < *direct {
			s, err := start()
			if err != nil {
				return fmt.Errorf("starting server %d: %w", n, err)
			}
			servers = append(servers, s)
			cfg := s.Config()
			if err := seed(ctx, cfg, name, *objects); err != nil {
				return err
			}
			eps.Clusters = append(eps.Clusters, endpoints.Endpoint{Name: name, Host: cfg.Host, CAData: cfg.CAData, ServerName: cfg.ServerName, Token: cfg.BearerToken, Objects: *objects, Direct: true})
			continue
		}
		if err := seed(ctx, backing.Config(), name, *objects); err != nil {
			return err
		}
		eps.Clusters = append(eps.Clusters, px.endpoint(name, *objects))
	}
	for n := range *empty {
		eps.Empty = append(eps.Empty, px.endpoint(fmt.Sprintf("e%03d", n), 0))
	}
	hung, err := newHung()
	if err != nil {
		return err
	}
	defer hung.Close()
	eps.Unreachable = endpoints.Endpoint{Name: "unreachable", Host: "https://" + hung.Addr().String(), CAData: px.ca, Token: "none"}

	b, err := json.Marshal(eps)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*out+".tmp", b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(*out+".tmp", *out); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "serve: %d clusters (%d direct) x %d Foos, %d empty; endpoints in %s\n", *clusters, *direct, *objects, *empty, *out)
	<-ctx.Done()
	return nil
}

// seed creates n Foos in namespace ns of the server cfg reaches, 32 at a
// time.
func seed(ctx context.Context, cfg *rest.Config, ns string, n int) error {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	defer hc.CloseIdleConnections()
	url := cfg.Host + "/apis/" + samplev1.SchemeGroupVersion.String() + "/namespaces/" + ns + "/foos"
	work := make(chan int)
	errs := make(chan error, 32)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for i := range work {
				body := fmt.Sprintf(`{"apiVersion":%q,"kind":"Foo","metadata":{"name":"foo-%05d","namespace":%q,"labels":{"app":"bench","shard":"s%d"}},"spec":{"deploymentName":"d-%05d","replicas":1,"hostName":"host-%d"}}`,
					samplev1.SchemeGroupVersion.String(), i, ns, i%10, i, i%50)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := hc.Do(req)
				if err != nil {
					errs <- err
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusConflict {
					errs <- fmt.Errorf("creating a Foo in %s: %s: %s", ns, resp.Status, b)
					return
				}
			}
		})
	}
	var err1 error
loop:
	for i := range n {
		select {
		case work <- i:
		case err1 = <-errs:
			break loop
		}
	}
	close(work)
	wg.Wait()
	if err1 == nil {
		select {
		case err1 = <-errs:
		default:
		}
	}
	return err1
}

// proxy serves each cluster under its own path prefix, kcp-style:
// https://proxy/clusters/<name>/apis/<g>/<v>/foos is the backing server's
// /apis/<g>/<v>/namespaces/<name>/foos, and a request for one namespace of
// the cluster goes to the cluster's namespace too. TLS on loopback, a bearer
// token of its own; the backing server is reached with its own credentials.
type proxy struct {
	srv   *httptest.Server
	ca    []byte
	token string
}

func newProxy(backing *rest.Config) (*proxy, error) {
	rt, err := rest.TransportFor(backing)
	if err != nil {
		return nil, err
	}
	target := strings.TrimSuffix(backing.Host, "/")
	p := &proxy{token: randomHex(16)}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.Header.Del("Authorization")
			u := *r.Out.URL
			u.Scheme = "https"
			u.Host = strings.TrimPrefix(target, "https://")
			u.Path = rewritePath(r.In.URL.Path)
			u.RawPath = ""
			r.Out.URL = &u
			r.Out.Host = ""
		},
		Transport:     rt,
		FlushInterval: -1,
		ErrorLog:      nil,
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+p.token {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if !strings.HasPrefix(r.URL.Path, "/clusters/") {
			http.NotFound(w, r)
			return
		}
		rp.ServeHTTP(w, r)
	})
	p.srv = httptest.NewUnstartedServer(h)
	p.srv.EnableHTTP2 = true
	p.srv.StartTLS()
	p.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	return p, nil
}

// rewritePath maps /clusters/<name>/apis/<g>/<v>/[namespaces/<ns>/]<rest>
// to /apis/<g>/<v>/namespaces/<name>/<rest>; other paths of a cluster go
// to the backing server as they are.
func rewritePath(p string) string {
	rest := strings.TrimPrefix(p, "/clusters/")
	name, rest, _ := strings.Cut(rest, "/")
	parts := strings.Split(rest, "/")
	if len(parts) < 4 || parts[0] != "apis" {
		return "/" + rest
	}
	head, tail := parts[:3], parts[3:]
	if tail[0] == "namespaces" && len(tail) >= 3 {
		tail = tail[2:]
	}
	return "/" + strings.Join(head, "/") + "/namespaces/" + name + "/" + strings.Join(tail, "/")
}

// endpoint is the cluster name behind the proxy. Its CA data is the
// proxy's certificate with a comment naming the cluster (PEM parsers skip
// it): so client-go's transport cache, keyed by TLS settings, gives each
// cluster a transport and connections of its own, as real clusters (each
// with its own CA) get, instead of all proxied clusters sharing one.
func (p *proxy) endpoint(name string, objects int) endpoints.Endpoint {
	ca := append(slices.Clip(p.ca), "# cluster "+name+"\n"...)
	return endpoints.Endpoint{Name: name, Host: p.srv.URL + "/clusters/" + name, CAData: ca, Token: p.token, Objects: objects}
}

func (p *proxy) Close() { p.srv.Close() }

// hung accepts connections and never answers: an unreachable cluster (a
// hung TCP connection, the harder case than a refused one).
type hung struct {
	net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newHung() (*hung, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	h := &hung{Listener: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			h.mu.Lock()
			h.conns = append(h.conns, c)
			h.mu.Unlock()
		}
	}()
	return h, nil
}

func (h *hung) Close() error {
	err := h.Listener.Close()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		c.Close()
	}
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
