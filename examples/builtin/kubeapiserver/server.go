package kubeapiserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/util/compatibility"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-apiserver/app"
	"k8s.io/kubernetes/cmd/kube-apiserver/app/options"
)

// Options configures Start. The zero value starts a server with the watch
// cache on and default feature gates.
type Options struct {
	// FeatureGates are applied to the process-wide feature gate, e.g.
	// {"WatchList": false, "ShardedListAndWatch": true}. Every server of one
	// process must agree on them (Start fails otherwise).
	FeatureGates map[string]bool
	// DisableWatchCache is --watch-cache=false: every LIST and WATCH goes to
	// etcd, so compaction surfaces as 410 Expired.
	DisableWatchCache bool
	// KubeconfigPath, when set, is where the admin kubeconfig is written
	// (mode 0600, kept after Stop); otherwise it goes into the server's
	// temporary directory.
	KubeconfigPath string
	// Flags are extra kube-apiserver flags ("--name=value"), applied after
	// the ones Start sets, for what Options does not name.
	Flags []string
	// BeforeAPIServer, when set, runs once etcd is ready and before
	// kube-apiserver starts, with etcd's key-value API (as EtcdKV): for
	// benchmark tooling that writes objects straight into storage while
	// no watch cache has to take each write in (the server then reads
	// them with its first LIST). An error fails Start.
	BeforeAPIServer func(ctx context.Context, kv etcdserver.RaftKV) error
}

// Server is a running etcd plus kube-apiserver. Its methods are safe for
// concurrent use.
type Server struct {
	opts    Options
	dir     string // temporary, removed by Stop
	cfg     *rest.Config
	kubecfg string
	client  kubernetes.Interface

	etcd      *embed.Etcd
	etcdLevel zap.AtomicLevel
	etcdURL   string

	cancel context.CancelFunc
	done   chan struct{} // closed when the server's Run returned
	runErr error         // Run's result, valid after done

	stopOnce sync.Once
	stopErr  error
}

// shutdownTimeout bounds how long Stop waits for open requests (watches)
// before closing their connections; the generic server's default is its
// request timeout, 60 s.
const shutdownTimeout = time.Second

// adminUser is the name the admin token authenticates as (in
// system:masters, which RBAC lets do everything).
const adminUser = "kubeapiserver-admin"

// Start starts etcd and kube-apiserver in this process, writes the admin
// kubeconfig and returns once /readyz answers 200, the default namespace
// exists and has its default ServiceAccount. ctx bounds the start only; the
// server runs until Stop. On error everything started so far is stopped and
// the temporary directory removed.
func Start(ctx context.Context, opts Options) (_ *Server, err error) {
	logger := klog.FromContext(ctx)
	start := time.Now()
	if err := applyFeatureGates(opts.FeatureGates); err != nil {
		return nil, err
	}
	s := &Server{opts: opts, done: make(chan struct{})}
	if s.dir, err = os.MkdirTemp("", "kubeapiserver-"); err != nil {
		return nil, fmt.Errorf("creating the server's directory: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, s.Stop(context.WithoutCancel(ctx)))
		}
	}()
	if err := s.startEtcd(ctx); err != nil {
		return nil, err
	}
	if opts.BeforeAPIServer != nil {
		if err := opts.BeforeAPIServer(ctx, s.etcd.Server); err != nil {
			return nil, err
		}
	}
	if err := s.startAPIServer(ctx); err != nil {
		return nil, err
	}
	s.kubecfg = opts.KubeconfigPath
	if s.kubecfg == "" {
		s.kubecfg = filepath.Join(s.dir, "kubeconfig")
	}
	if err := WriteKubeconfig(s.kubecfg, s.cfg); err != nil {
		return nil, err
	}
	if err := s.waitDefaultNamespace(ctx); err != nil {
		return nil, err
	}
	logger.V(2).Info("kube-apiserver ready", "host", s.cfg.Host, "kubeconfig", s.kubecfg, "elapsed", time.Since(start))
	return s, nil
}

