package runtimetest_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

// The Recorder satisfies the informer's Handler structurally.
var _ informer.Handler[obj] = (*runtimetest.Recorder[obj])(nil)

func rv(o obj, v string) obj { o.ResourceVersion = v; return o }

func TestRecorderKeepsLastStateAndEvents(t *testing.T) {
	rec := new(runtimetest.Recorder[obj])
	a1, a2 := rv(cm("a"), "1"), rv(cm("a"), "3")
	rec.OnAdd(a1, true)
	rec.OnAdd(rv(cm("b"), "2"), false)
	rec.OnUpdate(a1, a2)
	rec.OnDelete(rv(cm("b"), "2"), true)
	st := rec.State()
	if len(st) != 1 || st["ns/a"] != a2 {
		t.Errorf("State = %v, want only ns/a at 3", st)
	}
	var got []string
	for _, e := range rec.Events() {
		got = append(got, e.Type+" "+e.Key)
	}
	if want := []string{"add ns/a", "add ns/b", "update ns/a", "delete ns/b"}; !slices.Equal(got, want) {
		t.Errorf("Events = %v, want %v", got, want)
	}
	ev := rec.Events()
	if !ev[0].InInitialList || ev[1].InInitialList || ev[2].Old != a1 || !ev[3].FinalStateUnknown {
		t.Errorf("event details lost: %+v", ev)
	}
	if err := rec.Err(); err != nil {
		t.Errorf("Err = %v, want nil", err)
	}
}

func TestRecorderFlagsContractViolations(t *testing.T) {
	rec := new(runtimetest.Recorder[obj])
	rec.OnAdd(cm("a"), false)
	rec.OnAdd(cm("a"), false)      // add of a held key
	rec.OnUpdate(cm("x"), cm("x")) // update of an unknown key
	rec.OnDelete(cm("y"), false)   // delete of an unknown key
	err := rec.Err()
	if err == nil {
		t.Fatal("Err = nil, want three violations")
	}
	for _, want := range []string{"add of ns/a", "update of ns/x", "delete of ns/y"} {
		if !contains(err.Error(), want) {
			t.Errorf("Err = %q, missing %q", err, want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestRecorderWaitFor(t *testing.T) {
	rec := new(runtimetest.Recorder[obj])
	var wg sync.WaitGroup
	ready := make(chan struct{})
	var waitErr error
	wg.Go(func() {
		close(ready)
		waitErr = rec.WaitFor(context.Background(), func(s map[string]obj) bool { return len(s) == 3 })
	})
	<-ready
	for _, n := range []string{"a", "b", "c"} {
		rec.OnAdd(cm(n), false)
	}
	wg.Wait()
	if waitErr != nil {
		t.Errorf("WaitFor = %v", waitErr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := rec.WaitFor(ctx, func(s map[string]obj) bool { return len(s) == 4 })
	if !errors.Is(err, context.Canceled) || !contains(err.Error(), "after 3 handler calls") {
		t.Errorf("WaitFor with a cancelled ctx = %v", err)
	}
}

func TestSameResourceVersions(t *testing.T) {
	a := map[string]obj{"ns/a": rv(cm("a"), "1")}
	for _, tc := range []struct {
		b    map[string]obj
		want bool
	}{
		{map[string]obj{"ns/a": rv(cm("a"), "1")}, true},
		{map[string]obj{"ns/a": rv(cm("a"), "2")}, false},
		{map[string]obj{"ns/b": rv(cm("b"), "1")}, false},
		{map[string]obj{}, false},
	} {
		if got := runtimetest.SameResourceVersions(a, tc.b); got != tc.want {
			t.Errorf("SameResourceVersions(%v) = %v, want %v", tc.b, got, tc.want)
		}
	}
}
