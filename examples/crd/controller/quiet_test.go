package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/workqueue"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	v1informers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
)

// racingServer plays the status subresource the way a busy cluster does to
// the demo: the first status write of most objects answers 409 Conflict
// (another writer got there first); one Foo is deleted by "someone else"
// just before its status write arrives, which answers 404; and the status
// write of one Host is still in flight when the controller stops.
type racingServer struct {
	foos    *runtimetest.Source[*samplev1.Foo]
	hosts   *runtimetest.Source[*samplev1.Host]
	doomed  string        // the URL path of the Foo deleted under the controller
	slow    string        // the URL path of the Host whose write never answers
	inSlow  chan struct{} // closed when the slow write has arrived
	release chan struct{} // closed when the test ends: the slow write returns
	slowArr sync.Once

	mu   sync.Mutex
	seen map[string]bool
}

func (s *racingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPut || !strings.HasSuffix(r.URL.Path, "/status") {
		http.Error(w, "unexpected request "+r.Method+" "+r.URL.Path, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	first := !s.seen[r.URL.Path]
	s.seen[r.URL.Path] = true
	s.mu.Unlock()
	fail := func(code int, st metav1.Status) {
		st.Kind, st.APIVersion = "Status", "v1"
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(st)
	}
	gr := schema.GroupResource{Group: samplev1.GroupName, Resource: "foos"}
	if strings.HasPrefix(r.URL.Path, s.slow) {
		s.slowArr.Do(func() { close(s.inSlow) })
		select { // until the client gives up
		case <-r.Context().Done():
		case <-s.release:
		}
		return
	}
	if strings.HasPrefix(r.URL.Path, s.doomed) {
		if first {
			if old, ok := s.foos.Get("ns/doomed"); ok {
				if _, err := s.foos.Delete(old); err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
			}
		}
		fail(http.StatusNotFound, apierrors.NewNotFound(gr, "doomed").ErrStatus)
		return
	}
	if first {
		fail(http.StatusConflict, apierrors.NewConflict(gr, r.URL.Path, nil).ErrStatus)
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

// TestExpectedFailuresLogNoError: a status write that conflicts with
// another writer's change, one to an object deleted meanwhile, and one still
// in flight when the controller stops are expected on a live cluster (the
// demo meets all three). The controller retries the first and drops the
// others, logging each at V(2) and never at error level, so a passing demo
// prints no E line for them.
func TestExpectedFailuresLogNoError(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(2), ktesting.BufferLogs(true)))
	ctx = klog.NewContext(ctx, logger)

	foos := runtimetest.NewSource(runtimetest.SourceOptions{},
		&samplev1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Generation: 1}, Spec: samplev1.FooSpec{Replicas: 2, HostName: "h1"}},
		&samplev1.Foo{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "doomed", Generation: 1}, Spec: samplev1.FooSpec{Replicas: 1, HostName: "h1"}},
	)
	hosts := runtimetest.NewSource(runtimetest.SourceOptions{},
		&samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: "h1", Generation: 1}, Spec: samplev1.HostSpec{Capacity: 3}},
		&samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: "slow", Generation: 1}, Spec: samplev1.HostSpec{Capacity: 1}},
	)
	srv := &racingServer{foos: foos, hosts: hosts, seen: map[string]bool{}, inSlow: make(chan struct{}), release: make(chan struct{}),
		doomed: "/apis/" + samplev1.GroupName + "/v1/namespaces/ns/foos/doomed/",
		slow:   "/apis/" + samplev1.GroupName + "/v1/hosts/slow/"}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer close(srv.release) // before hs.Close, which waits for the handlers

	var opts factory.Options
	opts.Types = append(opts.Types, factory.TypeOptions[*samplev1.Foo]{Type: v1informers.FooType, ListerWatcher: foos})
	opts.Types = append(opts.Types, factory.TypeOptions[*samplev1.Host]{Type: v1informers.HostType, ListerWatcher: hosts})
	f := informers.NewSharedInformerFactory(&rest.Config{Host: hs.URL}, opts)
	defer f.Shutdown()
	ctrl, err := controller.New(&rest.Config{Host: hs.URL}, f, controller.Options{
		Workers:     3, // one stays in the slow write
		RateLimiter: workqueue.NewExponentialRateLimiter[controller.Key](time.Millisecond, 10*time.Millisecond),
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	done := make(chan error, 1)
	f.Start(runCtx)
	go func() { done <- ctrl.Run(runCtx) }()

	// Until ns/a's status is written (after its 409), the doomed Foo's
	// write has met its 404, the Host counts only ns/a, and the slow Host's
	// write is in flight.
	var last string
	for {
		a, _ := foos.Get("ns/a")
		h1, _ := hosts.Get("h1")
		s := ctrl.Stats()
		last = fmt.Sprintf("ns/a status %+v, h1 status %+v, %+v", a.Status, h1.Status, s)
		if a.Status == (samplev1.FooStatus{AvailableReplicas: 2, ObservedGeneration: 1}) &&
			h1.Status == (samplev1.HostStatus{Foos: 1, ObservedGeneration: 1}) && s.Conflicts >= 2 && s.Gone >= 1 && isClosed(srv.inSlow) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the controller did not converge; last seen: %s", last)
		case <-time.After(5 * time.Millisecond):
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	if s := ctrl.Stats(); s.Errors != 0 {
		t.Errorf("Stats().Errors = %d, want 0: a conflict, a deleted object or a write abandoned on stop is not an error", s.Errors)
	}

	var conflictLogged, goneLogged, abandonLogged bool
	for _, e := range logger.GetSink().(ktesting.Underlier).GetBuffer().Data() {
		if e.Type == ktesting.LogError {
			t.Errorf("logged at error level: %s %v %v", e.Message, e.Err, e.ParameterKVList)
		}
		conflictLogged = conflictLogged || strings.Contains(e.Message, "conflicted")
		goneLogged = goneLogged || strings.Contains(e.Message, "deleted before its status was written")
		abandonLogged = abandonLogged || strings.Contains(e.Message, "abandoned")
	}
	if !conflictLogged || !goneLogged || !abandonLogged {
		t.Errorf("V(2) lines for the conflict (%v), the deleted object (%v) and the write abandoned on stop (%v): want all three", conflictLogged, goneLogged, abandonLogged)
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
