package e2e_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
	"github.com/informer-gen/informer-gen/examples/crd/manifests"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
)

// guideFleet is docs/guide.md's controller-runtime controller over a fleet
// ("Fleets in controller-runtime"); docs/snippets_test.go checks the block
// against the region. reconcileFoo stands for the user's reconciler.
func guideFleet(mgr manager.Manager, fl *fleet.Fleet[*informers.SharedInformerFactory],
	reconcileFoo func(ctx context.Context, cluster string, foo *v1.Foo) error) (*crinformers.FleetRunnable[*informers.SharedInformerFactory], error) {
	// doc:begin guide-fleet-controllerruntime
	run, err := crinformers.AddFleet(mgr, fl, crinformers.FleetOptions{}) // every replica; readyz "fleet"
	if err != nil {
		return nil, err
	}
	foos := func(f *informers.SharedInformerFactory) *informer.Informer[*v1.Foo] {
		return f.Samplecontroller().V1().Foos().Informer()
	}
	err = builder.TypedControllerManagedBy[crinformers.FleetRequest](mgr).
		Named("foo-fleet").
		WatchesRawSource(crinformers.FleetKind(fl, foos, crinformers.EnqueueFleetRequestForObject[*v1.Foo]())).
		Complete(crinformers.FleetReconciler(fl, func(ctx context.Context,
			c *fleet.Cluster[*informers.SharedInformerFactory], req reconcile.Request) (reconcile.Result, error) {
			foo, err := c.Factory().Samplecontroller().V1().Foos().Lister().Foos(req.Namespace).Get(req.Name)
			if apierrors.IsNotFound(err) {
				return reconcile.Result{}, nil
			}
			if err != nil {
				return reconcile.Result{}, err
			}
			return reconcile.Result{}, reconcileFoo(ctx, c.Name(), foo)
		}))
	// doc:end guide-fleet-controllerruntime
	return run, err
}

// fleetSeen is what the fleet reconciler saw: "cluster:ns/name" -> host.
type fleetSeen struct {
	mu   sync.Mutex
	seen map[string]string
}

func (s *fleetSeen) reconcile(_ context.Context, cluster string, foo *v1.Foo) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen[cluster+":"+foo.Namespace+"/"+foo.Name] = foo.Spec.HostName
	return nil
}

func (s *fleetSeen) want(key, host string) func() error {
	return func() error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if got, ok := s.seen[key]; !ok || got != host {
			return fmt.Errorf("%s: seen %q (%v), want %q", key, got, ok, host)
		}
		return nil
	}
}

func clientFor(t testing.TB, cfg *rest.Config) client.Client {
	t.Helper()
	c, err := client.New(cfg, client.Options{Scheme: newScheme(t), Mapper: restMapper()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFleetControllerTwoServers runs the guide's controller-runtime
// controller over a fleet of two real API servers (the suite's and one of
// its own): the reconciler gets each Foo with its cluster and reads that
// cluster's generated Lister; a cluster engaged after the manager started
// is reconciled; when one server stops, the other cluster still reconciles
// and readiness names the failed one, which recovers when its server
// returns; a disengaged cluster is no longer ready.
func TestFleetControllerTwoServers(t *testing.T) {
	ctx := context.Background()
	ns := "fleet-cr"
	sctx, scancel := context.WithTimeout(ctx, patience)
	defer scancel()
	crds, err := localapi.ParseCRDs(manifests.CRDs()...)
	if err != nil {
		t.Fatal(err)
	}
	second, err := localapi.Start(sctx, localapi.Options{CRDs: crds})
	if err != nil {
		t.Fatalf("starting the second API server: %v", err)
	}
	t.Cleanup(func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), patience)
		defer stopCancel()
		_ = second.Stop(stopCtx)
	})
	one, two := clientFor(t, server.Config()), clientFor(t, second.Config())
	if err := one.Create(ctx, foo(ns, "a", "h1")); err != nil {
		t.Fatal(err)
	}
	if err := two.Create(ctx, foo(ns, "a", "h2")); err != nil {
		t.Fatal(err)
	}

	fl := fleet.New(fleet.Options[*informers.SharedInformerFactory]{
		NewFactory: informers.NewSharedInformerFactory,
		Factory:    factory.Options{Namespaces: []string{ns}},
	})
	if err := fl.Engage("one", fleet.Endpoint{Config: server.Config()}); err != nil {
		t.Fatal(err)
	}
	mgr, err := ctrl.NewManager(server.Config(), managerOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := &fleetSeen{seen: map[string]string{}}
	run, err := guideFleet(mgr, fl, seen.reconcile)
	if err != nil {
		t.Fatalf("the guide's controller: %v", err)
	}
	startManager(t, mgr)

	eventually(t, patience, "cluster one's initial Foo", seen.want("one:"+ns+"/a", "h1"))

	// Engaged while the manager runs.
	if err := fl.Engage("two", fleet.Endpoint{Config: second.Config()}); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "cluster two's initial Foo", seen.want("two:"+ns+"/a", "h2"))
	if err := two.Create(ctx, foo(ns, "b", "h3")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "a new Foo in cluster two", seen.want("two:"+ns+"/b", "h3"))

	// The second server stops: cluster one goes on.
	stopCtx, stopCancel := context.WithTimeout(ctx, patience)
	defer stopCancel()
	if err := second.StopAPIServer(stopCtx); err != nil {
		t.Fatal(err)
	}
	if err := one.Create(ctx, foo(ns, "c", "h4")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "a new Foo in cluster one while two is down", seen.want("one:"+ns+"/c", "h4"))
	eventually(t, patience, "cluster two failing in readiness", func() error {
		if err := run.ClusterReadyzCheck("two")(nil); err == nil {
			return errors.New("ClusterReadyzCheck(two) = nil with its server down")
		}
		return nil
	})
	if err := run.ClusterReadyzCheck("one")(nil); err != nil {
		t.Errorf("ClusterReadyzCheck(one) with two down = %v, want nil", err)
	}
	if err := run.ReadyzCheck(nil); err != nil {
		t.Errorf("the fleet's ReadyzCheck with one cluster failing = %v, want nil (RequireAllClusters is off)", err)
	}

	if err := second.StartAPIServer(stopCtx); err != nil {
		t.Fatal(err)
	}
	if err := two.Create(ctx, foo(ns, "d", "h5")); err != nil {
		t.Fatal(err)
	}
	eventually(t, patience, "a new Foo in cluster two once its server is back", seen.want("two:"+ns+"/d", "h5"))
	eventually(t, patience, "cluster two ready again", func() error { return run.ClusterReadyzCheck("two")(nil) })

	if !fl.Disengage("two") {
		t.Fatal("Disengage(two) = false")
	}
	if err := run.ClusterReadyzCheck("two")(nil); err == nil {
		t.Error("ClusterReadyzCheck(two) after Disengage: nil")
	}
	if err := run.ReadyzCheck(nil); err != nil {
		t.Errorf("the fleet's ReadyzCheck = %v, want nil", err)
	}
}
