package e2e_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
)

// The tests share one local API server (etcd + apiextensions-apiserver, no
// core API) with the example CRDs; each test works in a namespace of its own.
// goleak is not used here: the in-process API server keeps goroutines of its
// own until the process exits.
var server *localapi.Server

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	ctrllog.SetLogger(logr.Discard())
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	server, err = localapi.Start(ctx, localapi.Options{CRDs: crds})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		_ = server.Stop(stopCtx)
	}()
	return m.Run()
}

func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := samplev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// restMapper is a static RESTMapper for the example types: the local
// server has no core API, and controller-runtime's dynamic mapper would ask
// discovery for it.
func restMapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{samplev1.SchemeGroupVersion})
	m.Add(samplev1.SchemeGroupVersion.WithKind("Foo"), meta.RESTScopeNamespace)
	m.Add(samplev1.SchemeGroupVersion.WithKind("Host"), meta.RESTScopeRoot)
	return m
}

// managerOptions are a test manager's options: static mapper, no metrics or
// probe listeners, no leader election, no core-API event recorder use.
func managerOptions(t testing.TB) manager.Options {
	return manager.Options{
		Scheme:                 newScheme(t),
		MapperProvider:         func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return restMapper(), nil },
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}
}

// requestCounter counts the WATCH requests made through its config, per
// resource (the last path element of a watch URL).
type requestCounter struct {
	mu      sync.Mutex
	watches map[string]int
}

// config returns server's config with every request counted.
func (c *requestCounter) config() *rest.Config {
	cfg := server.Config()
	c.watches = map[string]int{}
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			if req.Method == http.MethodGet {
				parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
				res := parts[len(parts)-1]
				if req.URL.Query().Get("watch") == "true" {
					c.mu.Lock()
					c.watches[res]++
					c.mu.Unlock()
				}
			}
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

func (c *requestCounter) watchesOf(res string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.watches[res]
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func foo(ns, name, host string) *samplev1.Foo {
	return &samplev1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       samplev1.FooSpec{DeploymentName: "d-" + name, Replicas: 1, HostName: host},
	}
}

func newClient(t testing.TB) client.Client {
	t.Helper()
	c, err := client.New(server.Config(), client.Options{Scheme: newScheme(t), Mapper: restMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// patience is how long a test waits for a condition a correct system
// reaches: minutes, as CI machines are busy; nothing is asserted about how
// fast it comes.
const patience = 5 * time.Minute

// eventually polls check until it returns nil, failing t with what it last
// returned if that does not happen within timeout (use patience).
func eventually(t testing.TB, timeout time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s: %v", what, timeout, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startManager runs mgr until the test ends and fails the test if Start
// returns an error.
func startManager(t testing.TB, mgr manager.Manager) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
}
