package localapi

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
)

// Options configures Start. The zero value starts a server with the watch
// cache on, default feature gates, no CRDs and a temporary data directory.
type Options struct {
	// Dir holds etcd's data and the kubeconfig. Empty means a new temporary
	// directory that Stop removes; a directory given here is kept.
	Dir string
	// DisableWatchCache is --watch-cache=false: every LIST and WATCH goes to
	// etcd, so compaction surfaces as 410 Expired.
	DisableWatchCache bool
	// FeatureGates are applied to the process-wide feature gate, e.g.
	// {"WatchList": false}. Every server of one process must agree on them.
	FeatureGates map[string]bool
	// CRDs are installed after the server is ready; Start returns once each
	// is Established and served. Use ParseCRDs to read manifests.
	CRDs []*CRD
	// KubeconfigPath, when set, is where the kubeconfig is written (mode
	// 0600); otherwise it goes to Dir/kubeconfig.
	KubeconfigPath string
}

// Server is a running etcd plus API server. Its methods are safe for
// concurrent use, but StopAPIServer/StartAPIServer/Stop must not race with
// each other.
type Server struct {
	opts    Options
	dir     string
	tempDir bool
	token   string
	port    int
	certPEM []byte
	keyPEM  []byte
	cfg     *rest.Config
	kubecfg string

	etcd      *embed.Etcd
	etcdLevel zap.AtomicLevel
	etcdURL   string
	sockDir   string // etcd's unix sockets and peer certificate
	prefix    string
	reaper    *reaper // removes sockDir (and a temporary dir) if the process dies

	mu     sync.Mutex
	api    *apiServer // nil while stopped
	closed bool
}

// shutdownTimeout bounds how long StopAPIServer waits for open requests
// (watches) before closing their connections.
const shutdownTimeout = time.Second

// apiServer is one run of the API server.
type apiServer struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when RunWithContext returned
	err    error         // RunWithContext's result, valid after done
}

var gateMu sync.Mutex
var gatesApplied map[string]bool

// applyFeatureGates sets the process-wide gates once; later servers must ask
// for the same ones.
func applyFeatureGates(gates map[string]bool) error {
	gateMu.Lock()
	defer gateMu.Unlock()
	if gatesApplied != nil {
		if !maps.Equal(gatesApplied, gates) && !(len(gatesApplied) == 0 && len(gates) == 0) {
			return fmt.Errorf("feature gates are process-wide: this process already runs with %v, cannot start a server with %v", gatesApplied, gates)
		}
		return nil
	}
	if len(gates) > 0 {
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
			return fmt.Errorf("setting feature gates %v: %w", gates, err)
		}
	}
	gatesApplied = maps.Clone(gates)
	if gatesApplied == nil {
		gatesApplied = map[string]bool{}
	}
	return nil
}

// Start starts etcd and the API server, writes the kubeconfig, installs
// opts.CRDs and returns once the server is ready and every CRD is served.
// ctx bounds the start only; the server runs until Stop. On error everything
// started so far is stopped again.
func Start(ctx context.Context, opts Options) (_ *Server, err error) {
	logger := klog.FromContext(ctx)
	start := time.Now()
	if err := applyFeatureGates(opts.FeatureGates); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, dir: opts.Dir}
	defer func() {
		if err != nil {
			_ = s.Stop(context.WithoutCancel(ctx))
		}
	}()
	if err := s.makeDirs(); err != nil {
		return nil, err
	}
	s.token = randomHex(16)
	s.prefix = "/registry-" + randomHex(4)

	if err := s.startEtcd(ctx); err != nil {
		return nil, err
	}

	// The API server's port and certificate are chosen once, so that a
	// restarted server is reachable with the same rest.Config.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	s.certPEM, s.keyPEM, err = certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("generating a self-signed certificate: %w", err)
	}
	s.cfg = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(s.port),
		BearerToken:     s.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.certPEM},
		QPS:             -1,
	}
	if err := s.runAPIServer(ctx, ln); err != nil {
		return nil, err
	}
	s.kubecfg = opts.KubeconfigPath
	if s.kubecfg == "" {
		s.kubecfg = filepath.Join(s.dir, "kubeconfig")
	}
	if err := writeKubeconfig(s.kubecfg, s.cfg); err != nil {
		return nil, err
	}
	if len(opts.CRDs) > 0 {
		if err := s.InstallCRDs(ctx, opts.CRDs...); err != nil {
			return nil, err
		}
	}
	logger.V(2).Info("local API server ready", "host", s.cfg.Host, "kubeconfig", s.kubecfg, "watchCache", !opts.DisableWatchCache, "elapsed", time.Since(start))
	return s, nil
}

