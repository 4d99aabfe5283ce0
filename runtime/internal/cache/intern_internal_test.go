package cache

import (
	"fmt"
	"maps"
	"strings"
	"sync/atomic"
	"testing"
	"unique"
	"unsafe"
)

// TestInternerReturnsUniquesCopy checks that the per-P cache never changes
// what interning means: every string it returns is unique's canonical copy,
// for hits, misses, and after the cache overflowed and started over.
func TestInternerReturnsUniquesCopy(t *testing.T) {
	in := &interner{m: map[string]internEntry{}}
	const n = internCacheMax*2 + 17
	for round := range 2 { // the second round hits what the first cached (and what it dropped)
		for i := range n {
			s := strings.Clone(fmt.Sprint("value-", i))
			got := in.intern(s)
			want := unique.Make(s).Value()
			if got != s || !sameString(got, want) {
				t.Fatalf("round %d: intern(%q) = %q at %p, want unique's copy at %p", round, s, got, unsafeData(got), unsafeData(want))
			}
			if len(in.m) > internCacheMax {
				t.Fatalf("round %d: cache holds %d strings, bound is %d", round, len(in.m), internCacheMax)
			}
		}
	}
	if got := in.intern(""); got != "" {
		t.Fatalf(`intern("") = %q`, got)
	}
}

func unsafeData(s string) *byte {
	if s == "" {
		return nil
	}
	return unsafe.StringData(s)
}

// TestInternLabelsVerifiesHits plants, under the hash of one label set, a
// cached set with other pairs (as a hash collision would): interning the
// first set must not return the planted map, and must build one equal to
// its input.
func TestInternLabelsVerifiesHits(t *testing.T) {
	in := &interner{m: map[string]internEntry{}}
	l := map[string]string{"app": strings.Clone("collide"), "tier": "web"}
	_, sum := hashLabels(l, nil)
	planted := map[string]string{"app": "other", "tier": "web"}
	plantedPairs, _ := hashLabels(planted, nil)
	bucket := labelSetBucket(sum)
	saved := make([]*labelSet, len(bucket))
	for n := range bucket {
		saved[n] = bucket[n].Load()
		bucket[n].Store(&labelSet{sum: sum, m: planted, pairs: plantedPairs})
	}
	defer func() {
		for n := range bucket {
			bucket[n].Store(saved[n])
		}
	}()
	got := in.internLabels(l)
	if sameMap(got, planted) {
		t.Fatal("internLabels returned a cached set with other pairs under the same hash")
	}
	if !maps.Equal(got, l) {
		t.Fatalf("internLabels = %v, want %v", got, l)
	}
}

// shareTestRuns counts the runs of TestInternLabelsSharesAndNeverWrites.
var shareTestRuns atomic.Int64

// TestInternLabelsSharesAndNeverWrites: equal sets get one map, unequal sets
// different maps, and the input maps are never written (their strings stay
// the caller's own copies).
func TestInternLabelsSharesAndNeverWrites(t *testing.T) {
	in := &interner{m: map[string]internEntry{}}
	mk := func(v string) map[string]string {
		return map[string]string{strings.Clone("app"): strings.Clone(v), strings.Clone("env"): strings.Clone("prod")}
	}
	// Values no earlier run built a label set of (-count=N): the label-set
	// cache is the process's, and a set an earlier interner built holds the
	// strings that were canonical then, which a GC since may have let
	// unique forget (while nothing held a handle to them) and a new intern
	// then makes anew.
	run := shareTestRuns.Add(1)
	v1, v2 := fmt.Sprint("share-test-1-", run), fmt.Sprint("share-test-2-", run)
	a, b, c := mk(v1), mk(v1), mk(v2)
	snapshot := func(m map[string]string) map[*byte]*byte {
		out := map[*byte]*byte{}
		for k, v := range m {
			out[unsafe.StringData(k)] = unsafe.StringData(v)
		}
		return out
	}
	before := []map[*byte]*byte{snapshot(a), snapshot(b), snapshot(c)}
	ca, cb, cc := in.internLabels(a), in.internLabels(b), in.internLabels(c)
	if !sameMap(ca, cb) {
		t.Error("equal label sets got different maps")
	}
	if sameMap(ca, cc) || !maps.Equal(cc, c) || !maps.Equal(ca, a) {
		t.Errorf("got %v and %v for %v and %v", ca, cc, a, c)
	}
	if sameMap(ca, a) || sameMap(cb, b) {
		t.Error("a caller's map became the canonical one")
	}
	for n, m := range []map[string]string{a, b, c} {
		if !maps.Equal(snapshot(m), before[n]) {
			t.Errorf("input map %d was written", n)
		}
	}
	if !sameString(ca["app"], in.intern(v1)) {
		t.Error("the canonical map's strings are not interned")
	}
}
