package informer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// An informer over two namespaces whose user may list both but watch only
// "a" (RBAC) is not synced: both lists are applied, but "b"'s watches are
// refused, so HasSynced, the handler's HasSynced and WaitForCacheSync say
// not synced, and WaitForCacheSync's error is the 403 naming the watch
// verb, the resource and namespace "b". Once "b" may watch, it syncs and
// equals the sources.
func TestForbiddenWatchKeepsInformerUnsynced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var srcs []*runtimetest.Source[CM]
		sources := map[string]reflector.ListerWatcher[CM]{}
		for _, ns := range []string{"a", "b"} {
			src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm(ns, "o", "0"))
			srcs = append(srcs, src)
			sources[ns] = src
		}
		refused := apierrors.NewForbidden(resource, "", errors.New(`User "u" cannot watch resource "configmaps" in API group "" in the namespace "b"`))
		const refusals = 8
		for range refusals {
			srcs[1].FailNext("watch", refused)
		}
		no := false
		inf := informer.NewMultiNamespace(sources, informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1", WatchList: &no}})
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		defer func() { cancel(); <-done }()

		synctest.Wait()
		if n := len(inf.Indexer().List()); n != 2 {
			t.Errorf("cache holds %d objects, want 2 (both lists applied)", n)
		}
		wctx, wcancel := context.WithCancel(ctx)
		wcancel()
		err := informer.WaitForCacheSync(wctx, inf, reg)
		if inf.HasSynced() || reg.HasSynced() || err == nil {
			t.Fatalf("while namespace b's watches are refused: HasSynced=%v, handler HasSynced=%v, WaitForCacheSync=%v; want false, false, an error", inf.HasSynced(), reg.HasSynced(), err)
		}
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `namespace "b": watch configmaps.v1 namespace=b from resourceVersion 1: `) ||
			!strings.Contains(err.Error(), `cannot watch resource "configmaps" in API group "" in the namespace "b"`) {
			t.Errorf("WaitForCacheSync = %v, want the 403 on namespace b's watch", err)
		}

		wctx, wcancel = context.WithTimeout(ctx, time.Minute)
		defer wcancel()
		if err := informer.WaitForCacheSync(wctx, inf, reg); err != nil {
			t.Fatalf("not synced once namespace b may watch: %v", err)
		}
		synctest.Wait()
		if got, want := cacheRVs(inf), fmt.Sprint(rvsOf(union(srcs...))); got != want {
			t.Errorf("cache %s, want %s", got, want)
		}
		if err := inf.LastError(); err != nil {
			t.Errorf("LastError once synced = %v, want nil", err)
		}
	})
}
