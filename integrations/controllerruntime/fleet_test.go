package controllerruntime_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

func configMaps(f *factory.Factory) *informer.Informer[*corev1.ConfigMap] {
	return factory.InformerFor(f, configMapType)
}

func configMap(ns, name, data string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"v": data}}
}

func cmSource(objs ...*corev1.ConfigMap) *runtimetest.Source[*corev1.ConfigMap] {
	return runtimetest.NewSource(runtimetest.SourceOptions{Resource: configMapType.Resource.GroupResource()}, objs...)
}

// overCM is the Endpoint of a cluster whose ConfigMaps come from lw.
func overCM(lw reflector.ListerWatcher[*corev1.ConfigMap]) fleet.Endpoint {
	return fleet.Endpoint{Options: func(o *factory.Options) {
		o.Types = append(o.Types, factory.TypeOptions[*corev1.ConfigMap]{Type: configMapType, ListerWatcher: lw})
	}}
}

// forbiddenCM answers every LIST and WATCH with a 403.
type forbiddenCM struct{}

func (forbiddenCM) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	return nil, apierrors.NewForbidden(configMapType.Resource.GroupResource(), "", nil)
}

func (forbiddenCM) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, apierrors.NewForbidden(configMapType.Resource.GroupResource(), "", nil)
}

// seen records what a fleet reconciler read, "cluster:ns/name=data".
type seen struct {
	mu  sync.Mutex
	got []string
}

func (s *seen) add(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, v)
}

func (s *seen) sorted() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.got)
	slices.Sort(out)
	return out
}

// TestFleetKindReconcilesEveryCluster runs a controller-runtime controller
// over a fleet: requests carry their cluster, the reconciler reads that
// cluster's typed cache, a forbidden cluster holds nobody back (the
// controller starts, the others reconcile, readiness says which failed), a
// cluster engaged later is reconciled, a disengaged one's events stop and
// its queued requests are dropped.
func TestFleetKindReconcilesEveryCluster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		fl := fleet.New(fleet.Options[*factory.Factory]{NewFactory: factory.New})
		west := cmSource(configMap("ns", "a", "w1"), configMap("ns", "b", "w2"))
		_ = fl.Engage("east", overCM(cmSource(configMap("ns", "a", "e1"))))
		_ = fl.Engage("west", overCM(west))
		_ = fl.Engage("north", overCM(forbiddenCM{}))

		run := crinformers.NewFleetRunnable(fl, crinformers.FleetOptions{})
		if err := run.ReadyzCheck(nil); err == nil {
			t.Error("ReadyzCheck before Start: nil, want an error")
		}

		var got seen
		var calls sync.Map // cluster -> reconciler calls
		r := crinformers.FleetReconciler(fl, func(ctx context.Context, c *fleet.Cluster[*factory.Factory], req reconcile.Request) (reconcile.Result, error) {
			n, _ := calls.LoadOrStore(c.Name(), new(int))
			*n.(*int)++
			cm, ok := configMaps(c.Factory()).Indexer().Get(req.Namespace + "/" + req.Name)
			data := "<deleted>"
			if ok {
				data = cm.Data["v"]
			}
			got.add(c.Name() + ":" + req.String() + "=" + data)
			return reconcile.Result{}, nil
		})
		ctrl, err := controller.NewTypedUnmanaged("fleet-cm", controller.TypedOptions[crinformers.FleetRequest]{Reconciler: r, SkipNameValidation: new(true)})
		if err != nil {
			t.Fatal(err)
		}
		if err := ctrl.Watch(crinformers.FleetKind(fl, configMaps, crinformers.EnqueueFleetRequestForObject[*corev1.ConfigMap]())); err != nil {
			t.Fatal(err)
		}

		runDone := make(chan error, 1)
		go func() { runDone <- run.Start(ctx) }()
		ctrlDone := make(chan error, 1)
		go func() { ctrlDone <- ctrl.Start(ctx) }()
		synctest.Wait()

		want := []string{"east:ns/a=e1", "west:ns/a=w1", "west:ns/b=w2"}
		if g := got.sorted(); !slices.Equal(g, want) {
			t.Fatalf("reconciled %q with one cluster forbidden, want %q", g, want)
		}
		// The forbidden cluster failed; by default the replica is ready.
		if err := run.ReadyzCheck(nil); err != nil {
			t.Errorf("ReadyzCheck with a failed cluster = %v, want nil", err)
		}
		if err := run.ClusterReadyzCheck("north")(nil); !apierrors.IsForbidden(err) {
			t.Errorf("ClusterReadyzCheck(north) = %v, want its 403", err)
		}
		if err := run.ClusterReadyzCheck("east")(nil); err != nil {
			t.Errorf("ClusterReadyzCheck(east) = %v, want nil", err)
		}
		var north crinformers.ClusterStatus
		for _, s := range run.Statuses() {
			if s.Name == "north" {
				north = s
			}
		}
		if north.Synced || !apierrors.IsForbidden(north.Err) {
			t.Errorf("north's status = %+v, want not synced with its 403", north)
		}

		// A cluster engaged while the controller runs.
		_ = fl.Engage("south", overCM(cmSource(configMap("ns", "c", "s1"))))
		synctest.Wait()
		if g := got.sorted(); !slices.Contains(g, "south:ns/c=s1") {
			t.Errorf("reconciled %q, want south's Foo too", g)
		}
		if err := run.ReadyzCheck(nil); err != nil {
			t.Errorf("ReadyzCheck once south synced = %v, want nil", err)
		}

		// Disengaged: west's later changes reach no one, and a request of
		// west still queued is dropped before the reconciler.
		if !fl.Disengage("west") {
			t.Fatal("Disengage(west) = false")
		}
		n, _ := calls.Load("west")
		before := *n.(*int)
		if _, err := west.Update(configMap("ns", "a", "w9")); err != nil {
			t.Fatal(err)
		}
		res, err := r.Reconcile(ctx, crinformers.FleetRequest{ClusterName: "west", Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}})
		if err != nil || !res.IsZero() {
			t.Errorf("Reconcile of a disengaged cluster's request = %v, %v, want zero, nil", res, err)
		}
		synctest.Wait()
		if after := *n.(*int); after != before {
			t.Errorf("west reconciled %d more times after it was disengaged", after-before)
		}
		if err := run.ClusterReadyzCheck("west")(nil); err == nil {
			t.Error("ClusterReadyzCheck(west) after Disengage: nil")
		}

		cancel()
		if err := <-ctrlDone; err != nil {
			t.Errorf("controller: %v", err)
		}
		if err := <-runDone; err != nil {
			t.Errorf("fleet runnable: %v", err)
		}
		if err := run.ReadyzCheck(nil); err == nil {
			t.Error("ReadyzCheck after the fleet stopped: nil")
		}
	})
}