// makeDirs creates the data directory (a temporary one unless Options.Dir
// names one) and etcd's socket directory (always temporary: a socket's path
// must be short), and starts the reaper that removes the temporary ones
// should the process die before Stop.
func (s *Server) makeDirs() error {
	var temp []string
	if s.dir == "" {
		dir, err := os.MkdirTemp("", "localapi-")
		if err != nil {
			return fmt.Errorf("creating the data directory: %w", err)
		}
		s.dir, s.tempDir = dir, true
		temp = append(temp, dir)
	} else if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("creating the data directory: %w", err)
	}
	sockDir, err := os.MkdirTemp("", "localapi-etcd-")
	if err != nil {
		return fmt.Errorf("creating etcd's socket directory: %w", err)
	}
	s.sockDir = sockDir
	temp = append(temp, sockDir)
	s.reaper, err = startReaper(temp...)
	return err
}

func (s *Server) startEtcd(ctx context.Context) error {
	cfg := embed.NewConfig()
	cfg.Name = "localapi"
	cfg.Dir = filepath.Join(s.dir, "etcd")
	cfg.TickMs = 10
	cfg.ElectionMs = 100
	cfg.UnsafeNoFsync = true
	cfg.SnapshotCount = 100000
	cfg.QuotaBackendBytes = 2 << 30
	// etcd logs spurious errors on a fast single-member start ("failed to
	// update storage version") and at shutdown: only fatal ones are shown.
	s.etcdLevel = zap.NewAtomicLevelAt(zapcore.FatalLevel)
	lg := zap.New(zapcore.NewCore(zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.Lock(os.Stderr), s.etcdLevel))
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(lg)
	cfg.Logger = "zap"
	// etcd serves clients on a unix socket in a directory of mode 0700, so
	// only this user can reach it (plain TCP on loopback let anyone on the
	// machine read and write everything). The peer URL, needed for the
	// single-member cluster only, cannot be a socket path (etcd takes a peer
	// socket's path from the URL's host); it is TLS on loopback and demands
	// a client certificate from a CA whose key is thrown away, so no one can
	// connect.
	sockDir := s.sockDir
	peerTLS, err := writePeerTLS(sockDir)
	if err != nil {
		return err
	}
	cfg.PeerTLSInfo = peerTLS
	peerPort, err := freePort()
	if err != nil {
		return err
	}
	lc := url.URL{Scheme: "unix", Path: filepath.Join(sockDir, "client")}
	lp := url.URL{Scheme: "https", Host: "127.0.0.1:" + strconv.Itoa(peerPort)}
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{lc}, []url.URL{lc}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{lp}, []url.URL{lp}
	cfg.InitialCluster = cfg.Name + "=" + lp.String()

	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return fmt.Errorf("starting etcd: %w", err)
	}
	s.etcd = e
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		return fmt.Errorf("etcd failed while starting: %w", err)
	case <-ctx.Done():
		return fmt.Errorf("waiting for etcd: %w", context.Cause(ctx))
	}
	s.etcdURL = "unix://" + e.Clients[0].Addr().String()
	return nil
}

