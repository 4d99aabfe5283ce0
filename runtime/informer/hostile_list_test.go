package informer_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// A new informer whose LISTs have every item's name blanked (a broken proxy
// rewriting bodies) does not sync: HasSynced stays false, LastError and
// WaitForCacheSync's error name the fault, and it keeps retrying with
// backoff; once the LISTs are valid again it syncs and equals the source,
// for one namespace and for two.
func TestInvalidListKeepsInformerUnsynced(t *testing.T) {
	for _, namespaces := range []int{1, 2} {
		t.Run(fmt.Sprint("namespaces=", namespaces), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var srcs []*runtimetest.Source[CM]
				var lws []*blankingLW
				sources := map[string]reflector.ListerWatcher[CM]{}
				for _, ns := range []string{"a", "b"}[:namespaces] {
					var objs []CM
					for i := range 10 {
						objs = append(objs, cm(ns, fmt.Sprint("o", i), "0"))
					}
					src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, objs...)
					lw := &blankingLW{Source: src}
					lw.on.Store(true)
					srcs, lws = append(srcs, src), append(lws, lw)
					sources[ns] = lw
				}
				opts := informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1"}}
				var inf *informer.Informer[CM]
				if namespaces == 1 {
					inf = informer.New[CM](lws[0], opts)
				} else {
					inf = informer.NewMultiNamespace(sources, opts)
				}
				_, reg := addRecorder(t, inf, informer.HandlerOptions{})
				ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				defer func() { cancel(); <-done }()

				wctx, wcancel := context.WithTimeout(ctx, 20*time.Second)
				err := informer.WaitForCacheSync(wctx, inf, reg)
				wcancel()
				if !errors.Is(err, reflector.ErrInvalidObject) || !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("WaitForCacheSync during the fault = %v, want one wrapping ErrInvalidObject and the deadline", err)
				}
				if inf.HasSynced() || len(inf.Indexer().List()) != 0 {
					t.Errorf("HasSynced=%v with %d cached objects during the fault, want false and 0", inf.HasSynced(), len(inf.Indexer().List()))
				}
				if err := inf.LastError(); !errors.Is(err, reflector.ErrInvalidObject) {
					t.Errorf("LastError = %v, want ErrInvalidObject", err)
				}
				for n, lw := range lws {
					// WatchList, then LIST and WatchList in turn.
					if lists, watches := lw.Calls(); lists+watches < 8 || lists+watches > 22 {
						t.Errorf("source %d: %d LISTs and %d WatchLists in 20s, want 8..22 in all (retried with backoff)", n, lists, watches)
					}
				}
				for _, lw := range lws {
					lw.on.Store(false)
				}
				ended := time.Now()
				wctx, wcancel = context.WithTimeout(ctx, 2*time.Second)
				defer wcancel()
				if err := informer.WaitForCacheSync(wctx, inf, reg); err != nil {
					t.Fatalf("not synced 2s after the fault: %v", err)
				}
				synctest.Wait()
				if got, want := cacheRVs(inf), fmt.Sprint(rvsOf(union(srcs...))); got != want {
					t.Errorf("cache %s %v after the fault, want %s", got, time.Since(ended), want)
				}
				if err := inf.LastError(); err != nil {
					t.Errorf("LastError once synced = %v, want nil", err)
				}
			})
		})
	}
}

// blankingLW blanks every LIST item's name (and every WatchList initial
// event's) while on.
type blankingLW struct {
	*runtimetest.Source[CM]
	on atomic.Bool
}

func (b *blankingLW) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[CM], error) {
	res, err := b.Source.List(ctx, opts)
	if err == nil && b.on.Load() {
		for i, o := range res.Items {
			o = o.DeepCopy()
			o.Name = ""
			res.Items[i] = o
		}
	}
	return res, err
}

func (b *blankingLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := b.Source.Watch(ctx, opts)
	if err != nil || !b.on.Load() {
		return w, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if o, ok := ev.Object.(CM); ok && ev.Type != watch.Bookmark {
			o = o.DeepCopy()
			o.Name = ""
			ev.Object = o
		}
		return ev, true
	}), nil
}

// remainingClaim replaces every non-last page's remainingItemCount by claim.
type remainingClaim struct {
	*runtimetest.Source[CM]
	claim int64
}

func (r *remainingClaim) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[CM], error) {
	res, err := r.Source.List(ctx, opts)
	if res != nil && res.Continue != "" {
		claim := r.claim
		res.RemainingItemCount = &claim
	}
	return res, err
}

// A server's remainingItemCount only sizes the list the informer collects
// from a paged LIST: a negative or absurd count neither crashes it nor
// changes what it caches.
func TestHostileRemainingItemCountIsOnlyAHint(t *testing.T) {
	for _, claim := range []int64{-5, -1 << 63, 1 << 62, 0} {
		t.Run(fmt.Sprint("claim=", claim), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var objs []CM
				for i := range 5 {
					objs = append(objs, cm("ns", fmt.Sprint("o", i), "0"))
				}
				src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, objs...)
				noWL := false
				inf := informer.New[CM](&remainingClaim{Source: src, claim: claim},
					informer.Options[CM]{Reflector: reflector.Options{Name: "configmaps.v1", PageSize: 2, WatchList: &noWL}})
				ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
				done := make(chan error, 1)
				go func() { done <- inf.Run(ctx) }()
				defer func() { cancel(); <-done }()
				wctx, wcancel := context.WithTimeout(ctx, time.Minute)
				defer wcancel()
				if err := informer.WaitForCacheSync(wctx, inf); err != nil {
					t.Fatal(err)
				}
				if n := inf.Indexer().Len(); n != len(objs) {
					t.Errorf("cache holds %d objects, want %d", n, len(objs))
				}
				if err := inf.LastError(); err != nil {
					t.Errorf("LastError = %v, want nil", err)
				}
			})
		})
	}
}
