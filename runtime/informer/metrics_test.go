package informer_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

type countMetrics struct {
	mu   sync.Mutex
	regs []string
	n    map[string]int
}

func (m *countMetrics) Handler(reg *informer.Registration) func(string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.regs = append(m.regs, reg.Name())
	return m.Delivered
}

func (m *countMetrics) Process() func(time.Duration, int, string) { return nil }

func (m *countMetrics) Delivered(ev string) {
	m.mu.Lock()
	m.n[ev]++
	m.mu.Unlock()
}

// A stuck handler's backlog grows and ages; once released it drains to
// zero, and every delivery was counted by event.
func TestHandlerBacklogAndDeliveries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
		m := &countMetrics{n: map[string]int{}}
		inf := newInformer(src, informer.Options[CM]{Metrics: m})
		release := make(chan struct{})
		reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{
			AddFunc: func(CM, bool) { <-release },
		}, informer.HandlerOptions{}))
		if hs := inf.Handlers(); len(hs) != 1 || hs[0] != reg {
			t.Fatalf("Handlers() = %v, want [%v]", hs, reg)
		}
		run(t, inf)
		synctest.Wait() // stuck in its first OnAdd
		start := time.Now()
		for i := range 10 {
			must(src.Update(cm("ns", "a", fmt.Sprint(i))))
		}
		synctest.Wait()
		time.Sleep(3 * time.Second)
		n, oldest := reg.Backlog()
		// The initial add (in delivery) and the synced marker were queued
		// before start; the 10 updates after it.
		if n != 12 || oldest.IsZero() || time.Since(oldest) < 3*time.Second || oldest.After(start) {
			t.Fatalf("Backlog() = %d, queued %v ago; want 12, at least 3s", n, time.Since(oldest))
		}
		close(release)
		waitSynced(t, reg)
		synctest.Wait()
		if n, oldest := reg.Backlog(); n != 0 || !oldest.IsZero() {
			t.Fatalf("Backlog() after draining = %d, %v; want 0, zero", n, oldest)
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.n["add"] != 1 || m.n["update"] != 10 || len(m.regs) != 1 {
			t.Fatalf("delivered %v to %v, want 1 add and 10 updates to one handler", m.n, m.regs)
		}
	})
}

// Without Options.Metrics, Backlog reports nothing.
func TestBacklogOffWithoutMetrics(t *testing.T) {
	src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a"))
	inf := newInformer(src, informer.Options[CM]{})
	reg := must(inf.AddHandler(informer.HandlerFuncs[CM]{}, informer.HandlerOptions{}))
	if n, oldest := reg.Backlog(); n != 0 || !oldest.IsZero() {
		t.Fatalf("Backlog() = %d, %v; want 0 (not tracked)", n, oldest)
	}
}

// processMetrics is a Metrics that observes the pop loop too.
type processMetrics struct {
	countMetrics
	calls []processed
}

type processed struct {
	d      time.Duration
	queued int
	rv     string
}

func (m *processMetrics) Process() func(time.Duration, int, string) {
	return func(d time.Duration, queued int, rv string) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.calls = append(m.calls, processed{d, queued, rv})
	}
}

func (m *processMetrics) last() processed {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls[len(m.calls)-1]
}

// A Metrics whose Process returns an observer sees every batch the pop loop applies: how long it took,
// the changes queued behind it meanwhile and the cache's resourceVersion.
func TestProcessMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: resource}, cm("ns", "a", "0"))
		block := make(chan struct{})
		m := &processMetrics{countMetrics: countMetrics{n: map[string]int{}}}
		opts := informer.Options[CM]{Metrics: m, Indexers: store.Indexers[CM]{
			"v": func(o CM) ([]string, error) {
				if o.Data["v"] == "slow" {
					<-block
				}
				return nil, nil
			},
		}}
		inf := newInformer(src, opts)
		_, reg := addRecorder(t, inf, informer.HandlerOptions{})
		run(t, inf)
		waitSynced(t, inf, reg)
		synctest.Wait()
		if got := m.last(); got.queued != 0 || got.rv != src.ResourceVersion() {
			t.Fatalf("after sync: Processed(%v, %d, %q), want 0 queued at %q", got.d, got.queued, got.rv, src.ResourceVersion())
		}
		slow := must(src.Update(cm("ns", "a", "slow")))
		synctest.Wait() // the pop loop is blocked in the index func
		for i := range 3 {
			must(src.Update(cm("ns", "a", fmt.Sprint(i))))
		}
		synctest.Wait()
		m.mu.Lock()
		before := len(m.calls)
		m.mu.Unlock()
		time.Sleep(5 * time.Second)
		close(block)
		synctest.Wait()
		m.mu.Lock()
		defer m.mu.Unlock()
		if len(m.calls) < before+2 {
			t.Fatalf("%d calls after the slow batch, want it and the one of the 3 updates: %v", len(m.calls)-before, m.calls[before:])
		}
		if got := m.calls[before]; got.d < 5*time.Second || got.queued != 3 || got.rv != slow.ResourceVersion {
			t.Errorf("slow batch: Processed(%v, %d, %q), want >= 5s, 3 queued, at %q", got.d, got.queued, got.rv, slow.ResourceVersion)
		}
		if got := m.calls[len(m.calls)-1]; got.queued != 0 || got.rv != src.ResourceVersion() {
			t.Errorf("last batch: Processed(%v, %d, %q), want 0 queued at %q", got.d, got.queued, got.rv, src.ResourceVersion())
		}
	})
}