// runAPIServer builds and starts one API server run on ln and waits for
// /readyz.
func (s *Server) runAPIServer(ctx context.Context, ln net.Listener) error {
	// ln is ours to close until the server runs on it; then the server owns it.
	serving := false
	defer func() {
		if !serving {
			ln.Close()
		}
	}()
	o := options.NewCustomResourceDefinitionsServerOptions(io.Discard, io.Discard)
	ro := o.RecommendedOptions
	ro.SecureServing.Listener = ln
	ro.SecureServing.BindPort = s.port
	ro.SecureServing.BindAddress = net.ParseIP("127.0.0.1")
	ro.SecureServing.ExternalAddress = net.ParseIP("127.0.0.1")
	gen, err := dynamiccertificates.NewStaticCertKeyContent("localapi self-signed", s.certPEM, s.keyPEM)
	if err != nil {
		return fmt.Errorf("loading the serving certificate: %w", err)
	}
	ro.SecureServing.ServerCert.GeneratedCert = gen
	ro.Etcd.StorageConfig.Transport.ServerList = []string{s.etcdURL}
	ro.Etcd.StorageConfig.Prefix = s.prefix
	ro.Etcd.EnableWatchCache = !s.opts.DisableWatchCache
	// No core API server to delegate to: authn/authz are set below, admission
	// (webhooks, namespace lifecycle) and priority-and-fairness need a core
	// API and are off.
	ro.CoreAPI = nil
	ro.Authentication = nil
	ro.Authorization = nil
	ro.Admission = nil
	ro.Features.EnablePriorityAndFairness = false
	o.ServerRunOptions.ShutdownWatchTerminationGracePeriod = 0
	if err := o.Complete(); err != nil {
		return fmt.Errorf("completing API server options: %w", err)
	}
	if err := o.Validate(); err != nil {
		return fmt.Errorf("validating API server options: %w", err)
	}

	sc := genericapiserver.NewRecommendedConfig(apiserver.Codecs)
	if err := o.ServerRunOptions.ApplyTo(&sc.Config); err != nil {
		return err
	}
	if err := ro.ApplyTo(sc); err != nil {
		return fmt.Errorf("configuring the API server: %w", err)
	}
	if err := o.APIEnablement.ApplyTo(&sc.Config, apiserver.DefaultAPIResourceConfigSource(), apiserver.Scheme); err != nil {
		return fmt.Errorf("configuring API enablement: %w", err)
	}
	sc.SharedInformerFactory = informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	// Only the kubeconfig's token authenticates (as a member of
	// system:masters); anonymous requests get 401. Everything authenticated
	// is allowed.
	sc.Authentication.Authenticator = authenticatorfactory.NewFromTokens(map[string]*user.DefaultInfo{
		s.token: {Name: "localapi-admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}},
	}, nil)
	sc.Authorization.Authorizer = authorizerfactory.NewAlwaysAllowAuthorizer()
	// A stable loopback token: Complete makes it authenticate as the
	// privileged loopback user, and clients keep it across restarts.
	sc.LoopbackClientConfig.BearerToken = s.token
	defs := openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions)
	sc.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(defs, openapinamer.NewDefinitionNamer(apiserver.Scheme))
	sc.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(defs, openapinamer.NewDefinitionNamer(apiserver.Scheme, scheme.Scheme))
	cfg := &apiserver.Config{
		GenericConfig: sc,
		ExtraConfig: apiserver.ExtraConfig{
			CRDRESTOptionsGetter: options.NewCRDRESTOptionsGetter(*ro.Etcd, sc.ResourceTransformers, sc.StorageObjectCountTracker),
			ServiceResolver:      noServices{},
			AuthResolverWrapper:  func(r webhook.AuthenticationInfoResolver) webhook.AuthenticationInfoResolver { return r },
		},
	}
	srv, err := cfg.Complete().New(genericapiserver.NewEmptyDelegate())
	if err != nil {
		return fmt.Errorf("creating the API server: %w", err)
	}
	// On stop, net/http's Shutdown waits this long for open requests, watches
	// included (the generic server does not end them first with a zero
	// ShutdownWatchTerminationGracePeriod); the default is RequestTimeout,
	// 60s, which made every restart with a watch open a one-minute outage.
	srv.GenericAPIServer.ShutdownTimeout = shutdownTimeout
	// The server logs through klog's global logger (which QuietKlog silences),
	// not through a logger the caller put in ctx for its own messages.
	runCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), klog.Background()))
	run := &apiServer{cancel: cancel, done: make(chan struct{})}
	prepared := srv.GenericAPIServer.PrepareRun()
	serving = true
	go func() {
		defer close(run.done)
		run.err = prepared.RunWithContext(runCtx)
	}()
	s.mu.Lock()
	s.api = run
	s.mu.Unlock()
	if err := s.waitReady(ctx, run); err != nil {
		return err
	}
	return nil
}

// waitReady polls /readyz until it answers 200.
func (s *Server) waitReady(ctx context.Context, run *apiServer) error {
	client, err := rest.HTTPClientFor(s.cfg)
	if err != nil {
		return fmt.Errorf("building an HTTP client: %w", err)
	}
	defer client.CloseIdleConnections()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.Host+"/readyz", nil)
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("/readyz answered %s", resp.Status)
		}
		last = err
		select {
		case <-run.done:
			return fmt.Errorf("API server exited while starting: %w", errors.Join(run.err, last))
		case <-ctx.Done():
			return fmt.Errorf("waiting for the API server to be ready: %w", errors.Join(context.Cause(ctx), last))
		case <-tick.C:
		}
	}
}

// Config returns a copy of the client config of the server: host, CA,
// token, QPS=-1 (no client-side throttling). It stays valid across
// StopAPIServer/StartAPIServer.
func (s *Server) Config() *rest.Config { return rest.CopyConfig(s.cfg) }

// KubeconfigPath returns the path of the kubeconfig Start wrote (mode 0600).
func (s *Server) KubeconfigPath() string { return s.kubecfg }