// startAPIServer configures kube-apiserver as its command line would, runs
// it on a loopback listener and waits for /readyz.
func (s *Server) startAPIServer(ctx context.Context) (err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	serving := false
	defer func() {
		if !serving {
			ln.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	// Serving certificate for 127.0.0.1 and localhost (the certificate
	// followed by the CA that signed it).
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
	if err != nil {
		return fmt.Errorf("generating a serving certificate: %w", err)
	}
	adminToken := randomHex(24)
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating the service account signing key: %w", err)
	}
	saKeyDER, err := x509.MarshalECPrivateKey(saKey)
	if err != nil {
		return fmt.Errorf("encoding the service account signing key: %w", err)
	}
	files := map[string][]byte{
		"tls.crt":    certPEM,
		"tls.key":    keyPEM,
		"tokens.csv": []byte(adminToken + "," + adminUser + ",uid-" + adminUser + ",system:masters\n"),
		"sa.key":     pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: saKeyDER}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(s.dir, name), data, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
	}
	path := func(name string) string { return filepath.Join(s.dir, name) }
	flags := []string{
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--tls-cert-file=" + path("tls.crt"),
		"--tls-private-key-file=" + path("tls.key"),
		"--cert-dir=" + path("certs"),
		"--etcd-servers=" + s.etcdURL,
		"--etcd-prefix=" + EtcdPrefix,
		"--watch-cache=" + strconv.FormatBool(!s.opts.DisableWatchCache),
		// Only tokens authenticate: the admin's (token file) and service
		// accounts' (NewUser); anonymous requests get 401.
		"--anonymous-auth=false",
		"--token-auth-file=" + path("tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubeapiserver.invalid",
		"--service-account-key-file=" + path("sa.key"),
		"--service-account-signing-key-file=" + path("sa.key"),
		"--service-account-max-token-expiration=48h",
		"--service-cluster-ip-range=10.0.0.0/16",
		// No kubelets, no other API servers: the kubernetes Service's
		// endpoints are not reconciled.
		"--endpoint-reconciler-type=none",
		"--shutdown-watch-termination-grace-period=0s",
	}
	flags = append(flags, s.opts.Flags...)

	o := options.NewServerRunOptions()
	// A registry of this server's own, over a copy of the process-wide
	// gate (which applyFeatureGates set), so that servers do not contend
	// for the default registry.
	featureGate := utilfeature.DefaultMutableFeatureGate.DeepCopy()
	effectiveVersion := compatibility.DefaultBuildEffectiveVersion()
	effectiveVersion.SetEmulationVersion(featureGate.EmulationVersion())
	effectiveVersion.SetMinCompatibilityVersion(featureGate.MinCompatibilityVersion())
	registry := basecompatibility.NewComponentGlobalsRegistry()
	if err := registry.Register(basecompatibility.DefaultKubeComponent, effectiveVersion, featureGate); err != nil {
		return fmt.Errorf("registering the feature gate: %w", err)
	}
	o.GenericServerRunOptions.ComponentGlobalsRegistry = registry
	fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range o.Flags().FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(flags); err != nil {
		return fmt.Errorf("kube-apiserver flags: %w", err)
	}
	if err := registry.Set(); err != nil {
		return fmt.Errorf("kube-apiserver feature gates: %w", err)
	}
	o.SecureServing.Listener = ln
	o.SecureServing.BindPort = port
	o.SecureServing.ExternalAddress = net.ParseIP("127.0.0.1")

	completed, err := o.Complete(ctx)
	if err != nil {
		return fmt.Errorf("completing kube-apiserver options: %w", err)
	}
	if errs := completed.Validate(); len(errs) != 0 {
		return fmt.Errorf("validating kube-apiserver options: %w", errors.Join(errs...))
	}
	config, err := app.NewConfig(completed)
	if err != nil {
		return fmt.Errorf("configuring kube-apiserver: %w", err)
	}
	cc, err := config.Complete()
	if err != nil {
		return fmt.Errorf("completing kube-apiserver's configuration: %w", err)
	}
	chain, err := app.CreateServerChain(cc)
	if err != nil {
		return fmt.Errorf("creating kube-apiserver: %w", err)
	}
	chain.GenericAPIServer.ShutdownTimeout = shutdownTimeout
	prepared, err := chain.PrepareRun()
	if err != nil {
		return fmt.Errorf("preparing kube-apiserver: %w", err)
	}
	// The server logs through klog's global logger (which QuietKlog
	// silences), not through a logger the caller put in ctx.
	runCtx, cancel := context.WithCancel(klog.NewContext(context.WithoutCancel(ctx), klog.Background()))
	s.cancel = cancel
	serving = true
	go func() {
		defer close(s.done)
		s.runErr = prepared.Run(runCtx)
	}()

	s.cfg = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(port),
		BearerToken:     adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: certPEM},
		QPS:             -1,
	}
	if s.client, err = kubernetes.NewForConfig(s.cfg); err != nil {
		return fmt.Errorf("building the admin client: %w", err)
	}
	return s.waitReady(ctx)
}

// waitReady polls /readyz until it answers 200.
func (s *Server) waitReady(ctx context.Context) error {
	client, err := rest.HTTPClientFor(s.cfg)
	if err != nil {
		return fmt.Errorf("building an HTTP client: %w", err)
	}
	defer client.CloseIdleConnections()
	var last error
	err = s.poll(ctx, func() (bool, error) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.cfg.Host+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+s.cfg.BearerToken)
		resp, err := client.Do(req)
		if err != nil {
			last = err
			return false, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return true, nil
		}
		last = fmt.Errorf("/readyz answered %s: %s", resp.Status, failedChecks(body))
		return false, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for kube-apiserver to be ready: %w", errors.Join(err, last))
	}
	return nil
}

// failedChecks returns the failed lines of a /readyz body.
func failedChecks(body []byte) string {
	var failed []string
	for line := range strings.Lines(string(body)) {
		if strings.HasPrefix(line, "[-]") {
			failed = append(failed, strings.TrimSpace(line))
		}
	}
	if len(failed) == 0 {
		return strings.TrimSpace(string(body))
	}
	return strings.Join(failed, "; ")
}

