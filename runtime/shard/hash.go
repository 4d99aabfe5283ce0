package shard

import (
	"slices"
	"strings"
)

// A view is one membership: the sorted identities of the members a replica
// considers live, with each identity's hash precomputed for rendezvous
// hashing, and an id (a hash of the sorted list) that replicas publish in
// their Leases to say which membership they act on.
type view struct {
	id      string
	members []string
	hashes  []uint64
	// buckets is the index in members of each bucket's owner, for an
	// assignment by uid (assignBuckets).
	buckets []int16
}

func newView(members []string) view {
	members = slices.Clone(members)
	slices.Sort(members)
	members = slices.Compact(members)
	v := view{members: members, hashes: make([]uint64, len(members))}
	for i, m := range members {
		v.hashes[i] = fnv64a(m)
	}
	v.id = viewID(members)
	v.buckets = assignBuckets(v.hashes)
	return v
}

// viewID is a hex FNV-1a hash of the sorted members joined by newlines.
func viewID(sorted []string) string {
	const hex = "0123456789abcdef"
	h := fnv64a(strings.Join(sorted, "\n"))
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = hex[h&0xf]
		h >>= 4
	}
	return string(b[:])
}

// owner returns the index in v.members of the member that owns a key whose
// hash is hk: the one with the highest weight mix(hk ^ hash(member))
// (rendezvous, or highest-random-weight, hashing). -1 when v is empty.
//
// Rendezvous hashing needs no ring and no coordinator: every replica
// computes the same owner from the same membership, and when a member joins
// or leaves, only the keys it gains or loses move (1/N of them on average);
// every other key keeps its owner.
func (v *view) owner(hk uint64) int {
	best, bestW := -1, uint64(0)
	for i, hm := range v.hashes {
		if w := mix(hk ^ hm); best < 0 || w > bestW {
			best, bestW = i, w
		}
	}
	return best
}

// ownedBy reports whether member self owns the key of hash hk under v.
func (v *view) ownedBy(hk uint64, self string) bool {
	i := v.owner(hk)
	return i >= 0 && v.members[i] == self
}

// bucketsOf returns the buckets self holds under v.
func (v *view) bucketsOf(self string) bucketSet {
	var set bucketSet
	for b, o := range v.buckets {
		if v.members[o] == self {
			set.add(b)
		}
	}
	return set
}

// fnv64a is FNV-1a, 64 bit: stable across processes and Go versions (unlike
// hash/maphash, whose seeds are per process), which every replica needs.
func fnv64a(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// mix is SplitMix64's finalizer: it spreads the bits of FNV's output so that
// weights of one key under different members are independent enough for
// rendezvous hashing to balance.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
