package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/fleet"

	"github.com/informer-gen/informer-gen/examples/fleet/controller"
)

// cacheRVs returns namespace/name → resourceVersion of cluster name's Foo
// cache in fl.
func cacheRVs(fl *controller.Fleet, name string) (map[string]string, error) {
	c, ok := fl.Cluster(name)
	if !ok {
		return nil, fmt.Errorf("cluster %s not engaged", name)
	}
	if !c.HasSynced() {
		return nil, fmt.Errorf("cluster %s not synced (last error: %v)", name, c.LastError())
	}
	out := map[string]string{}
	for _, f := range controller.Foos(c.Factory()).Indexer().List() {
		out[f.Namespace+"/"+f.Name] = f.ResourceVersion
	}
	return out, nil
}

// churn creates, updates and deletes Foos in ns of every member in mbs until
// ctx ends; a member whose server is down is skipped while it is.
func churn(ctx context.Context, t *testing.T, ns string, mbs []*member) {
	var wg sync.WaitGroup
	for i, mb := range mbs {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(i), 47))
			for n := 0; ctx.Err() == nil; n++ {
				name := fmt.Sprintf("churn-%d", rng.IntN(30))
				rc := mb.client.Resource(fooGVR).Namespace(ns)
				var err error
				switch rng.IntN(3) {
				case 0:
					_, err = rc.Create(ctx, foo(ns, name, int64(rng.IntN(5)), "h1"), metav1.CreateOptions{})
				case 1:
					f, gerr := rc.Get(ctx, name, metav1.GetOptions{})
					if gerr == nil {
						f.Object["spec"].(map[string]any)["replicas"] = int64(rng.IntN(5))
						_, err = rc.Update(ctx, f, metav1.UpdateOptions{})
					}
				case 2:
					err = rc.Delete(ctx, name, metav1.DeleteOptions{})
				}
				_ = err // conflicts, not-founds and a stopped server are part of the churn
				select {
				case <-ctx.Done():
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	}
	wg.Wait()
}