// StopAPIServer stops the API server and waits until it has exited; etcd
// keeps running. Open watches end. It is a no-op when the API server is
// already stopped. Cancelling ctx stops the wait, not the shutdown.
func (s *Server) StopAPIServer(ctx context.Context) error {
	s.mu.Lock()
	run := s.api
	s.api = nil
	s.mu.Unlock()
	if run == nil {
		return nil
	}
	run.cancel()
	select {
	case <-run.done:
	case <-ctx.Done():
		return fmt.Errorf("waiting for the API server to stop: %w", context.Cause(ctx))
	}
	if run.err != nil && !errors.Is(run.err, context.Canceled) {
		return fmt.Errorf("API server stopped with an error: %w", run.err)
	}
	return nil
}

// StartAPIServer starts the API server again after StopAPIServer, on the
// same port, certificate, token and etcd data, and waits for /readyz.
func (s *Server) StartAPIServer(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return errors.New("server is stopped")
	}
	if s.api != nil {
		s.mu.Unlock()
		return errors.New("API server is already running")
	}
	s.mu.Unlock()
	// The old listener was closed by the previous run; the port may linger
	// for a moment in the kernel, so retry the bind briefly.
	var ln net.Listener
	var err error
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
		if err == nil || time.Now().After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("re-binding port %d: %w", s.port, context.Cause(ctx))
		case <-tick.C:
		}
	}
	if err != nil {
		return fmt.Errorf("re-binding port %d: %w", s.port, err)
	}
	return s.runAPIServer(ctx, ln)
}

// Stop stops the API server, then etcd (its logger silenced first), and
// removes etcd's socket directory and a temporary data directory. It waits
// for both to exit; ctx bounds the wait for the API server. Stop is
// idempotent.
//
// Should the process end without Stop (a panic, a test binary's timeout, a
// signal the program does not handle, SIGKILL), a helper process started
// with the server removes those directories as soon as the process is gone.
func (s *Server) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.StopAPIServer(ctx)
	if s.etcd != nil {
		s.etcdLevel.SetLevel(zapcore.FatalLevel + 1) // silence even fatal-level noise while closing
		s.etcd.Close()
	}
	if s.sockDir != "" {
		err = errors.Join(err, os.RemoveAll(s.sockDir))
	}
	if s.tempDir {
		err = errors.Join(err, os.RemoveAll(s.dir))
	}
	if s.reaper != nil {
		err = errors.Join(err, s.reaper.stop())
	}
	return err
}

// CompactEtcd compacts etcd's history up to its current revision and returns
// that revision. Afterwards a WATCH or LIST at an older resourceVersion gets
// 410 Expired when the watch cache is off.
func (s *Server) CompactEtcd(ctx context.Context) (int64, error) {
	rev := s.etcd.Server.KV().Rev()
	if _, err := s.etcd.Server.Compact(ctx, &etcdserverpb.CompactionRequest{Revision: rev, Physical: true}); err != nil {
		return 0, fmt.Errorf("compacting etcd at revision %d: %w", rev, err)
	}
	return rev, nil
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	ca := base64.StdEncoding.EncodeToString(cfg.CAData)
	content := "apiVersion: v1\nkind: Config\n" +
		"clusters:\n- name: localapi\n  cluster:\n    server: " + cfg.Host + "\n    certificate-authority-data: " + ca + "\n" +
		"users:\n- name: localapi\n  user:\n    token: " + cfg.BearerToken + "\n" +
		"contexts:\n- name: localapi\n  context:\n    cluster: localapi\n    user: localapi\n" +
		"current-context: localapi\n"
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing kubeconfig %s: %w", path, err)
	}
	return nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writePeerTLS writes a serving certificate for 127.0.0.1 and the CA that
// signed it into dir, and returns etcd peer TLS settings that require client
// certificates from that CA. Its key is not kept: no peer can ever present
// one.
func writePeerTLS(dir string) (transport.TLSInfo, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		return transport.TLSInfo{}, fmt.Errorf("generating etcd's peer certificate: %w", err)
	}
	// certPEM is the certificate followed by its CA.
	_, rest := pem.Decode(certPEM)
	info := transport.TLSInfo{
		CertFile:       filepath.Join(dir, "peer.crt"),
		KeyFile:        filepath.Join(dir, "peer.key"),
		TrustedCAFile:  filepath.Join(dir, "peer-ca.crt"),
		ClientCertAuth: true,
	}
	for path, data := range map[string][]byte{info.CertFile: certPEM, info.KeyFile: keyPEM, info.TrustedCAFile: rest} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return transport.TLSInfo{}, fmt.Errorf("writing %s: %w", path, err)
		}
	}
	return info, nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// noServices resolves no Service: this server has no core API, so CRD
// conversion webhooks cannot be reached.
type noServices struct{}

func (noServices) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return nil, fmt.Errorf("service %s/%s: the local API server has no core API", namespace, name)
}
