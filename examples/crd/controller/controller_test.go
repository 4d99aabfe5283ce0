package controller_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/workqueue"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	v1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// statusServer plays the API server's status subresource over the fake
// sources: a PUT .../status stores the body in the source (so the informer
// sees it), except that the first PUT of each object answers 409 Conflict.
type statusServer struct {
	foos  *runtimetest.Source[*samplev1.Foo]
	hosts *runtimetest.Source[*samplev1.Host]

	mu        sync.Mutex
	conflicts map[string]bool
	puts      int
}

func (s *statusServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/status") {
		http.Error(w, "unexpected request "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.puts++
	first := !s.conflicts[r.URL.Path]
	s.conflicts[r.URL.Path] = true
	s.mu.Unlock()
	if first {
		st := apierrors.NewConflict(schema.GroupResource{Group: samplev1.GroupName, Resource: "foos"}, r.URL.Path, nil).ErrStatus
		st.Kind, st.APIVersion = "Status", "v1"
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		_ = json.NewEncoder(w).Encode(st)
		return
	}
	var stored any
	var err error
	if strings.Contains(r.URL.Path, "/foos/") {
		foo := new(samplev1.Foo)
		if err = json.NewDecoder(r.Body).Decode(foo); err == nil {
			stored, err = s.foos.Update(foo)
		}
	} else {
		host := new(samplev1.Host)
		if err = json.NewDecoder(r.Body).Decode(host); err == nil {
			stored, err = s.hosts.Update(host)
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(stored)
}

// TestReconcile runs the controller over fake sources: statuses are computed
// from the Host (through the ByHost index for Host.status.foos), a 409 on
// the status write is retried with backoff, a Host capacity change reaches
// its Foos, and cancelling ctx stops everything (goleak checks).
func TestReconcile(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	foos := runtimetest.NewSource(runtimetest.SourceOptions{},
		&samplev1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Generation: 1}, Spec: samplev1.FooSpec{Replicas: 5, HostName: "h1"}},
		&samplev1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", Generation: 2}, Spec: samplev1.FooSpec{Replicas: 1, HostName: "h1"}},
		&samplev1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "c", Generation: 1}, Spec: samplev1.FooSpec{Replicas: 2, HostName: "missing"}},
	)
	hosts := runtimetest.NewSource(runtimetest.SourceOptions{},
		&samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: "h1", Generation: 1}, Spec: samplev1.HostSpec{Capacity: 3}},
		&samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: "h2", Generation: 1}, Spec: samplev1.HostSpec{Capacity: 9}},
	)
	srv := &statusServer{foos: foos, hosts: hosts, conflicts: map[string]bool{}}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	var opts factory.Options
	opts.Types = append(opts.Types, factory.TypeOptions[*samplev1.Foo]{Type: v1informers.FooType, ListerWatcher: foos})
	opts.Types = append(opts.Types, factory.TypeOptions[*samplev1.Host]{Type: v1informers.HostType, ListerWatcher: hosts})
	f := informers.NewSharedInformerFactory(&rest.Config{Host: hs.URL}, opts)
	defer f.Shutdown()
	var wroteMu sync.Mutex
	var wrote []string
	ctrl, err := controller.New(&rest.Config{Host: hs.URL}, f, controller.Options{
		Wrote: func(k controller.Key, rv string) {
			wroteMu.Lock()
			wrote = append(wrote, k.String()+"@"+rv)
			wroteMu.Unlock()
		},
		Workers:     3,
		RateLimiter: workqueue.NewExponentialRateLimiter[controller.Key](time.Millisecond, 10*time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	f.Start(runCtx)
	go func() { done <- ctrl.Run(runCtx) }()

	waitStatus := func(what string, ok func() bool) {
		t.Helper()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for !ok() {
			select {
			case <-ctx.Done():
				t.Fatalf("%s: not reached", what)
			case <-tick.C:
			}
		}
	}
	foo := func(key string) samplev1.FooStatus { o, _ := foos.Get(key); return o.Status }
	host := func(key string) samplev1.HostStatus { o, _ := hosts.Get(key); return o.Status }

	waitStatus("initial statuses", func() bool {
		return foo("ns/a") == samplev1.FooStatus{AvailableReplicas: 3, ObservedGeneration: 1} &&
			foo("ns/b") == samplev1.FooStatus{AvailableReplicas: 1, ObservedGeneration: 2} &&
			foo("other/c") == samplev1.FooStatus{AvailableReplicas: 0, ObservedGeneration: 1} &&
			host("h1") == samplev1.HostStatus{Foos: 2, ObservedGeneration: 1} &&
			host("h2") == samplev1.HostStatus{Foos: 0, ObservedGeneration: 1}
	})
	if s := ctrl.Stats(); s.Conflicts < 4 || s.Errors != 0 {
		t.Errorf("Stats() = %+v, want >= 4 Conflicts (the first status write of each changed object is a 409), retried without an error", s)
	}

	// Each write's resourceVersion, as returned by the server, is what the
	// controller waits for before the key's next reconcile.
	wroteMu.Lock()
	for _, w := range wrote {
		if _, rv, _ := strings.Cut(w, "@"); rv == "" {
			t.Errorf("status write %s: no resourceVersion decoded from the response", w)
		}
	}
	wroteMu.Unlock()

	// A capacity change reaches the Host's Foos through the index.
	h1, _ := hosts.Get("h1")
	h1 = h1.DeepCopy()
	h1.Spec.Capacity, h1.Generation = 10, 2
	if _, err := hosts.Update(h1); err != nil {
		t.Fatal(err)
	}
	waitStatus("statuses after the capacity change", func() bool {
		return foo("ns/a").AvailableReplicas == 5 && host("h1").ObservedGeneration == 2
	})

	// A Foo moving to another Host changes both Hosts' counts.
	b, _ := foos.Get("ns/b")
	b = b.DeepCopy()
	b.Spec.HostName, b.Generation = "h2", 3
	if _, err := foos.Update(b); err != nil {
		t.Fatal(err)
	}
	waitStatus("counts after a move", func() bool {
		return host("h1").Foos == 1 && host("h2").Foos == 1 && foo("ns/b") == samplev1.FooStatus{AvailableReplicas: 1, ObservedGeneration: 3}
	})

	stop()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if err := ctrl.Run(ctx); err == nil {
		t.Error("a second Run succeeded")
	}
}