// TestFleetUnderChurnAndOutage: one fleet over the four members, found in
// a kubeconfig directory, with the example controller. Under churn (Foos
// created, updated, deleted in every cluster all along): a cluster is
// disengaged (its file removed) and engaged again, another's kubeconfig
// is rotated (re-engaged beside its old factory); one member's API server
// is stopped — only its cluster fails, the others' handlers, workers and
// listers go on — and started again on the same port and etcd data, after
// which its cluster recovers. At the end every cluster's cache and the
// controller's inventory equal the cluster's own LIST.
func TestFleetUnderChurnAndOutage(t *testing.T) {
	ctx := t.Context()
	ns := "churn"
	dir := t.TempDir()
	writeKubeconfig := func(mb *member) {
		b, err := os.ReadFile(mb.srv.KubeconfigPath())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, mb.name+".kubeconfig"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, mb := range members {
		writeKubeconfig(mb)
		for i := range 20 {
			if err := mb.create(ctx, ns, fmt.Sprintf("seed-%d", i), int64(i%4), "h1"); err != nil {
				t.Fatal(err)
			}
		}
	}

	fl := controller.NewFleet(fleet.KubeconfigDir{Dir: dir, Interval: 200 * time.Millisecond})
	ctl := controller.New(fl)
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		stop()
		wg.Wait()
	}()
	wg.Go(func() {
		if err := fl.Run(runCtx); err != nil {
			t.Errorf("fleet Run: %v", err)
		}
	})
	wg.Go(func() {
		if err := ctl.Run(runCtx, 4); err != nil {
			t.Errorf("controller Run: %v", err)
		}
	})
	eventually(t, ctx, 3*time.Minute, "every member engaged and synced", func() error {
		if n := len(fl.Clusters()); n != len(members) {
			return fmt.Errorf("%d clusters engaged", n)
		}
		return fl.WaitForCacheSync(ctx)
	})

	churnCtx, stopChurn := context.WithCancel(ctx)
	churnDone := make(chan struct{})
	go func() { defer close(churnDone); churn(churnCtx, t, ns, members) }()
	defer func() { stopChurn(); <-churnDone }()

	// Disengage m3 (its kubeconfig removed) and engage it again.
	m3 := members[3]
	if err := os.Remove(filepath.Join(dir, m3.name+".kubeconfig")); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 3*time.Minute, "m3 disengaged", func() error {
		if _, ok := fl.Cluster(m3.name); ok {
			return fmt.Errorf("m3 still engaged")
		}
		return nil
	})
	writeKubeconfig(m3)
	eventually(t, ctx, 3*time.Minute, "m3 engaged and synced again", func() error {
		c, ok := fl.Cluster(m3.name)
		if !ok {
			return fmt.Errorf("m3 not engaged")
		}
		return c.WaitForCacheSync(ctx)
	})

	// Rotate m2's kubeconfig (new content, same server): the fleet
	// re-engages m2, whose new factory syncs beside the old one; queued
	// keys stay valid (checked at the end, with everything else).
	m2 := members[2]
	before, _ := fl.Cluster(m2.name)
	b, err := os.ReadFile(m2.srv.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, m2.name+".kubeconfig"), append(b, "\n# rotated\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 3*time.Minute, "m2 re-engaged with its rotated kubeconfig", func() error {
		c, ok := fl.Cluster(m2.name)
		if !ok || c == before {
			return fmt.Errorf("m2 still served by its first factory")
		}
		if !c.HasSynced() {
			return fmt.Errorf("m2's new factory not synced: %v", c.LastError())
		}
		return nil
	})

	// Stop m1's API server: only m1 fails.
	m1 := members[1]
	if err := m1.srv.StopAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 3*time.Minute, "m1 reports its failure", func() error {
		c, _ := fl.Cluster(m1.name)
		if c == nil || c.LastError() == nil {
			return fmt.Errorf("m1 has no LastError")
		}
		return nil
	})
	// The others: a Foo created now reaches their caches, their handlers
	// and workers (the inventory) and their listers, across the fleet.
	for _, mb := range []*member{members[0], members[2], members[3]} {
		if err := mb.create(ctx, ns, "during-outage", 3, "outage-host"); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, ctx, 3*time.Minute, "the others serve the Foos created during m1's outage", func() error {
		for _, mb := range []*member{members[0], members[2], members[3]} {
			inv, _ := ctl.Inventory(mb.name)
			if _, ok := inv[ns+"/during-outage"]; !ok {
				return fmt.Errorf("%s: the controller has not reconciled %s/during-outage", mb.name, ns)
			}
			if c, _ := fl.Cluster(mb.name); c == nil || c.LastError() != nil {
				return fmt.Errorf("%s: failing beside m1: %v", mb.name, c.LastError())
			}
		}
		ps, _ := ctl.Placements("outage-host") // m1 is named in the error, and skipped
		if len(ps) != 3 {
			return fmt.Errorf("Placements(outage-host) = %v; want the three Foos of m0, m2, m3", ps)
		}
		return nil
	})

	// m1 back, on the same port and etcd data: its cluster recovers.
	if err := m1.srv.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	if err := m1.create(ctx, ns, "after-outage", 1, "outage-host"); err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, 3*time.Minute, "m1 recovers", func() error {
		inv, _ := ctl.Inventory(m1.name)
		if _, ok := inv[ns+"/after-outage"]; !ok {
			return fmt.Errorf("m1: the controller has not reconciled %s/after-outage", ns)
		}
		return nil
	})

	stopChurn()
	<-churnDone
	for _, mb := range members {
		eventually(t, ctx, 3*time.Minute, mb.name+": cache and inventory equal the LIST", func() error {
			list, err := mb.list(ctx, "")
			if err != nil {
				return err
			}
			cache, err := cacheRVs(fl, mb.name)
			if err != nil {
				return err
			}
			if err := same(mb.name+" cache", cache, list); err != nil {
				return err
			}
			inv, _ := ctl.Inventory(mb.name)
			return same(mb.name+" inventory", inv, list)
		})
	}
	if c, _ := fl.Cluster(m1.name); c.LastError() != nil {
		t.Errorf("m1 still reports %v after it recovered", c.LastError())
	}
}
