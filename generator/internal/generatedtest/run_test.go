package generatedtest

import (
	"context"
	"sync"
	"testing"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// runSynced runs inf until the test ends and waits for its cache to sync;
// the returned ctx ends with the test. Call it inside synctest.Test, after
// adding handlers. It is also a test that Run returns once its ctx is
// cancelled: the cleanup waits for it, so a Run that did not return would
// block, and synctest fail the test as a deadlock.
func runSynced[T store.Object[T]](t *testing.T, inf *informer.Informer[T]) context.Context {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { _ = inf.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	if err := informer.WaitForCacheSync(ctx, inf); err != nil {
		t.Fatal(err)
	}
	return ctx
}
