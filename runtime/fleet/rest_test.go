package fleet_test

import (
	"fmt"
	"net/http"
	"runtime"
	"testing"
	"time"
	"weak"

	"go.uber.org/goleak"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/fleet"
	"github.com/informer-gen/informer-gen/runtime/workqueue"
)

// TestDisengageOverRESTClosesConnections: clusters reached over HTTP (each
// with the HTTP client the fleet builds for it) sync against a server; once
// they are disengaged, no goroutine of theirs is left, their connections'
// included, while the server still runs. The LIST's connection goes back to
// the pool before the WATCH; the WATCH's is still being torn down when
// Disengage returns, so only closing every connection of the cluster's
// transport (not just the idle ones) leaves nothing.
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

// TestDisengageOverTLSWithTokenLeavesNothing: clusters reached as API
// servers are (HTTP/2 over TLS, a CA of their own, a bearer token) leave no
// goroutine (their connections' read loops, the servers' handlers of their
// watches) and no transport behind once disengaged: each cluster's
// *http.Transport becomes garbage — client-go's process-wide TLS transport
// cache does not keep it, nor does an open connection.
//
// x/net's HTTP/2 client leaves a closed connection's health-check timer
// running (ReadIdleTimeout, 30 s by default in client-go), which reaches
// the transport until it fires; the test sets it to 1 s through client-go's
// variable, so the transports are garbage about a second after Disengage.
func TestDisengageOverTLSWithTokenLeavesNothing(t *testing.T) {
	t.Setenv("HTTP2_READ_IDLE_TIMEOUT_SECONDS", "1")
	const n = 3
	var srvs []*lwt.Server
	for i := range n {
		srv := lwt.NewTLSServer(t, fmt.Sprintf("token-%d", i))
		srv.Add(widget("ns", "a", "n1"))
		srv.RefuseWatchList(true) // LIST, then WATCH
		srvs = append(srvs, srv)
	}
	q := workqueue.New(workqueue.Options[fleet.Key]{})
	defer q.ShutDown()
	fl := newFleet(q)
	ctx, stop := run(t, fl)
	defer stop()
	before := goleak.IgnoreCurrent()

	name := func(i int) string { return fmt.Sprintf("c%d", i) }
	for i, srv := range srvs {
		if err := fl.Engage(name(i), fleet.Endpoint{Config: srv.Config()}); err != nil {
			t.Fatal(err)
		}
	}
	if err := fl.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	var transports []weak.Pointer[http.Transport]
	for i := range n {
		c := cluster(t, fl, name(i))
		if got := len(c.Factory().Widgets().Indexer().List()); got != 1 {
			t.Fatalf("cluster %s caches %d objects, want 1", name(i), got)
		}
		tr := fleet.HTTPTransport(c)
		if tr == nil {
			t.Fatalf("cluster %s: no *http.Transport under the fleet's HTTP client", name(i))
		}
		transports = append(transports, weak.Make(tr))
	}
	for i := range n {
		if !fl.Disengage(name(i)) {
			t.Fatalf("cluster %s was not engaged", name(i))
		}
	}
	goleak.VerifyNone(t, before)
	// Nothing runs for the clusters any more (goleak above); the
	// transports are garbage once their connections' health-check timers
	// have fired (1 s); a busy machine may take longer, so up to 2 min.
	start := time.Now()
	for deadline := start.Add(2 * time.Minute); ; {
		runtime.GC()
		runtime.GC() // the first GC's cleanups (client-go's cache) run before the second
		var live []string
		for i, wp := range transports {
			if wp.Value() != nil {
				live = append(live, name(i))
			}
		}
		if len(live) == 0 {
			t.Logf("the transports were garbage %v after Disengage", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("clusters %v: their *http.Transport is still reachable 2 min after Disengage", live)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
