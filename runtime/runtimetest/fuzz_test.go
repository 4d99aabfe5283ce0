package runtimetest_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// FuzzInformerConverges drives a random sequence of writes, compactions
// (410 → relist), dropped watches, bookmarks, injected list/watch errors and
// pauses through Source → Reflector → DeltaFIFO → Indexer → handler, then
// checks the invariant every runtime test defends: once the source is quiet,
// the informer's cache equals the source, and so does the last state the
// handler saw for each key, with no handler-contract violation on the way.
//
// Byte 0 picks the configuration (WatchList or LIST, page size, event log
// size, handler resync); then each pair of bytes is one step (op, argument).
// One step registers a second handler late, which must catch up through
// synthetic adds. It runs inside a
// synctest bubble, so backoffs and watch timeouts take no real time.
//
// Fuzz it with -fuzzminimizetime=10x: its coverage depends on how the
// bubble's goroutines interleave, so most new inputs do not reproduce their
// coverage when the fuzzer tries to minimize them, and the default
// minimization (up to 60s per new input) leaves it executing nothing for
// most of a run (docs/performance.md, "Fuzz targets").
func FuzzInformerConverges(f *testing.F) {
	f.Add([]byte{0x00, 0, 1, 1, 2, 3, 1, 4, 0, 0, 3})                   // writes, relist, more writes
	f.Add([]byte{0x01, 0, 1, 5, 0, 0, 2, 3, 0, 5, 0, 0, 4})             // WatchList, drops
	f.Add([]byte{0x1e, 0, 0, 0, 1, 0, 2, 0, 3, 5, 0, 0, 4, 0, 5, 4, 0}) // tiny pages and log, writes while dropped
	f.Add([]byte{0x00, 8, 0, 0, 1, 4, 0, 8, 3, 0, 2, 9, 20})            // injected errors, backoff
	f.Add([]byte{0x01, 6, 0, 0, 1, 6, 0, 3, 1, 7, 0, 4, 0, 3, 0})       // bookmarks, deletes, relist
	f.Add([]byte{0x20, 0, 1, 9, 255, 7, 1, 0, 2, 4, 0, 3, 2, 9, 255})   // handler resync, late handler
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 400 {
			return
		}
		// A hang inside the bubble is invisible to synctest if a goroutine
		// spins or loops on fake time; crash loudly (with the input) instead.
		watchdog := time.AfterFunc(time.Minute, func() {
			panic(fmt.Sprintf("FuzzInformerConverges: no convergence verdict after a minute of real time on input %q", data))
		})
		defer watchdog.Stop()
		synctest.Test(t, func(t *testing.T) { checkConverges(t, data) })
	})
}

type fuzzObj = *corev1.ConfigMap

func fuzzCM(i int, v string) fuzzObj {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns" + strconv.Itoa(i%2), Name: "o" + strconv.Itoa(i)},
		Data:       map[string]string{"v": v},
	}
}

func checkConverges(t *testing.T, data []byte) {
	cfg, steps := data[0], data[1:]
	watchList := cfg&1 == 1
	src := runtimetest.NewSource(runtimetest.SourceOptions{EventLogSize: 2 + int(cfg>>3&3)}, fuzzCM(0, "init"), fuzzCM(1, "init"))
	inf := informer.New(src, informer.Options[fuzzObj]{
		Reflector: reflector.Options{Name: "configmaps", WatchList: &watchList, PageSize: 1 + int64(cfg>>1&3)},
	})
	var hopts informer.HandlerOptions
	if cfg&0x20 != 0 {
		hopts.ResyncPeriod = time.Minute
	}
	rec := new(runtimetest.Recorder[fuzzObj])
	if _, err := inf.AddHandler(rec, hopts); err != nil {
		t.Fatal(err)
	}
	recs := []*runtimetest.Recorder[fuzzObj]{rec}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logr.Discard()))
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := inf.Run(ctx); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	defer wg.Wait()
	defer cancel()

	var trace []string // the steps, for the failure message
	for i := 0; i+1 < len(steps); i += 2 {
		op, arg := steps[i]%10, int(steps[i+1])
		key := arg % 6
		switch op {
		case 0, 1, 2, 3:
			cur, exists := src.Get(store.Key(fuzzCM(key, "")))
			switch {
			case !exists:
				_, _ = src.Add(fuzzCM(key, strconv.Itoa(i)))
				trace = append(trace, fmt.Sprintf("add o%d", key))
			case op == 3:
				_, _ = src.Delete(cur)
				trace = append(trace, fmt.Sprintf("delete o%d", key))
			default:
				cur.Data["v"] = strconv.Itoa(i)
				_, _ = src.Update(cur)
				trace = append(trace, fmt.Sprintf("update o%d", key))
			}
		case 4:
			src.Compact()
			trace = append(trace, "compact")
		case 5:
			src.DropWatches()
			trace = append(trace, "drop")
		case 6:
			src.Bookmark()
			trace = append(trace, "bookmark")
		case 7:
			if arg&1 == 0 || len(recs) > 1 {
				synctest.Wait()
				trace = append(trace, "settle")
				break
			}
			late := new(runtimetest.Recorder[fuzzObj])
			if _, err := inf.AddHandler(late, informer.HandlerOptions{}); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, late)
			trace = append(trace, "late handler")
		case 8:
			verb := "watch"
			if arg&1 == 1 {
				verb = "list"
			}
			var err error
			switch arg >> 1 % 3 {
			case 0:
				err = apierrors.NewServiceUnavailable("down")
			case 1:
				err = apierrors.NewTooManyRequests("slow down", 1)
			default:
				err = apierrors.NewResourceExpired("expired")
			}
			src.FailNext(verb, err)
			trace = append(trace, fmt.Sprintf("fail next %s: %v", verb, err))
		case 9:
			d := time.Duration(arg) * 100 * time.Millisecond
			time.Sleep(d)
			trace = append(trace, fmt.Sprintf("sleep %v", d))
		}
	}

	// Let every backoff and injected failure play out (fake time).
	var cached, want map[string]fuzzObj
	seen := make([]map[string]fuzzObj, len(recs))
	for range 200 {
		synctest.Wait()
		want = src.Snapshot()
		cached = map[string]fuzzObj{}
		for _, o := range inf.Indexer().List() {
			cached[store.Key(o)] = o
		}
		done := runtimetest.SameResourceVersions(cached, want)
		for i, r := range recs {
			seen[i] = r.State()
			done = done && runtimetest.SameResourceVersions(seen[i], want)
		}
		if done {
			break
		}
		time.Sleep(31 * time.Second)
	}
	if !runtimetest.SameResourceVersions(cached, want) {
		t.Errorf("cache did not converge\n cache:  %v\n source: %v\n steps: %q", rvMap(cached), rvMap(want), trace)
	}
	for k, w := range want {
		if c, ok := cached[k]; ok && c.Data["v"] != w.Data["v"] {
			t.Errorf("cached %s has data %q, source %q", k, c.Data["v"], w.Data["v"])
		}
	}
	for i, r := range recs {
		if !runtimetest.SameResourceVersions(seen[i], want) {
			t.Errorf("handler %d state did not converge\n handler: %v\n source:  %v\n steps: %q", i, rvMap(seen[i]), rvMap(want), trace)
		}
		if err := r.Err(); err != nil {
			t.Errorf("handler %d contract violated: %v\n steps: %q", i, err, trace)
		}
	}
}

func rvMap(m map[string]fuzzObj) map[string]string {
	out := make(map[string]string, len(m))
	for k, o := range m {
		out[k] = o.ResourceVersion
	}
	return out
}
