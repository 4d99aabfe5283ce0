package informer_test

import (
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

type countMetrics struct {
	mu   sync.Mutex
	regs []string
	n    map[string]int
}

func (m *countMetrics) Handler(reg *informer.Registration) informer.HandlerMetrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.regs = append(m.regs, reg.Name())
	return m
}

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
