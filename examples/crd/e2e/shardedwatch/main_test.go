// Package shardedwatch runs server-side sharded watches of custom resources
// (runtime/shard with Options.ByUID, KEP-5866 ShardedListAndWatch) against a
// local API server started with the ShardedListAndWatch feature gate on.
// Feature gates are process-wide, hence a test binary of its own. That
// server serves no Leases: the replicas' membership is an in-memory Lease
// API (internal/memleases); the protocol on real Leases, and sharded
// watches of Pods, are tested against a full kube-apiserver in
// examples/builtin/e2e.
package shardedwatch

import (
	"context"
	"fmt"
	"os"
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
)

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), e2eutil.Patience)
	defer cancel()
	var err error
	server, err = e2eutil.StartServer(ctx, localapi.Options{FeatureGates: map[string]bool{"ShardedListAndWatch": true}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		_ = server.Stop(stopCtx)
	}()
	if client, err = controller.NewClient(server.Config()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
