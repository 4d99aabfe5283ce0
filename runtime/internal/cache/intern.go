package cache

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"unique"
	"unsafe"
)

// Interning goes through a small cache in front of unique.
//
// unique.Make is safe for concurrent use and frees canonical strings nobody
// uses, but each call hashes the string, walks a concurrent hash-trie with
// atomic loads and turns a weak pointer into a strong one, several times a
// map lookup. An informer interns a few strings per
// event (namespace, owner references, and the labels of every label set it
// has not seen yet, see "Label sets" below) and in the steady state they are
// nearly always the same few hundred, so a plain map lookup answers almost
// every call for a fraction of that. A profile of BenchmarkInformerUpdates
// put unique at about two-thirds of the informer's CPU per event before this
// cache (when labels were still interned string by string).
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
// Interning is off by default because it costs CPU on every event (figures in
// docs/performance.md, "Interning is opt-in"). Reusing the cached previous
// version's strings when equal was measured and dropped: over 100k cached Pods
// it cost as much per event as interning everything (the previous version's
// label map is cold in a large cache) and moved the work to the pop loop, the
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
	m map[string]internEntry
}

// internEntry is a cached canonical string with the handle that keeps it
// canonical. The string is stored beside the handle so a hit reads only the
// map's slot, not also unique's entry (one cache miss less per string).
type internEntry struct {
	s string
	h unique.Handle[string]
}

var interners = sync.Pool{New: func() any { return &interner{m: make(map[string]internEntry, 64)} }}

// intern returns the canonical copy of s.
func (in *interner) intern(s string) string {
	if s == "" {
		return s
	}
	if e, ok := in.m[s]; ok {
		return e.s
	}
	h := unique.Make(s)
	if len(in.m) >= internCacheMax {
		clear(in.m)
	}
	c := h.Value()
	in.m[c] = internEntry{c, h}
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

// Label sets.
//
// Objects made from one template (the pods of a ReplicaSet, the objects a
// controller stamps out) carry equal label maps, and an update event nearly
// always carries the labels the cached version had. So labels are interned as
// a whole: the first time a set of pairs is seen, a canonical map with
// interned strings is built for it, and every object with an equal set gets
// that map instead of its own. Objects then share one map instead of holding
// one each (a 10-label map is about 500 bytes), which saves several times what
// interning the strings one by one does (bench.BenchmarkStorePodBytes;
// docs/performance.md has the figures).
//
// The price is that cached objects share their labels map, so a caller who
// breaks the read-only rule and writes to a cached object's labels changes
// every object with that label set, and races with every reader of them.
// DeepCopy still gives a private map. Interning never writes to a labels map:
// a canonical map is built fresh, so even an object interned twice, or one
// whose map is already shared, is safe.

// labelSetMax is the largest label map interned as a set; larger ones have
// their strings interned one by one (they rarely repeat, and the insertion
// sort in internLabels is quadratic).
const labelSetMax = 24

// labelSets is the cache of canonical label sets, shared by every goroutine:
// a table of labelSetWays-way buckets indexed by the set's hash. Readers
// load slots atomically; a miss publishes a new immutable labelSet into a
// slot of its bucket (an empty one, else one picked by the hash), so racing
// writers at worst overwrite each other's entry, which costs a later miss
// and never a wrong answer (every hit is verified pair by pair). It keeps at
// most len(labelSets) maps and their pairs alive (a few MB at worst, for a
// process that has seen that many distinct label sets): the maps are the ones
// cached objects use, unless those objects are gone.
var labelSets [1 << 13]atomic.Pointer[labelSet]

const labelSetWays = 4

var labelSeed = maphash.MakeSeed()

type labelPair struct {
	k, v string
	h    uint64
}

// labelSet is a canonical labels map and its pairs sorted by hash.
type labelSet struct {
	sum   uint64
	m     map[string]string
	pairs []labelPair
}

// internLabels returns the canonical map for the pairs of l, building and
// caching it when no equal set is cached. It never writes to l.
func (in *interner) internLabels(l map[string]string) map[string]string {
	var buf [labelSetMax]labelPair
	pairs, sum := hashLabels(l, buf[:0])
	bucket := labelSetBucket(sum)
	victim := -1
	for n := range bucket {
		cs := bucket[n].Load()
		if cs == nil {
			victim = n
			continue
		}
		if cs.sum == sum && cs.equal(pairs) {
			return cs.m
		}
	}
	c := make(map[string]string, len(pairs))
	for n := range pairs {
		p := &pairs[n]
		p.k, p.v = in.intern(p.k), in.intern(p.v)
		c[p.k] = p.v
	}
	if victim < 0 {
		victim = int(sum >> 62) // labelSetWays == 4
	}
	bucket[victim].Store(&labelSet{sum: sum, m: c, pairs: append([]labelPair(nil), pairs...)})
	return c
}

// hashLabels appends the pairs of l to pairs sorted by their hash, and
// returns them with the set's hash (the sum of the pairs' hashes, so that the
// map's iteration order does not matter).
func hashLabels(l map[string]string, pairs []labelPair) ([]labelPair, uint64) {
	var sum uint64
	for k, v := range l {
		h := maphash.String(labelSeed, k) ^ (maphash.String(labelSeed, v) * 0x9e3779b97f4a7c15)
		sum += h
		// Insertion sort by hash: a handful of pairs.
		j := len(pairs)
		pairs = append(pairs, labelPair{})
		for j > 0 && pairs[j-1].h > h {
			pairs[j] = pairs[j-1]
			j--
		}
		pairs[j] = labelPair{k, v, h}
	}
	return pairs, sum
}

// labelSetBucket returns the slots where a set with hash sum is cached.
func labelSetBucket(sum uint64) []atomic.Pointer[labelSet] {
	return labelSets[sum&(uint64(len(labelSets))-1)&^(labelSetWays-1):][:labelSetWays]
}

// equal reports whether pairs (sorted by hash) are exactly the set's pairs.
func (s *labelSet) equal(pairs []labelPair) bool {
	if len(s.pairs) != len(pairs) {
		return false
	}
	for n, p := range pairs {
		if q := &s.pairs[n]; q.h != p.h || q.k != p.k || q.v != p.v {
			return false
		}
	}
	return true
}
