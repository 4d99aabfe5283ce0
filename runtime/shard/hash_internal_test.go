package shard

import (
	"fmt"
	"math"
	"testing"
)

func keys(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("ns-%d/obj-%d", i%7, i)
	}
	return out
}

func members(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("controller-%d", i)
	}
	return out
}

func assign(v view, ks []string) map[string]string {
	out := make(map[string]string, len(ks))
	for _, k := range ks {
		out[k] = v.members[v.owner(fnv64a(k))]
	}
	return out
}

// Adding an N+1-th member moves about 1/(N+1) of the keys, all of them to
// the new member; removing one moves only its keys.
func TestRendezvousMovesOnlyWhatItMust(t *testing.T) {
	ks := keys(20000)
	for _, n := range []int{1, 2, 3, 5, 10} {
		before := assign(newView(members(n)), ks)
		after := assign(newView(members(n+1)), ks)
		newcomer := members(n + 1)[n]
		moved := 0
		for _, k := range ks {
			if before[k] != after[k] {
				moved++
				if after[k] != newcomer {
					t.Fatalf("n=%d: key %s moved from %s to %s, not to the newcomer", n, k, before[k], after[k])
				}
			}
		}
		want := float64(len(ks)) / float64(n+1)
		if math.Abs(float64(moved)-want) > 0.1*want {
			t.Errorf("n=%d→%d: %d keys moved, want about %.0f", n, n+1, moved, want)
		}

		// Removing member 0 moves exactly its keys.
		without := assign(newView(members(n + 1)[1:]), ks)
		for _, k := range ks {
			if after[k] != members(n + 1)[0] && without[k] != after[k] {
				t.Fatalf("n=%d: removing %s moved key %s of %s", n+1, members(n + 1)[0], k, after[k])
			}
		}
	}
}

func TestRendezvousBalances(t *testing.T) {
	ks := keys(30000)
	for _, n := range []int{2, 3, 7, 16} {
		count := map[string]int{}
		for _, o := range assign(newView(members(n)), ks) {
			count[o]++
		}
		want := float64(len(ks)) / float64(n)
		for m, c := range count {
			if math.Abs(float64(c)-want) > 0.08*want {
				t.Errorf("n=%d: %s owns %d keys, want about %.0f", n, m, c, want)
			}
		}
		if len(count) != n {
			t.Errorf("n=%d: only %d members own keys", n, len(count))
		}
	}
}

// Every replica must compute the same owner: the view is independent of
// the order members were seen in, and its id is stable across processes.
func TestViewIsCanonical(t *testing.T) {
	a := newView([]string{"b", "a", "c", "a"})
	b := newView([]string{"c", "b", "a"})
	if a.id != b.id || fmt.Sprint(a.members) != "[a b c]" {
		t.Errorf("views differ: %v %s, %v %s", a.members, a.id, b.members, b.id)
	}
	// Fixed values: a change of the hash would make replicas of two
	// versions disagree during a rolling update.
	if got := fnv64a("ns/obj"); got != 0xf8aa052d15933960 {
		t.Errorf("fnv64a(ns/obj) = %#x: the hash changed", got)
	}
	if got := newView([]string{"b", "a"}).id; got != "e5beb1190415e670" {
		t.Errorf("view id of [a b] = %s: the id changed", got)
	}
	v := newView([]string{"a", "b", "c"})
	if got := v.members[v.owner(fnv64a("ns/obj"))]; got != "b" {
		t.Errorf("owner of ns/obj among [a b c] = %s: the assignment changed", got)
	}
}
