package e2e_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
)

// replica is one process of a leader-elected controller: a manager whose
// leader election (client-go's tools/leaderelection) runs over a Lease in a
// fake clientset shared by the replicas (the local API server has no
// coordination API), the factory on every replica, the controller on the
// leader only.
type replica struct {
	mgr      manager.Manager
	factory  *informers.SharedInformerFactory
	runnable *crinformers.Runnable
	mu       sync.Mutex
	seen     map[string]bool
	cancel   context.CancelFunc
	done     chan error
}

func newReplica(t *testing.T, id, ns string, leases *fake.Clientset) *replica {
	t.Helper()
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, "kube-system", "foo-controller",
		nil, leases.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		t.Fatal(err)
	}
	opts := managerOptions(t)
	opts.LeaderElection = true
	opts.LeaderElectionID = "foo-controller"
	opts.LeaderElectionResourceLockInterface = lock
	opts.LeaderElectionReleaseOnCancel = true
	// A lease a busy machine can renew in time (the test asserts the
	// standby is not elected while a leads); the takeover after a steps
	// down does not wait for it to expire (LeaderElectionReleaseOnCancel),
	// only for b's next retry.
	opts.LeaseDuration = new(30 * time.Second)
	opts.RenewDeadline = new(20 * time.Second)
	opts.RetryPeriod = new(200 * time.Millisecond)
	mgr, err := ctrl.NewManager(server.Config(), opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{mgr: mgr, seen: map[string]bool{}, done: make(chan error, 1)}
	r.factory = informers.NewSharedInformerFactory(server.Config(), factory.Options{Namespaces: []string{ns}})
	if r.runnable, err = crinformers.Add(mgr, r.factory, crinformers.Options{}); err != nil {
		t.Fatal(err)
	}
	err = ctrl.NewControllerManagedBy(mgr).Named("leader-" + id).
		WithOptions(controller.Options{SkipNameValidation: new(true)}).
		WatchesRawSource(crinformers.Kind(r.factory.Samplecontroller().V1().Foos().Informer(),
			&handler.TypedEnqueueRequestForObject[*samplev1.Foo]{})).
		Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
			r.mu.Lock()
			r.seen[req.Name] = true
			r.mu.Unlock()
			return reconcile.Result{}, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *replica) start() {
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- r.mgr.Start(ctx) }()
}

func (r *replica) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	if err := <-r.done; err != nil {
		t.Errorf("manager: %v", err)
	}
}

func (r *replica) reconciled() map[string]bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]bool, len(r.seen))
	for k, v := range r.seen {
		out[k] = v
	}
	return out
}

func elected(mgr manager.Manager) bool {
	select {
	case <-mgr.Elected():
		return true
	default:
		return false
	}
}

// TestLeaderElectionWarmStandby: both replicas list, watch and are ready;
// only the leader reconciles; when it steps down the standby takes over and
// reconciles from its warm cache.
func TestLeaderElectionWarmStandby(t *testing.T) {
	ctx := context.Background()
	ns := "leader-election"
	c := newClient(t)
	if err := c.Create(ctx, foo(ns, "x", "")); err != nil {
		t.Fatal(err)
	}
	leases := fake.NewClientset()
	a := newReplica(t, "a", ns, leases)
	b := newReplica(t, "b", ns, leases)

	a.start()
	eventually(t, patience, "replica a elected and reconciling", func() error {
		if !a.reconciled()["x"] {
			return fmt.Errorf("a reconciled %v", a.reconciled())
		}
		return nil
	})
	b.start()
	defer b.stop(t)
	eventually(t, patience, "standby b ready with a warm cache", func() error {
		if err := b.runnable.ReadyzCheck(nil); err != nil {
			return err
		}
		_, err := b.factory.Samplecontroller().V1().Foos().Lister().Foos(ns).Get("x")
		return err
	})

	if err := c.Create(ctx, foo(ns, "y", "")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "leader a reconciles a new Foo", func() error {
		if !a.reconciled()["y"] {
			return fmt.Errorf("a reconciled %v", a.reconciled())
		}
		return nil
	})
	eventually(t, patience, "standby b caches the new Foo", func() error {
		_, err := b.factory.Samplecontroller().V1().Foos().Lister().Foos(ns).Get("y")
		return err
	})
	if elected(b.mgr) || len(b.reconciled()) > 0 {
		t.Fatalf("standby b: elected %v, reconciled %v; want neither while a leads", elected(b.mgr), b.reconciled())
	}

	a.stop(t) // releases the Lease (LeaderElectionReleaseOnCancel)
	eventually(t, patience, "b takes over and reconciles what it cached", func() error {
		if got := b.reconciled(); !got["x"] || !got["y"] {
			return fmt.Errorf("b reconciled %v (elected %v)", got, elected(b.mgr))
		}
		return nil
	})
	lease, err := leases.CoordinationV1().Leases("kube-system").Get(ctx, "foo-controller", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := lease.Spec.HolderIdentity; h == nil || *h != "b" {
		t.Errorf("Lease holder = %v, want b", h)
	}
}
