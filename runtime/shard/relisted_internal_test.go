package shard

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/internal/relist"
)

// Under ByUID a replica gains keys only once its informers have delivered a
// list made with the selector that covers them: a list made with an older,
// narrower selector may still be on its way to the handlers, and its
// tombstones of objects the replica is about to own would reach them as
// deletions. An informer that does not relist stops holding the gain back
// after LeaseDuration.
func TestGainWaitsForListWithNewSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, err := New(Options{Group: "g", Identity: "a", Leases: noAPI{}, Source: noAPI{}, ByUID: true})
		if err != nil {
			t.Fatal(err)
		}
		f := Filter(s, informer.HandlerFuncs[*coordinationv1.Lease]{}).(*filter[*coordinationv1.Lease])
		ab := newView([]string{"a", "b"})
		s.mu.Lock()
		s.leasesSynced, s.lastRenew = true, time.Now()
		s.mu.Unlock()

		// The informer's first list, made with the lone member's selector.
		_, gen0 := s.relist.ArmedAt()
		f.Listed(relist.Mark{Trigger: s.relist, Gen: gen0})
		// b joins: the selector changes (widening to [a b]'s share first)
		// and the trigger fires.
		s.observe(testLease("b", "1", ab.id), false)
		s.mu.Lock()
		s.published, s.pubRVs = ab.id, []string{"2"}
		gen := s.selGen
		s.mu.Unlock()
		if gen <= gen0 {
			t.Fatalf("selector change did not fire the trigger (generation %d, was %d)", gen, gen0)
		}
		s.observe(testLease("a", "2", ab.id), false)
		s.observe(testLease("b", "3", ab.id), false) // b's ack
		if m := s.Members(); m != nil {
			t.Fatalf("acting on %v before the informer delivered a list with the new selector", m)
		}
		// A mark of another trigger, or of the older generation (a list
		// that began before the change), does not release it.
		f.Listed(relist.Mark{Trigger: relist.NewTrigger(), Gen: gen})
		f.Listed(relist.Mark{Trigger: s.relist, Gen: gen - 1})
		recompute(s)
		if m := s.Members(); m != nil {
			t.Fatalf("acting on %v after a list of generation %d, want one of %d", m, gen-1, gen)
		}
		f.Listed(relist.Mark{Trigger: s.relist, Gen: gen})
		recompute(s)
		if m := s.Members(); !slices.Equal(m, ab.members) {
			t.Fatalf("acting on %v once the list was delivered, want %v", m, ab.members)
		}

		// b leaves, so a's selector widens to b's share too; the informer
		// never relists: after LeaseDuration the replica gains anyway.
		alone := newView([]string{"a"})
		s.observe(testLease("b", "4", ab.id), true)
		s.mu.Lock()
		s.published, s.pubRVs = alone.id, []string{"5"}
		if s.selGen <= gen {
			t.Fatalf("b's leaving did not change the selector (generation %d)", s.selGen)
		}
		s.mu.Unlock()
		s.observe(testLease("a", "5", alone.id), false)
		if m := s.Members(); !slices.Equal(m, ab.members) {
			t.Fatalf("acting on %v before any relist, want still %v", m, ab.members)
		}
		for _, want := range [][]string{ab.members, alone.members} {
			time.Sleep(s.opts.LeaseDuration / 2)
			s.mu.Lock()
			s.lastRenew = time.Now()
			s.mu.Unlock()
			recompute(s)
			if m := s.Members(); !slices.Equal(m, want) {
				t.Fatalf("acting on %v at %v, want %v", m, time.Now(), want)
			}
		}
	})
}

func recompute(s *Shard) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recomputeLocked()
}
