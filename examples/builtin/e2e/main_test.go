// Package e2e runs the generated informers of built-in kinds and the
// runtime (factory, reflector, shard) against a real kube-apiserver in this
// test binary: one server, started in TestMain with the ShardedListAndWatch
// feature gate on (gates are process-wide), RBAC on, anonymous off. Every
// test works in namespaces of its own; tests that fill a cache end by
// checking that it equals a fresh LIST.
package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
	"github.com/informer-gen/informer-gen/examples/builtin/objects"
)

var (
	server *kubeapiserver.Server
	client kubernetes.Interface
)

func TestMain(m *testing.M) {
	kubeapiserver.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var err error
	server, err = kubeapiserver.Start(ctx, kubeapiserver.Options{FeatureGates: map[string]bool{"ShardedListAndWatch": true}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting kube-apiserver:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		if err := server.Stop(stopCtx); err != nil {
			fmt.Fprintln(os.Stderr, "stopping kube-apiserver:", err)
		}
	}()
	client = server.Client()
	return m.Run()
}

var nsSeq atomic.Int32

// namespace creates a namespace of the test's own (with its default
// ServiceAccount) and returns its name.
func namespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := fmt.Sprintf("%s-%d", prefix, nsSeq.Add(1))
	if err := server.CreateNamespace(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	return ns
}

// eventually calls f until it returns nil, for at most timeout (minutes on
// a busy machine: it is a bound on a hang, not a performance target), and
// fails the test with f's last error if it never does.
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

// parallel runs f(i) for i in [from, to) on n goroutines and returns the
// first error.
func parallel(ctx context.Context, n, from, to int, f func(i int) error) error {
	var (
		next atomic.Int64
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	next.Store(int64(from))
	for range n {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if len(errs) == 0 && ctx.Err() != nil {
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// createPods creates pod-<from>..pod-<to-1> in ns with realistic specs and
// a running status (a create, then a status update, as a kubelet would).
func createPods(ctx context.Context, ns string, from, to int) error {
	return parallel(ctx, 16, from, to, func(i int) error {
		p, err := client.CoreV1().Pods(ns).Create(ctx, objects.Pod(ns, i), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating pod %s/pod-%d: %w", ns, i, err)
		}
		objects.PodStatus(p, i)
		if _, err := client.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("setting the status of pod %s/%s: %w", ns, p.Name, err)
		}
		return nil
	})
}

// createSecrets creates secret-<from>..secret-<to-1> in ns with size bytes
// of data each.
func createSecrets(ctx context.Context, ns string, from, to, size int) error {
	return parallel(ctx, 16, from, to, func(i int) error {
		if _, err := client.CoreV1().Secrets(ns).Create(ctx, objects.Secret(ns, i, size), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating secret %s/secret-%d: %w", ns, i, err)
		}
		return nil
	})
}

// podRVs returns name → resourceVersion of a fresh LIST of ns's Pods.
func podRVs(ctx context.Context, ns string) (map[string]string, error) {
	list, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	return rvsOf(list.Items, func(p *corev1.Pod) metav1.Object { return p }), nil
}

func rvsOf[E any](items []E, obj func(*E) metav1.Object) map[string]string {
	m := make(map[string]string, len(items))
	for i := range items {
		o := obj(&items[i])
		m[o.GetNamespace()+"/"+o.GetName()] = o.GetResourceVersion()
	}
	return m
}

// sameRVs compares a cache's key → resourceVersion with a LIST's and
// describes the first differences.
func sameRVs(what string, cache, list map[string]string) error {
	var diffs []string
	for k, rv := range list {
		if got, ok := cache[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s missing (server at %s)", k, rv))
		} else if got != rv {
			diffs = append(diffs, fmt.Sprintf("%s at %s, server at %s", k, got, rv))
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
		return fmt.Errorf("%s: cache holds %d objects, the server %d: %v", what, len(cache), len(list), diffs)
	}
	return nil
}
