package controller_test

import (
	"context"
	"maps"
	"testing"
	"testing/synctest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"

	"github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1alpha1"
	generated "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1alpha1"
	"github.com/informer-gen/informer-gen/examples/fleet/controller"
)

func foo(name, host string) *v1alpha1.Foo {
	f := &v1alpha1.Foo{Spec: v1alpha1.FooSpec{DeploymentName: name, Replicas: 1, HostName: host}}
	f.Namespace, f.Name = "ns", name
	return f
}

func newSource(objs ...*v1alpha1.Foo) *runtimetest.Source[*v1alpha1.Foo] {
	return runtimetest.NewSource(runtimetest.SourceOptions{Resource: generated.FooType.Resource.GroupResource()}, objs...)
}

// over is a cluster whose Foos come from src.
func over(src *runtimetest.Source[*v1alpha1.Foo]) fleet.Endpoint {
	return fleet.Endpoint{Options: func(o *factory.Options) {
		o.Types = append(o.Types, factory.TypeOptions[*v1alpha1.Foo]{Type: generated.FooType, ListerWatcher: src})
	}}
}

func rvs(src *runtimetest.Source[*v1alpha1.Foo]) map[string]string {
	out := map[string]string{}
	for k, f := range src.Snapshot() {
		out[k] = f.ResourceVersion
	}
	return out
}

// TestInventoryFollowsEachCluster: the controller's inventory of each
// cluster follows that cluster's Foos (adds, updates, deletes), a cluster
// engaged again starts afresh (a Foo deleted while it was away is gone
// from it), and Placements reads the ByHost index across the fleet.
func TestInventoryFollowsEachCluster(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		east := newSource(foo("a", "h1"), foo("b", "h2"))
		west := newSource(foo("a", "h1"))
		fl := controller.NewFleet()
		ctl := controller.New(fl)
		if err := fl.Engage("east", over(east)); err != nil {
			t.Fatal(err)
		}
		if err := fl.Engage("west", over(west)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			go func() { _ = fl.Run(ctx) }()
			_ = ctl.Run(ctx, 2)
		}()
		defer func() { cancel(); <-done; synctest.Wait() }()
		if err := fl.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}

		check := func(cluster string, src *runtimetest.Source[*v1alpha1.Foo]) {
			t.Helper()
			synctest.Wait()
			if inv, _ := ctl.Inventory(cluster); !maps.Equal(inv, rvs(src)) {
				t.Errorf("inventory of %s = %v; the cluster has %v", cluster, inv, rvs(src))
			}
		}
		check("east", east)
		check("west", west)

		b, _ := east.Get("ns/b")
		b = b.DeepCopy()
		b.Spec.Replicas = 3
		if _, err := east.Update(b); err != nil {
			t.Fatal(err)
		}
		if _, err := west.Add(foo("c", "h1")); err != nil {
			t.Fatal(err)
		}
		check("east", east)
		check("west", west)

		ps, err := ctl.Placements("h1")
		if err != nil || len(ps) != 3 {
			t.Errorf("Placements(h1) = %v, %v; want east a, west a, west c", ps, err)
		}

		// West goes; a Foo is deleted meanwhile; west comes back.
		fl.Disengage("west")
		a, _ := west.Get("ns/a")
		if _, err := west.Delete(a); err != nil {
			t.Fatal(err)
		}
		if err := fl.Engage("west", over(west)); err != nil {
			t.Fatal(err)
		}
		check("west", west)
	})
}
