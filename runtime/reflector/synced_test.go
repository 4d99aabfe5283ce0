package reflector_test

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// A client that may list but not watch (RBAC) is not synced over a list it
// could never keep up to date: the list is applied, but HasSynced stays
// false while every watch is refused; the 401/403 is LastError meanwhile,
// naming the verb and the resource; the watch is retried with backoff, and
// the Reflector syncs once one is accepted.
func TestRefusedWatchKeepsReflectorUnsynced(t *testing.T) {
	for _, unauthorized := range []bool{false, true} {
		name := "403"
		if unauthorized {
			name = "401"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
				refused := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New(`User "u" cannot watch resource "configmaps" in API group "" in the namespace "ns"`))
				if unauthorized {
					refused = apierrors.NewUnauthorized("token expired")
				}
				const refusals = 5
				for range refusals {
					src.FailNext("watch", refused)
				}
				h := start(t, src, src, reflector.Options{WatchList: &no, Name: "configmaps"})
				synctest.Wait()
				if h.r.HasSynced() {
					t.Fatal("HasSynced = true while every watch is refused")
				}
				err := h.r.LastError()
				if !errors.Is(err, refused) || !strings.HasPrefix(err.Error(), "watch configmaps from resourceVersion 1: ") {
					t.Fatalf("LastError = %v, want the WATCH's refusal naming the verb and resource", err)
				}
				if _, _, n := h.sink.snapshot(); n != 1 {
					t.Errorf("replaces = %d, want 1 (the list is applied)", n)
				}
				var synced time.Time
				select {
				case <-h.r.Synced():
					synced = time.Now()
				case <-time.After(time.Minute):
					t.Fatalf("not synced a minute after the last refusal; LastError = %v", h.r.LastError())
				}
				synctest.Wait()
				reqs := src.Requests()
				want := []string{"list"}
				for range refusals + 1 {
					want = append(want, "watch rv=1")
				}
				wantRequests(t, src, want...)
				if last := reqs[len(reqs)-1].Time; !synced.Equal(last) {
					t.Errorf("synced at %v, want when the accepted watch was opened (%v)", synced, last)
				}
				// Backed off: the five refusals take more than a few turns.
				if d := reqs[len(reqs)-1].Time.Sub(reqs[1].Time); d < 3*time.Second {
					t.Errorf("%d refused watches retried within %v, want backoff between them", refusals, d)
				}
				if err := h.r.LastError(); err != nil {
					t.Errorf("LastError once a watch opened = %v, want nil", err)
				}
				h.converged()
			})
		})
	}
}

// The Reflector is synced when the watch after its initial LIST is
// accepted, and that watch takes no turn of the Budget: after failed LISTs
// the LIST waits for its turn, the watch goes at once, so the sync is not
// delayed a further turn.
func TestFirstWatchAfterListTakesNoTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		for range 3 {
			src.FailNext("list", apierrors.NewInternalError(errors.New("etcd leader changed")))
		}
		h := start(t, src, src, reflector.Options{WatchList: &no})
		<-h.r.Synced()
		synctest.Wait()
		wantRequests(t, src, "list", "list", "list", "list", "watch rv=1")
		reqs := src.Requests()
		if l, w := reqs[3].Time, reqs[4].Time; !w.Equal(l) {
			t.Errorf("watch after the LIST at +%v, want at once", w.Sub(l))
		}
		h.converged()
	})
}

// With WatchList, the stream's initial-events-end bookmark syncs the
// Reflector: the server accepted the watch that streamed the list.
func TestWatchListSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		h := start(t, src, src, reflector.Options{WatchList: &yes})
		synctest.Wait()
		if !h.r.HasSynced() {
			t.Errorf("HasSynced = false after the initial events; LastError = %v", h.r.LastError())
		}
		if got := verbs(src.Requests()); len(got) != 1 {
			t.Errorf("requests = %q, want one WatchList", got)
		}
	})
}
