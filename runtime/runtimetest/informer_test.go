package runtimetest_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// The scenario the Source exists for: while the informer is disconnected an
// object is deleted, another changed, and the history is compacted. On
// reconnecting the watch gets 410, the informer relists, and the handler sees
// a tombstone (finalStateUnknown) for the deletion it missed and updates for
// the rest.
func TestRelistAfterCompactionYieldsTombstones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{}, cm("a"), cm("b"), cm("c"))
		inf := informer.New(src, informer.Options[obj]{})
		rec := new(runtimetest.Recorder[obj])
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(klog.NewContext(t.Context(), logr.Discard()))
		var wg sync.WaitGroup
		wg.Go(func() { _ = inf.Run(ctx) })
		defer wg.Wait()
		defer cancel()
		synctest.Wait()

		src.FailNext("watch", apierrors.NewServiceUnavailable("apiserver restarting"))
		src.DropWatches()
		synctest.Wait() // disconnected, backing off
		must(src.Delete(cm("a")))
		b, _ := src.Get("ns/b")
		b.Labels = map[string]string{"changed": "yes"}
		must(src.Update(b))
		src.Compact()
		time.Sleep(time.Minute)
		synctest.Wait()

		var got []string
		for _, e := range rec.Events()[3:] {
			got = append(got, fmt.Sprintf("%s %s@%s unknown=%v", e.Type, e.Key, e.Obj.ResourceVersion, e.FinalStateUnknown))
		}
		slices.Sort(got)
		want := []string{"delete ns/a@1 unknown=true", "update ns/b@5 unknown=false", "update ns/c@3 unknown=false"}
		if !slices.Equal(got, want) {
			t.Errorf("after the relist the handler saw\n %q\nwant\n %q", got, want)
		}
		if !runtimetest.SameResourceVersions(rec.State(), src.Snapshot()) {
			t.Errorf("handler state %v, want the source's", rec.State())
		}
		if err := rec.Err(); err != nil {
			t.Error(err)
		}
		// WatchList sync, a watch that fails (503), one that gets 410, the relist.
		var reqs []string
		for _, r := range src.Requests() {
			if r.Options.SendInitialEvents != nil {
				reqs = append(reqs, "watch-list")
			} else {
				reqs = append(reqs, r.Verb+" from "+r.Options.ResourceVersion)
			}
		}
		if want := []string{"watch-list", "watch from 3", "watch from 3", "watch-list"}; !slices.Equal(reqs, want) {
			t.Errorf("requests %q, want %q", reqs, want)
		}
	})
}
