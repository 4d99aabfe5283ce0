// Package e2e runs the fleet controller of examples/fleet against real API
// servers in this test binary: four member clusters (etcd +
// apiextensions-apiserver each, examples/crd/localapi, serving Foo) and a
// home cluster (a kube-apiserver, examples/builtin/kubeapiserver) whose
// Leases shard the clusters across replicas. Servers are started once, in
// TestMain; every test uses namespaces of its own. Loopback only, every
// client with a token.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
)

var (
	home    *kubeapiserver.Server
	members []*member
)

// member is one member cluster: its server and a dynamic client for Foos.
type member struct {
	name   string
	srv    *localapi.Server
	client dynamic.Interface
}

var fooGVR = schema.GroupVersionResource{Group: "samplecontroller.example.com", Version: "v1alpha1", Resource: "foos"}

func TestMain(m *testing.M) {
	kubeapiserver.QuietKlog()
	localapi.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		for _, mb := range members {
			if err := mb.srv.Stop(stopCtx); err != nil {
				fmt.Fprintln(os.Stderr, "stopping", mb.name+":", err)
			}
		}
		if home != nil {
			if err := home.Stop(stopCtx); err != nil {
				fmt.Fprintln(os.Stderr, "stopping the home kube-apiserver:", err)
			}
		}
	}()
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The home kube-apiserver starts beside the members (it takes longest).
	type started struct {
		s   *kubeapiserver.Server
		err error
	}
	homeUp := make(chan started, 1)
	go func() {
		s, err := kubeapiserver.Start(ctx, kubeapiserver.Options{})
		homeUp <- started{s, err}
	}()
	homeKnown := false
	defer func() {
		if !homeKnown { // a member failed: wait for home, so that it is stopped too
			home = (<-homeUp).s
		}
	}()
	for i := range 4 {
		srv, err := localapi.Start(ctx, localapi.Options{CRDs: crds})
		if err != nil {
			fmt.Fprintln(os.Stderr, "starting member", i, err)
			return 1
		}
		client, err := dynamic.NewForConfig(srv.Config())
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		members = append(members, &member{name: fmt.Sprintf("m%d", i), srv: srv, client: client})
	}
	membersUp := time.Since(start)
	up := <-homeUp
	home, homeKnown = up.s, true
	if up.err != nil {
		fmt.Fprintln(os.Stderr, "starting the home kube-apiserver:", up.err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "servers up: 4 members after %v, the home kube-apiserver (started beside them) after %v\n",
		membersUp.Round(time.Millisecond), time.Since(start).Round(time.Millisecond))
	return m.Run()
}

func foo(ns, name string, replicas int64, host string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "samplecontroller.example.com/v1alpha1",
		"kind":       "Foo",
		"metadata":   map[string]any{"namespace": ns, "name": name},
		"spec":       map[string]any{"deploymentName": name, "replicas": replicas, "hostName": host},
	}}
}

func (mb *member) create(ctx context.Context, ns, name string, replicas int64, host string) error {
	_, err := mb.client.Resource(fooGVR).Namespace(ns).Create(ctx, foo(ns, name, replicas, host), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("%s: creating Foo %s/%s: %w", mb.name, ns, name, err)
	}
	return nil
}

// list returns namespace/name → resourceVersion of a fresh LIST of ns's
// Foos ("" for every namespace).
func (mb *member) list(ctx context.Context, ns string) (map[string]string, error) {
	l, err := mb.client.Resource(fooGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("%s: listing Foos: %w", mb.name, err)
	}
	out := make(map[string]string, len(l.Items))
	for _, it := range l.Items {
		out[it.GetNamespace()+"/"+it.GetName()] = it.GetResourceVersion()
	}
	return out, nil
}

// eventually calls f until it returns nil, for at most timeout (minutes on
// a busy machine: a bound on a hang, not a performance target), and fails
// the test with f's last error if it never does.
func eventually(t *testing.T, ctx context.Context, timeout time.Duration, what string, f func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := f()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not after %v; last: %v", what, timeout, err)
		case <-tick.C:
		}
	}
}

// same compares a cache's key → resourceVersion with a LIST's and
// describes the first differences.
func same(what string, cache, list map[string]string) error {
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(list)) {
		if got, ok := cache[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s missing (server at %s)", k, list[k]))
		} else if got != list[k] {
			diffs = append(diffs, fmt.Sprintf("%s at %s, server at %s", k, got, list[k]))
		}
		if len(diffs) >= 5 {
			break
		}
	}
	for k := range cache {
		if _, ok := list[k]; !ok && len(diffs) < 5 {
			diffs = append(diffs, k+" cached, deleted on the server")
		}
	}
	if len(diffs) > 0 || len(cache) != len(list) {
		return fmt.Errorf("%s: %d objects, the server %d: %v", what, len(cache), len(list), diffs)
	}
	return nil
}

// runAll runs fs in goroutines and returns once all have returned, with
// their errors joined.
func runAll(fs ...func() error) error {
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() {
			if err := f(); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