// TestFleetReadyzRequireAllClusters: with RequireAllClusters, a failed
// cluster makes the fleet's readyz check fail with its LastError.
func TestFleetReadyzRequireAllClusters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		fl := fleet.New(fleet.Options[*factory.Factory]{NewFactory: factory.New})
		_ = fl.Engage("east", overCM(cmSource(configMap("ns", "a", "e1"))))
		_ = fl.Engage("north", overCM(forbiddenCM{}))
		fleet.Watch(fl, configMaps, func(string) informer.Handler[*corev1.ConfigMap] {
			return new(runtimetest.Recorder[*corev1.ConfigMap])
		}, informer.HandlerOptions{})
		run := crinformers.NewFleetRunnable(fl, crinformers.FleetOptions{RequireAllClusters: true})
		done := make(chan error, 1)
		go func() { done <- run.Start(ctx) }()
		if err := fl.WaitForCacheSync(ctx); !apierrors.IsForbidden(err) {
			t.Fatalf("fleet WaitForCacheSync = %v, want north's 403", err)
		}
		if err := run.ReadyzCheck(nil); !apierrors.IsForbidden(err) {
			t.Errorf("ReadyzCheck = %v, want north's 403", err)
		}
		fl.Disengage("north")
		if err := run.ReadyzCheck(nil); err != nil {
			t.Errorf("ReadyzCheck once north is gone = %v, want nil", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

// TestLiftKeepsClusterAndPriority: a lifted controller-runtime handler adds
// FleetRequests of its cluster, and with the priority queue an initial
// list's adds keep their low priority.
func TestLiftKeepsClusterAndPriority(t *testing.T) {
	q := priorityqueue.New[crinformers.FleetRequest]("lift-test")
	defer q.ShutDown()
	h := crinformers.EnqueueFleetRequestForObject[*corev1.ConfigMap]()("east")
	h.Create(t.Context(), event.TypedCreateEvent[*corev1.ConfigMap]{Object: configMap("ns", "a", ""), IsInInitialList: true}, q)
	req, prio, _ := q.GetWithPriority()
	want := crinformers.FleetRequest{ClusterName: "east", Request: reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "a"}}}
	if req != want || prio != handler.LowPriority {
		t.Errorf("got %v at priority %d, want %v at %d", req, prio, want, handler.LowPriority)
	}
	if req.String() != "east:ns/a" {
		t.Errorf("String() = %q, want east:ns/a", req.String())
	}
}
