package fleet_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/informer-gen/informer-gen/runtime/fleet"
	lwt "github.com/informer-gen/informer-gen/runtime/listwatch/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// TestDisengageOverRESTClosesConnections: clusters reached over HTTP (each
// with the HTTP client the fleet builds for it) sync against a server; once
// they are disengaged, no goroutine of theirs is left, their connections'
// included, while the server still runs. (With one informer per cluster
// the WATCH reuses the LIST's connection and closes it when stopped, so
// this passes without the fleet's CloseIdleConnections too; that call is
// for factories with several informers, whose LIST connections can sit
// idle in the pool.)
func TestDisengageOverRESTClosesConnections(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("ns", "a", "n1"))
	srv.RefuseWatchList(true) // LIST, then WATCH: a connection goes back to the pool between them
	q := workqueue.New(workqueue.Options[fleet.Key]{})
	defer q.ShutDown()
	fl := newFleet(q)
	ctx, stop := run(t, fl)
	defer stop()
	before := goleak.IgnoreCurrent()

	for _, name := range []string{"one", "two"} {
		if err := fl.Engage(name, fleet.Endpoint{Config: srv.Config()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fl.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"one", "two"} {
		if got := len(cluster(t, fl, name).Factory().Widgets().Indexer().List()); got != 1 {
			t.Fatalf("cluster %s caches %d objects, want 1", name, got)
		}
	}
	fl.Disengage("one")
	fl.Disengage("two")
	goleak.VerifyNone(t, before)
}
