// Package e2eutil is shared by the end-to-end test binaries: starting a local
// API server with the example CRDs, creating objects in bulk, waiting for
// convergence, and the final cache-equals-LIST check.
package e2eutil

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/informer"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
)

// StartServer starts a local API server with the example CRDs installed.
func StartServer(ctx context.Context, opts localapi.Options) (*localapi.Server, error) {
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		return nil, err
	}
	opts.CRDs = crds
	return localapi.Start(ctx, opts)
}

// CRD returns the example CRD called name (e.g. "foos.samplecontroller.example.com").
func CRD(name string) (*localapi.CRD, error) {
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		return nil, err
	}
	for _, c := range crds {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, fmt.Errorf("no CRD %s in manifests", name)
}

// Foo returns a Foo named name in ns on host (no host when "").
func Foo(ns, name, host string, replicas int32) *samplev1.Foo {
	return &samplev1.Foo{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       samplev1.FooSpec{DeploymentName: "d-" + name, Replicas: replicas, HostName: host},
	}
}

// CreateFoos creates Foos name-0..name-(n-1) in ns with 16 parallel
// requests; host(i) names the Host of the i-th (may be nil).
func CreateFoos(ctx context.Context, c rest.Interface, ns, prefix string, from, to int, host func(i int) string) error {
	return parallel.Do(ctx, 16, from, to, func(i int) error {
		h := ""
		if host != nil {
			h = host(i)
		}
		return c.Post().Namespace(ns).Resource("foos").Body(Foo(ns, fmt.Sprintf("%s-%d", prefix, i), h, int32(i%5))).Do(ctx).Error()
	})
}

// DeleteFoo deletes the Foo ns/name.
func DeleteFoo(ctx context.Context, c rest.Interface, ns, name string) error {
	return c.Delete().Namespace(ns).Resource("foos").Name(name).Do(ctx).Error()
}

// Patience is how long an end-to-end test waits for a condition a correct
// system reaches: minutes, because CI machines are busy (a load of 10 on 2
// cores makes seconds into tens of seconds). Nothing is asserted about how
// fast it comes; a test that measures time logs it.
const Patience = 5 * time.Minute

// Eventually calls check every 50ms until it returns nil, and fails t with
// check's last error (what it last saw) if that does not happen within
// timeout (use Patience).
func Eventually(t testing.TB, ctx context.Context, timeout time.Duration, what string, check func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not within %v: %v", what, timeout, err)
		case <-tick.C:
		}
	}
}

// FooCacheEqualsList compares the cache of inf with a fresh LIST of the Foos
// of ns.
func FooCacheEqualsList(ctx context.Context, c rest.Interface, inf *informer.Informer[*samplev1.Foo], ns string) error {
	listed, _, err := verify.ListFoos(ctx, c, ns, "")
	if err != nil {
		return err
	}
	return verify.CacheEqualsList("Foo", inf.Indexer().List(), listed)
}

// Recorder records what an informer handler was told, for assertions on
// tombstones. Safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	adds    map[string]int
	deletes map[string][]bool // key -> finalStateUnknown of each delete
}

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{adds: map[string]int{}, deletes: map[string][]bool{}}
}

// Handler returns the handler that feeds r.
func (r *Recorder) Handler() informer.Handler[*samplev1.Foo] {
	return informer.HandlerFuncs[*samplev1.Foo]{
		AddFunc: func(f *samplev1.Foo, _ bool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.adds[f.Namespace+"/"+f.Name]++
		},
		DeleteFunc: func(f *samplev1.Foo, unknown bool) {
			r.mu.Lock()
			defer r.mu.Unlock()
			k := f.Namespace + "/" + f.Name
			r.deletes[k] = append(r.deletes[k], unknown)
		},
	}
}

// Deletes returns the finalStateUnknown flags of the deletes seen for key.
func (r *Recorder) Deletes(key string) []bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]bool(nil), r.deletes[key]...)
}

// Adds returns how many adds were seen for key.
func (r *Recorder) Adds(key string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.adds[key]
}

// ErrorLog collects the errors a reflector reports through
// WatchErrorHandler. Safe for concurrent use.
type ErrorLog struct {
	mu   sync.Mutex
	errs []error
}

// Handle is a reflector.Options.WatchErrorHandler.
func (l *ErrorLog) Handle(_ context.Context, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

// Find returns the first error matching pred, or nil.
func (l *ErrorLog) Find(pred func(error) bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.errs {
		if pred(e) {
			return e
		}
	}
	return nil
}
