package store

import (
	"fmt"
	"strings"
	"testing"
	"unique"
	"unsafe"
)

// TestInternerReturnsUniquesCopy checks that the per-P cache never changes
// what interning means: every string it returns is unique's canonical copy,
// for hits, misses, and after the cache overflowed and started over.
func TestInternerReturnsUniquesCopy(t *testing.T) {
	in := &interner{m: map[string]unique.Handle[string]{}}
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
