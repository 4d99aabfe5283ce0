package shard

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
)

// buckets is how many equal ranges of the API server's shard hash
// (KEP-5866 ShardedListAndWatch: 64-bit FNV-1a of metadata.uid) an
// assignment by uid (Options.ByUID) divides the hash space into; bucket b
// holds the hashes [b·2⁵⁶, (b+1)·2⁵⁶). Each bucket belongs to one member.
// 256 keeps the shares within one bucket (0.4% of the keys) of equal for
// any member count up to 256 while a replica's selector stays a few dozen
// ranges (docs/sharding.md, "Server-side sharded watches", has the
// reasoning).
const buckets = 256

const bucketShift = 64 - 8 // log2(buckets) bits select the bucket

// uidField is the field the selectors of this package hash.
const uidField = "object.metadata.uid"

// uidHash is the API server's shard hash of uid: 64-bit FNV-1a of its
// bytes, as k8s.io/apimachinery/pkg/sharding.HashField computes it (the
// tests check the two agree).
func uidHash(uid types.UID) uint64 { return fnv64a(string(uid)) }

// bucketOf returns the bucket of a shard hash.
func bucketOf(h uint64) int { return int(h >> bucketShift) }

// bucketSet is a set of buckets.
type bucketSet [buckets / 64]uint64

func (b *bucketSet) add(i int)      { b[i/64] |= 1 << (i % 64) }
func (b *bucketSet) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bucketSet) union(o bucketSet) bucketSet {
	for i := range b {
		b[i] |= o[i]
	}
	return b
}

// fullBuckets is the set of every bucket.
func fullBuckets() bucketSet {
	var b bucketSet
	for i := range b {
		b[i] = ^uint64(0)
	}
	return b
}

func (b *bucketSet) len() int {
	n := 0
	for _, w := range b {
		n += bits.OnesCount64(w)
	}
	return n
}

// bucketWeight is the rendezvous weight of bucket i under the member whose
// hash is hm.
func bucketWeight(i int, hm uint64) uint64 { return mix(mix(uint64(i)+0x9e3779b97f4a7c15) ^ hm) }

// assignBuckets gives every bucket to a member (by their hashes):
// rendezvous hashing with bounded loads. All (bucket, member) pairs are
// taken in decreasing weight; a pair assigns its bucket when the bucket is
// still free and the member below its quota, where buckets = q·N + r and
// r members may hold q+1, the others q. So every member holds floor or ceil
// of buckets/N (plain rendezvous over 256 buckets leaves a member of three
// ±10% off its share), and a member that joins or leaves moves not much
// more than the buckets it gains or loses (buckets_internal_test.go
// measures it). It returns the owner's index per bucket; nil for no
// members. Cost: N·buckets weights and a sort, once per membership change.
func assignBuckets(hashes []uint64) []int16 {
	n := len(hashes)
	if n == 0 {
		return nil
	}
	type pair struct {
		w         uint64
		bucket, m int
	}
	pairs := make([]pair, 0, n*buckets)
	for b := range buckets {
		for m, hm := range hashes {
			pairs = append(pairs, pair{bucketWeight(b, hm), b, m})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if c := cmp.Compare(b.w, a.w); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.bucket, b.bucket), cmp.Compare(a.m, b.m))
	})
	q, r := buckets/n, buckets%n
	load := make([]int, n)
	owners := make([]int16, buckets)
	for i := range owners {
		owners[i] = -1
	}
	left := buckets
	for _, p := range pairs {
		if owners[p.bucket] >= 0 {
			continue
		}
		if l := load[p.m]; l > q || l == q && r == 0 {
			continue
		}
		if load[p.m] == q {
			r-- // one of the r members that hold q+1
		}
		owners[p.bucket] = int16(p.m)
		load[p.m]++
		if left--; left == 0 {
			break
		}
	}
	return owners
}

// selectorFor is the shardSelector (the ListOptions field) that selects the
// objects whose uid hash falls in set: the ranges of contiguous buckets,
// joined by ||, in the syntax of k8s.io/apiserver/pkg/sharding.Parse. It is
// "" when set holds every bucket (no selection needed). An empty set, which
// only a group of more than buckets members gives, selects the single hash
// 0: the Filter still ignores whatever arrives.
func selectorFor(set bucketSet) string {
	if set.len() == buckets {
		return ""
	}
	var reqs []sharding.ShardRangeRequirement
	for i := 0; i < buckets; {
		if !set.has(i) {
			i++
			continue
		}
		j := i
		for j < buckets && set.has(j) {
			j++
		}
		reqs = append(reqs, sharding.ShardRangeRequirement{Key: uidField, Start: hashHex(uint64(i) << bucketShift), End: bucketEnd(j)})
		i = j
	}
	if len(reqs) == 0 {
		reqs = append(reqs, sharding.ShardRangeRequirement{Key: uidField, Start: hashHex(0), End: hashHex(1)})
	}
	return sharding.NewSelector(reqs...).String()
}

// hashHex is a hash in the selector syntax: 0x and 16 lowercase hex digits
// (the server compares the strings, so the width must be exact).
func hashHex(h uint64) string { return fmt.Sprintf("0x%016x", h) }

// bucketEnd is the exclusive end of the range ending before bucket j.
func bucketEnd(j int) string {
	if j == buckets {
		return "0x10000000000000000" // 2⁶⁴, the only 17-digit value allowed
	}
	return hashHex(uint64(j) << bucketShift)
}
