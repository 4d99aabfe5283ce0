package store

import (
	"sync"
	"unique"
	"unsafe"
)

// Interning goes through a small cache in front of unique.
//
// unique.Make is safe for concurrent use and frees canonical strings nobody
// uses, but each call hashes the string, walks a concurrent hash-trie with
// atomic loads and turns a weak pointer into a strong one: about 80 ns on
// the project's benchmark machine. An informer interns some twenty strings
// per event (namespace, ten label keys and values, owner references) and in
// the steady state they are nearly always the same few hundred, so a plain
// map lookup answers almost every call for a fraction of that. A profile of
// BenchmarkInformerUpdates put unique at about two-thirds of the informer's
// CPU per event before this cache.
//
// The cache is per P: InternStrings takes one interner from a sync.Pool for
// the whole object and puts it back, so the map is used by one goroutine at a
// time without a lock, and different informers' Reflectors do not contend.
// Every string it returns is still unique's canonical copy (a miss asks
// unique and caches the answer), so objects interned through different
// interners share their strings exactly as before.
//
// Memory: an interner keeps at most internCacheMax strings alive (those
// unique would otherwise free once no object used them), about 170 KB of map
// per P at most; when full it starts over. The pool drops idle interners
// over two garbage collections.
//
// An alternative measured and dropped: reusing the cached previous version's
// strings and maps when equal ("intern only what changed", done at the
// informer's apply step, where the single writer can read that version
// without a lock). Over 100k cached pods it cost as much per event as
// interning everything through unique (about 3.5 us against 3.5 us, in the
// cold case of BenchmarkInternStrings), because the comparison reads the
// previous version's label map, which is cold in a large cache, and it moved
// the work from the Reflector's goroutine to the pop loop, which is then the
// slower stage of the pipeline.

// internCacheMax bounds an interner's map. The steady-state working set of an
// informer (distinct label values, namespaces, owner kinds in use) is usually
// well below it; a larger one only costs more misses.
const internCacheMax = 4096

// interner caches handles, not strings: a handle keeps unique's entry alive,
// so what the cache returns is always unique's current canonical copy (a
// cached string whose entry unique had freed would no longer be the copy
// other goroutines get).
type interner struct {
	m map[string]unique.Handle[string]
}

var interners = sync.Pool{New: func() any { return &interner{m: make(map[string]unique.Handle[string], 64)} }}

// intern returns the canonical copy of s.
func (in *interner) intern(s string) string {
	if s == "" {
		return s
	}
	if h, ok := in.m[s]; ok {
		return h.Value()
	}
	h := unique.Make(s)
	if len(in.m) >= internCacheMax {
		clear(in.m)
	}
	c := h.Value()
	in.m[c] = h
	return c
}

// internInto makes *s canonical, writing only if that changes it, and
// reports whether it did.
func (in *interner) internInto(s *string) bool {
	c := in.intern(*s)
	if sameString(c, *s) {
		return false
	}
	*s = c
	return true
}

// sameString reports whether a and b are the same bytes in memory, not just
// equal ones.
func sameString(a, b string) bool {
	return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}
