// Package listwatch runs the initial-sync test against a server started with
// --feature-gates=WatchList=false. Feature gates are process-wide, hence a
// test binary of its own.
package listwatch

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/informer-gen/informer-gen/runtime/factory"

	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/faultproxy"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

var server *localapi.Server

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	os.Exit(run(m))
}

func run(m *testing.M) int {
	ctx, cancel := context.WithTimeout(context.Background(), e2eutil.Patience)
	defer cancel()
	var err error
	server, err = e2eutil.StartServer(ctx, localapi.Options{FeatureGates: map[string]bool{"WatchList": false}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting the local API server:", err)
		return 1
	}
	defer func() {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), time.Minute)
		defer stopCancel()
		_ = server.Stop(stopCtx)
	}()
	return m.Run()
}

// TestInitialSyncListWatch: the server refuses WatchList, so the informer
// falls back to LIST + WATCH, syncs, and follows later changes.
func TestInitialSyncListWatch(t *testing.T) {
	ctx := t.Context()
	const ns = "listwatch"
	client, err := controller.NewClient(server.Config())
	if err != nil {
		t.Fatal(err)
	}
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 300, nil); err != nil {
		t.Fatal(err)
	}
	p, err := faultproxy.New(server.Config())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	f := informers.NewSharedInformerFactory(p.Config(), factory.Options{Namespaces: []string{ns}})
	defer f.Shutdown()
	inf := f.Samplecontroller().V1().Foos().Informer()
	f.Start(ctx)
	sctx, cancel := context.WithTimeout(ctx, e2eutil.Patience)
	defer cancel()
	if err := f.WaitForCacheSync(sctx); err != nil {
		t.Fatal(err)
	}
	if n := inf.Indexer().Len(); n != 300 {
		t.Errorf("after sync the cache holds %d Foos, want 300", n)
	}
	if err := e2eutil.CreateFoos(ctx, client, ns, "late", 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	if err := e2eutil.DeleteFoo(ctx, client, ns, "foo-1"); err != nil {
		t.Fatal(err)
	}
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "informer cache equals a fresh LIST", func() error {
		return e2eutil.FooCacheEqualsList(ctx, client, inf, ns)
	})
	var watchLists, lists, plainWatches int
	for _, r := range p.Requests() {
		if !strings.HasSuffix(r.URL.Path, "/foos") {
			continue
		}
		switch {
		case r.IsWatchList():
			watchLists++
		case r.IsList():
			lists++
		case r.IsWatch() && !r.IsWatchList():
			plainWatches++
		}
	}
	// The informer tried WatchList, was refused, and fell back to LIST +
	// WATCH (the watch carries the changes made after the sync).
	if watchLists == 0 || lists == 0 || plainWatches == 0 {
		t.Errorf("made %d WatchList requests, %d LISTs and %d plain WATCHes, want all > 0 (refused WatchList, then list+watch)", watchLists, lists, plainWatches)
	}
}