// poll calls f every 20 ms until it returns true or an error, the server
// exits, or ctx ends; a ctx without a deadline gets one of a busy machine's
// minutes: two of them (a caller whose server first reads a million objects
// from etcd gives ctx the deadline it needs).
func (s *Server) poll(ctx context.Context, f func() (bool, error)) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, err := f()
		if ok || err != nil {
			return err
		}
		select {
		case <-s.done:
			return fmt.Errorf("kube-apiserver exited: %w", s.runErr)
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
}

// waitDefaultNamespace waits for the namespace "default" that the server
// creates on start, and gives it its default ServiceAccount.
func (s *Server) waitDefaultNamespace(ctx context.Context) error {
	var last error
	err := s.poll(ctx, func() (bool, error) {
		_, last = s.client.CoreV1().Namespaces().Get(ctx, metav1.NamespaceDefault, metav1.GetOptions{})
		return last == nil, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for the namespace default: %w", errors.Join(err, last))
	}
	return s.ensureDefaultServiceAccount(ctx, metav1.NamespaceDefault)
}

// CreateNamespace creates the namespace name and its ServiceAccount
// "default", as kube-controller-manager (which does not run here) would: the
// ServiceAccount admission plugin rejects Pods in a namespace without it.
// An existing namespace is not an error.
func (s *Server) CreateNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := s.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating namespace %s: %w", name, err)
	}
	return s.ensureDefaultServiceAccount(ctx, name)
}

func (s *Server) ensureDefaultServiceAccount(ctx context.Context, ns string) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}
	if _, err := s.client.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the default ServiceAccount of %s: %w", ns, err)
	}
	return nil
}

// Config returns a copy of the admin client config: host, CA, the admin
// token (a member of system:masters), QPS=-1 (no client-side throttling).
func (s *Server) Config() *rest.Config { return rest.CopyConfig(s.cfg) }

// Client returns a clientset over Config.
func (s *Server) Client() kubernetes.Interface { return s.client }

// KubeconfigPath returns the path of the admin kubeconfig Start wrote
// (mode 0600).
func (s *Server) KubeconfigPath() string { return s.kubecfg }

// Stop stops kube-apiserver (waiting for it to exit; ctx bounds that wait),
// then etcd, and removes the server's temporary directory. Open watches
// end within about a second. Stop is idempotent; later calls return the
// first one's error.
func (s *Server) Stop(ctx context.Context) error {
	s.stopOnce.Do(func() { s.stopErr = s.stop(ctx) })
	return s.stopErr
}

func (s *Server) stop(ctx context.Context) error {
	var err error
	if s.cancel != nil {
		s.cancel()
		select {
		case <-s.done:
			if s.runErr != nil && !errors.Is(s.runErr, context.Canceled) {
				err = fmt.Errorf("kube-apiserver stopped with an error: %w", s.runErr)
			}
		case <-ctx.Done():
			err = fmt.Errorf("waiting for kube-apiserver to stop: %w", context.Cause(ctx))
		}
	}
	if s.etcd != nil {
		s.etcdLevel.SetLevel(zapcore.FatalLevel + 1) // silence even fatal-level noise while closing
		s.etcd.Close()
	}
	if s.dir != "" {
		err = errors.Join(err, os.RemoveAll(s.dir))
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

// EtcdPrefix is the server's --etcd-prefix: kube-apiserver stores an object
// of resource R (core group) at EtcdPrefix+"/"+R+"/"+namespace+"/"+name,
// e.g. /registry/pods/default/web-0.
const EtcdPrefix = "/registry"

// EtcdKV returns the embedded etcd's key-value API, in process (no network,
// no credentials), for benchmark tooling that writes objects straight into
// storage as kube-apiserver stores them (bench/builtin's seeder): at
// EtcdPrefix, protobuf-encoded, the etcd revision being the
// resourceVersion. Such writes bypass admission, validation and defaulting;
// the watch cache sees them through its etcd watch like any other write.
// Valid until Stop.
func (s *Server) EtcdKV() etcdserver.RaftKV { return s.etcd.Server }

// WriteKubeconfig writes cfg's host, CA data and bearer token as a
// kubeconfig at path, mode 0600, atomically (through path.tmp).
func WriteKubeconfig(path string, cfg *rest.Config) error {
	ca := base64.StdEncoding.EncodeToString(cfg.CAData)
	content := "apiVersion: v1\nkind: Config\n" +
		"clusters:\n- name: kubeapiserver\n  cluster:\n    server: " + cfg.Host + "\n    certificate-authority-data: " + ca + "\n" +
		"users:\n- name: kubeapiserver\n  user:\n    token: " + cfg.BearerToken + "\n" +
		"contexts:\n- name: kubeapiserver\n  context:\n    cluster: kubeapiserver\n    user: kubeapiserver\n" +
		"current-context: kubeapiserver\n"
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
