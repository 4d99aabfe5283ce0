// Package e2e runs the generated informers, the runtime and the example
// controller against a real API server in this test binary: one server with
// the watch cache on (server), started in TestMain, and a second one with
// --watch-cache=false (noCacheServer), started by the first test that needs
// etcd compaction to surface as 410 Expired. Feature gates are process-wide,
// so the WatchList-disabled server lives in its own binary (e2e/listwatch).
//
// Every test works in a namespace of its own and ends by checking that the
// informer cache equals a fresh LIST.
package e2e

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

var (
	server *localapi.Server
	client *rest.RESTClient

	noCacheOnce   sync.Once
	noCacheServer *localapi.Server
	noCacheErr    error
)

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), e2eutil.Patience)
	defer cancel()
	var err error
	server, err = e2eutil.StartServer(ctx, localapi.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		if noCacheServer != nil {
			_ = noCacheServer.Stop(stopCtx)
		}
		if err := server.Stop(stopCtx); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the local API server:", err)
		}
	}()
	if client, err = controller.NewClient(server.Config()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// startNoCacheServer starts (once) the --watch-cache=false server.
func startNoCacheServer(t *testing.T) (*localapi.Server, *rest.RESTClient) {
	t.Helper()
	noCacheOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), e2eutil.Patience)
		defer cancel()
		noCacheServer, noCacheErr = e2eutil.StartServer(ctx, localapi.Options{DisableWatchCache: true})
	})
	if noCacheErr != nil {
		t.Fatalf("starting the --watch-cache=false server: %v", noCacheErr)
	}
	c, err := controller.NewClient(noCacheServer.Config())
	if err != nil {
		t.Fatal(err)
	}
	return noCacheServer, c
}
