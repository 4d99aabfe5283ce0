package reflector_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

func TestTooManyRequestsHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		src.FailNext("list", apierrors.NewTooManyRequests("slow down", 7))
		h := start(t, src, src, reflector.Options{WatchList: &no})
		synctest.Wait()
		if err := h.r.LastError(); !apierrors.IsTooManyRequests(err) {
			t.Errorf("LastError while waiting = %v, want 429", err)
		}
		src.FailNext("watch", apierrors.NewTooManyRequests("slow down", 3))
		time.Sleep(time.Minute)
		synctest.Wait()

		reqs := src.Requests()
		wantRequests(t, src, "list", "list", "watch rv=1", "watch rv=1")
		if len(reqs) != 4 {
			return
		}
		if d := reqs[1].Time.Sub(reqs[0].Time); d != 7*time.Second {
			t.Errorf("list retried after %v, want exactly the Retry-After of 7s", d)
		}
		if d := reqs[3].Time.Sub(reqs[2].Time); d != 3*time.Second {
			t.Errorf("watch retried after %v, want exactly the Retry-After of 3s", d)
		}
		h.converged()
	})
}

func TestForbiddenListKeepsRetrying(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "", errors.New("rbac"))
		for range 5 {
			src.FailNext("list", forbidden)
		}
		h := start(t, src, src, reflector.Options{WatchList: &no, Name: "configmaps"})
		synctest.Wait()
		err := h.r.LastError()
		if !apierrors.IsForbidden(err) {
			t.Fatalf("LastError = %v, want 403", err)
		}
		if want := "list configmaps: "; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("error %q does not name the resource", err)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n := len(h.errs.all()); n != 5 {
			t.Errorf("handler saw %d errors, want 5", n)
		}
		if err := h.r.LastError(); err != nil {
			t.Errorf("LastError after success = %v, want nil", err)
		}
		h.converged()
	})
}

// Consecutive failures wait longer and longer, with jitter, never more than
// MaxBackoff.
func TestBackoffGrowsWithJitterAndIsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[obj](runtimetest.SourceOptions{}, cm("a", "1"))
		const failures = 10
		for range failures {
			src.FailNext("list", apierrors.NewServiceUnavailable("down"))
		}
		start(t, src, src, reflector.Options{WatchList: &no})
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		reqs := src.Requests()
		if len(reqs) < failures+1 {
			t.Fatalf("%d requests, want at least %d", len(reqs), failures+1)
		}
		base := 500 * time.Millisecond
		distinct := map[time.Duration]bool{}
		for i := 1; i <= failures; i++ {
			d := reqs[i].Time.Sub(reqs[i-1].Time)
			if d < base/2 || d > base {
				t.Errorf("wait %d = %v, want in [%v, %v]", i, d, base/2, base)
			}
			distinct[d*1000/base] = true // wait relative to its base
			base = min(2*base, 2*time.Second)
		}
		if len(distinct) < 3 {
			t.Errorf("waits relative to their base took %d distinct values, want jitter", len(distinct))
		}
	})
}
