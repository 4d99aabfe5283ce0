package reflector_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/scope"
	"github.com/informer-gen/informer-gen/runtime/internal/settings"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// Objects without a name, or whose namespace contradicts the resource's
// scope, are reported (naming the resource and resourceVersion) and never
// stored: a LIST with one fails whole and is retried with backoff until the
// server sends a valid one; a watch event with one ends the watch.
func TestObjectsWithoutValidKeyAreNotStored(t *testing.T) {
	for _, tc := range []struct {
		name  string
		scope scope.Scope
		bad   obj
	}{
		{"no name", scope.Unknown, cm("", "1")},
		{"slash in name", scope.Unknown, cm("x/y", "1")},
		{"no namespace on a namespaced type", scope.Namespaced, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "nons"}}},
		{"namespace on a cluster-scoped type", scope.Cluster, cm("withns", "1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				good := cm("a", "1")
				if tc.scope == scope.Cluster {
					good.Namespace = ""
				}
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, good, tc.bad) // rv 1, 2
				m := &rejectCounter{}
				h := start(t, src, src, settings.WithReflector(reflector.Options{WatchList: &no, Name: "configmaps", Metrics: m}, settings.Reflector{Scope: tc.scope}).(reflector.Options))
				time.Sleep(10 * time.Second)
				synctest.Wait()
				if _, _, n := h.sink.snapshot(); n != 0 {
					t.Errorf("%d replaces with an invalid item listed, want 0", n)
				}
				lists, _ := src.Calls()
				if lists < 4 || lists > 12 {
					t.Errorf("%d lists in 10s, want 4..12 (retried with backoff)", lists)
				}
				err := h.r.LastError()
				if !errors.Is(err, reflector.ErrInvalidObject) || !strings.Contains(err.Error(), "configmaps") || !strings.Contains(err.Error(), "resourceVersion 2") {
					t.Errorf("LastError = %v, want ErrInvalidObject naming the resource and the list's resourceVersion", err)
				}
				if m.n.Load() != int64(lists) || m.listErrs.Load() != int64(lists) {
					t.Errorf("Rejected %d, failed lists %d; want %d each", m.n.Load(), m.listErrs.Load(), lists)
				}
				must(src.Delete(tc.bad)) // rv 3
				// The LIST within the 2s cap, the watch a turn later.
				time.Sleep(4 * time.Second)
				synctest.Wait()
				h.converged()
				if err := h.r.LastError(); err != nil {
					t.Errorf("LastError after a valid LIST = %v, want nil", err)
				}
				must(src.Add(tc.bad)) // rv 4: the event of a keyless object
				synctest.Wait()
				err = h.r.LastError()
				if !errors.Is(err, reflector.ErrInvalidObject) || !strings.Contains(err.Error(), `resourceVersion "4"`) {
					t.Errorf("LastError = %v, want ErrInvalidObject naming the event's resourceVersion", err)
				}
				if got := h.r.LastSyncResourceVersion(); got != "3" {
					t.Errorf("LastSyncResourceVersion = %q, want 3 (the event is not applied)", got)
				}
				_, state, _ := h.sink.snapshot()
				if len(state) != 1 {
					t.Errorf("sink = %v, want only %s", rvs(state), store.Key(good))
				}
			})
		})
	}
}

// A LIST whose items a broken proxy rewrote (metadata.name blanked) is not
// applied: a new Reflector stays unsynced with the fault in LastError,
// retries with backoff (at most one LIST a second once at the cap), and
// equals the server within 2s of the fault's end.
func TestInvalidListIsRetriedUntilValid(t *testing.T) {
	for _, wl := range []bool{false, true} {
		t.Run(fmt.Sprintf("watchlist=%v", wl), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var objs []obj
				for i := range 10 {
					objs = append(objs, cm(fmt.Sprint("o", i), "1"))
				}
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, objs...)
				lw := &blankNames{Source: src}
				lw.on.Store(true)
				m := &rejectCounter{}
				h := start(t, lw, src, reflector.Options{WatchList: &wl, Metrics: m})
				time.Sleep(20 * time.Second)
				synctest.Wait()
				if _, _, n := h.sink.snapshot(); n != 0 {
					t.Errorf("%d replaces while every name was blank, want 0", n)
				}
				// From a LIST ("10 of 10 items unusable") or a WatchList's
				// first initial event, whichever was tried last.
				if err := h.r.LastError(); !errors.Is(err, reflector.ErrInvalidObject) || !strings.Contains(err.Error(), "has no metadata.name") {
					t.Errorf("LastError = %v, want ErrInvalidObject naming the missing metadata.name", err)
				}
				if n := requestsAfter(src.Requests(), 5*time.Second); n > 15 {
					t.Errorf("%d requests in the 15s after the first 5s, want at most 15 (one a second)", n)
				}
				if m.n.Load() < 10 {
					t.Errorf("Rejected called %d times in 20s, want one per attempt", m.n.Load())
				}
				lw.on.Store(false)
				ended := time.Now()
				for !sameAsSource(h) {
					if time.Since(ended) > 2*time.Second {
						t.Fatalf("not converged 2s after the fault ended")
					}
					time.Sleep(10 * time.Millisecond)
					synctest.Wait()
				}
				if err := h.r.LastError(); err != nil {
					t.Errorf("LastError once converged = %v, want nil", err)
				}
			})
		})
	}
}

// blankNames blanks metadata.name in every LIST item and every event of a
// WatchList's initial stream while on.
type blankNames struct {
	*runtimetest.Source[obj]
	on atomic.Bool
}

func (b *blankNames) List(ctx context.Context, opts metav1.ListOptions) (*reflector.ListResult[obj], error) {
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

func (b *blankNames) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := b.Source.Watch(ctx, opts)
	if err != nil || !b.on.Load() {
		return w, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if o, ok := ev.Object.(obj); ok && ev.Type != watch.Bookmark {
			o = o.DeepCopy()
			o.Name = ""
			ev.Object = o
		}
		return ev, true
	}), nil
}
