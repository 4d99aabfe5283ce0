package informer_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

func TestLateHandlerGetsSyntheticAddsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var objs []CM
		for i := range 50 {
			objs = append(objs, cm("ns", fmt.Sprint("o", i)))
		}
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, objs...)
		inf := newInformer(src, informer.Options[CM]{})
		first, reg1 := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, reg1)

		// Register while the source keeps changing: the late handler's
		// synthetic adds and the live events must line up exactly.
		var wg sync.WaitGroup
		wg.Go(func() {
			for i := range 50 {
				key := fmt.Sprint("o", i)
				switch i % 3 {
				case 0:
					must(src.Update(cm("ns", key, "x")))
				case 1:
					must(src.Delete(cm("ns", key)))
				case 2:
					must(src.Add(cm("ns", key+"-new")))
				}
			}
		})
		late, reg2 := addRecorder(t, inf, informer.HandlerOptions{})
		wg.Wait()
		waitSynced(t, reg2)
		waitSame(t, late, src) // also checks: no add of a held key, no update/delete of an unknown one
		waitSame(t, first, src)

		adds := map[string]int{}
		for _, e := range late.Events() {
			if e.Type == "add" {
				adds[e.Key]++
			}
		}
		for k, c := range adds {
			if c != 1 {
				t.Fatalf("late handler got %d adds for %s, want 1", c, k)
			}
		}
		if !late.Events()[0].InInitialList {
			t.Fatal("synthetic add without isInInitialList")
		}
	})
}

func TestSlowHandlerDoesNotDelayFastOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		inf := newInformer(src, informer.Options[CM]{})
		release := make(chan struct{})
		slowCalls := 0
		slowReg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			AddFunc:    func(CM, bool) { <-release; slowCalls++ },
			UpdateFunc: func(CM, CM) { slowCalls++ },
		}, informer.HandlerOptions{}))
		fast, fastReg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)

		waitSynced(t, inf, fastReg)
		for i := range 100 {
			must(src.Update(cm("ns", "a", fmt.Sprint(i))))
		}
		waitSame(t, fast, src) // while slow is stuck in its first call
		if slowReg.HasSynced() {
			t.Fatal("slow handler's registration synced before it processed the initial list")
		}
		close(release)
		waitSynced(t, slowReg)
		synctest.Wait()
		if slowCalls != 101 {
			t.Fatalf("slow handler got %d calls, want 101", slowCalls)
		}
	})
}

func TestRemovedHandlerReceivesNothingMore(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		inf := newInformer(src, informer.Options[CM]{})
		kept, keptReg := addRecorder(t, inf, informer.HandlerOptions{})
		gone, goneReg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, keptReg, goneReg)

		if err := inf.RemoveHandler(goneReg); err != nil {
			t.Fatal(err)
		}
		<-goneReg.Stopped()
		n := len(gone.Events())
		must(src.Update(cm("ns", "a", "2")))
		must(src.Add(cm("ns", "b")))
		waitSame(t, kept, src)
		synctest.Wait()
		if got := len(gone.Events()); got != n {
			t.Fatalf("removed handler got %d more calls", got-n)
		}
		if err := inf.RemoveHandler(goneReg); err == nil {
			t.Fatal("removing a handler twice: no error")
		}
	})
}

func TestHandlerPanicIsReportedAndDeliveryGoesOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"), cm("ns", "bad"), cm("ns", "c"))
		var mu sync.Mutex
		var panics []informer.HandlerPanicInfo
		inf := newInformer(src, informer.Options[CM]{
			HandlerPanic: func(_ context.Context, p informer.HandlerPanicInfo) {
				mu.Lock()
				defer mu.Unlock()
				panics = append(panics, p)
			},
		})
		rec := new(runtimetest.Recorder[CM])
		reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			AddFunc: func(o CM, initial bool) {
				if o.Name == "bad" {
					panic("boom")
				}
				rec.OnAdd(o, initial)
			},
			UpdateFunc: rec.OnUpdate,
			DeleteFunc: rec.OnDelete,
		}, informer.HandlerOptions{}))
		run(t, inf)
		waitSynced(t, reg)
		must(src.Add(cm("ns", "d")))
		must(src.Delete(cm("ns", "bad")))
		want := src.Snapshot()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := rec.WaitFor(ctx, func(got map[string]CM) bool { return runtimetest.SameResourceVersions(got, want) }); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(panics) != 1 || panics[0].Key != "ns/bad" || panics[0].Event != "add" || panics[0].Value != "boom" || panics[0].Registration != reg {
			t.Fatalf("panics reported = %+v, want one for the add of ns/bad", panics)
		}
	})
}

func TestResyncPerHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"), cm("ns", "b"))
		inf := newInformer(src, informer.Options[CM]{ResyncPeriod: 10 * time.Second})
		byDefault, r1 := addRecorder(t, inf, informer.HandlerOptions{})                         // 10s
		fast, r2 := addRecorder(t, inf, informer.HandlerOptions{ResyncPeriod: 4 * time.Second}) // 4s
		never, r3 := addRecorder(t, inf, informer.HandlerOptions{ResyncPeriod: -1})             // off
		start := time.Now()
		run(t, inf)
		waitSynced(t, r1, r2, r3)
		time.Sleep(start.Add(21 * time.Second).Sub(time.Now()))
		synctest.Wait()

		resyncs := func(rec *runtimetest.Recorder[CM]) int {
			n := 0
			for _, e := range rec.Events() {
				if e.Type == "update" {
					if e.Old != e.Obj {
						t.Fatalf("resync update of %s with old != new", e.Key)
					}
					n++
				}
			}
			return n
		}
		// Two objects per round: rounds at 10s, 20s and at 4, 8, 12, 16, 20s.
		if got := resyncs(byDefault); got != 2*2 {
			t.Errorf("default-period handler got %d resync updates, want 4", got)
		}
		if got := resyncs(fast); got != 5*2 {
			t.Errorf("4s handler got %d resync updates, want 10", got)
		}
		if got := resyncs(never); got != 0 {
			t.Errorf("handler without resync got %d resync updates", got)
		}
	})
}

func TestRegistrationLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[CM](runtimetest.SourceOptions{Resource: resource})
		inf := newInformer(src, informer.Options[CM]{})
		if _, err := inf.AddHandler(nil, informer.HandlerOptions{}); err == nil {
			t.Fatal("AddHandler(nil): no error")
		}
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		if err := inf.RemoveHandler(reg); err != nil {
			t.Fatal(err)
		}
		select {
		case <-reg.Stopped():
		default:
			t.Fatal("a handler removed before Run is not reported stopped")
		}
		other := newInformer(src, informer.Options[CM]{})
		_, reg2 := addRecorder(t, other, informer.HandlerOptions{})
		if err := inf.RemoveHandler(reg2); err == nil {
			t.Fatal("removing another informer's registration: no error")
		}
		// An empty source syncs at once; a late handler on an empty cache
		// syncs too.
		run(t, inf)
		waitSynced(t, inf)
		_, late := addRecorder(t, inf, informer.HandlerOptions{})
		waitSynced(t, late)
	})
}

// TestSlowHandlerResyncDoesNotPileUp: a handler slower than its resync
// period gets a new resync only once the previous one is delivered, so its
// buffer does not grow without bound.
func TestSlowHandlerResyncDoesNotPileUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"), cm("ns", "b"))
		inf := newInformer(src, informer.Options[CM]{})
		var updates atomic.Int32
		reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			UpdateFunc: func(_, _ CM) { time.Sleep(3 * time.Second); updates.Add(1) },
		}, informer.HandlerOptions{ResyncPeriod: time.Second}))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		waitSynced(t, reg)
		time.Sleep(60 * time.Second)
		cancel()
		<-done
		// 60s of 3s calls is 20, plus the one in progress at cancel.
		// Piling up would add one resync per second.
		if got := updates.Load(); got > 23 {
			t.Fatalf("%d resync updates delivered, want at most 23", got)
		}
		if got := updates.Load(); got < 18 {
			t.Fatalf("%d resync updates delivered, want about 20", got)
		}
	})
}
