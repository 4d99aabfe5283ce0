package shard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"

	corev1 "k8s.io/api/core/v1"
)

// counts returns how many buckets each member of v holds.
func counts(v view) map[string]int {
	out := map[string]int{}
	for _, o := range v.buckets {
		out[v.members[o]]++
	}
	return out
}

// Every member holds floor or ceil of buckets/N, for 1 to 64 members.
func TestBucketsBalanced(t *testing.T) {
	for n := 1; n <= 64; n++ {
		v := newView(members(n))
		lo, hi := buckets/n, (buckets+n-1)/n
		total := 0
		for id, c := range counts(v) {
			total += c
			if c < lo || c > hi {
				t.Errorf("%d members: %s holds %d buckets, want %d..%d", n, id, c, lo, hi)
			}
		}
		if total != buckets {
			t.Errorf("%d members: %d buckets assigned, want %d", n, total, buckets)
		}
	}
}

// The assignment depends on the membership only, not on the order members
// were seen in.
func TestBucketsStable(t *testing.T) {
	a := newView([]string{"c", "a", "b"})
	b := newView([]string{"b", "c", "a", "a"})
	if !slices.Equal(a.buckets, b.buckets) || a.id != b.id {
		t.Errorf("same members, different assignments:\n%v\n%v", a.buckets, b.buckets)
	}
}

// moved counts the buckets whose owner differs between two views.
func moved(a, b view) int {
	n := 0
	for i := range buckets {
		if a.members[a.buckets[i]] != b.members[b.buckets[i]] {
			n++
		}
	}
	return n
}

// A join or a leave moves not many more buckets than the minimum, the share
// the newcomer must get or the leaver held: at most twice that, for 2 to 16
// members (bounded loads cost some movement over plain rendezvous, which
// moves exactly the minimum but balances worse). The worst ratio is logged.
func TestBucketsMinimalMovement(t *testing.T) {
	worst := 0.0
	for n := 2; n <= 16; n++ {
		before := newView(members(n))
		after := newView(members(n + 1))
		minimum := counts(after)[fmt.Sprintf("controller-%d", n)]
		got := moved(before, after)
		if got > 2*minimum {
			t.Errorf("join of member %d: %d buckets moved, minimum %d", n+1, got, minimum)
		}
		worst = max(worst, float64(got)/float64(minimum))
		t.Logf("%2d -> %2d members: %3d buckets moved, minimum %3d", n, n+1, got, minimum)
		// Leave of a member in the middle.
		ids := members(n + 1)
		left := newView(slices.Delete(slices.Clone(ids), n/2, n/2+1))
		minimum = counts(after)[ids[n/2]]
		if got := moved(after, left); got > 2*minimum {
			t.Errorf("leave of %s from %d: %d buckets moved, minimum %d", ids[n/2], n+1, got, minimum)
		}
	}
	t.Logf("worst join movement: %.2f× the minimum", worst)
}

// uidHash is the server's hash: apimachinery's HashField, and the bucket's
// range in our selector contains it (checked with apimachinery's Matches).
func TestUIDHashIsTheServers(t *testing.T) {
	for i := range 2000 {
		uid := randomUID()
		if i == 0 {
			uid = ""
		}
		if got, want := hashHex(uidHash(uid))[2:], sharding.HashField(string(uid)); got != want {
			t.Fatalf("uidHash(%q) = %s, HashField = %s", uid, got, want)
		}
	}
}

// A member's selector, parsed by apimachinery's matcher, admits exactly the
// objects whose bucket it holds; contiguous buckets are one range.
func TestSelectorMatchesOwnedBuckets(t *testing.T) {
	v := newView(members(3))
	for m, id := range v.members {
		var set bucketSet
		for b, o := range v.buckets {
			if int(o) == m {
				set.add(b)
			}
		}
		sel := selectorFor(set)
		reqs := selectorRanges(t, sel)
		for _, r := range reqs {
			if r.Key != uidField {
				t.Fatalf("%s: key %q", id, r.Key)
			}
		}
		for i := range len(reqs) - 1 {
			if reqs[i].End == reqs[i+1].Start {
				t.Errorf("%s: ranges %d and %d are contiguous, not merged", id, i, i+1)
			}
		}
		matcher := sharding.NewSelector(reqs...)
		for i := range 3000 {
			obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{UID: types.UID("uid-" + strconv.Itoa(i))}}
			ok, err := matcher.Matches(obj)
			if err != nil {
				t.Fatal(err)
			}
			if want := set.has(bucketOf(uidHash(obj.UID))); ok != want {
				t.Fatalf("%s: uid %s matches %v, holds its bucket %v", id, obj.UID, ok, want)
			}
		}
	}
	var all bucketSet
	for b := range buckets {
		all.add(b)
	}
	if got := selectorFor(all); got != "" {
		t.Errorf("selector of every bucket = %q, want \"\"", got)
	}
	var edges bucketSet
	edges.add(0)
	edges.add(1)
	edges.add(buckets - 1)
	want := "shardRange(object.metadata.uid, '0x0000000000000000', '0x0200000000000000') || " +
		"shardRange(object.metadata.uid, '0xff00000000000000', '0x10000000000000000')"
	if got := selectorFor(edges); got != want {
		t.Errorf("selector = %q\nwant       %q", got, want)
	}
}

// selectorRanges parses the ranges back out of a selector string (the
// syntax is checked with the API server's own parser in examples/crd).
func selectorRanges(t *testing.T, sel string) []sharding.ShardRangeRequirement {
	t.Helper()
	var out []sharding.ShardRangeRequirement
	for _, part := range strings.Split(sel, " || ") {
		f := strings.Split(part, "'")
		if len(f) != 5 || f[0] != "shardRange("+uidField+", " || f[2] != ", " || f[4] != ")" {
			t.Fatalf("cannot parse %q of %q", part, sel)
		}
		out = append(out, sharding.ShardRangeRequirement{Key: uidField, Start: f[1], End: f[3]})
	}
	return out
}

// randomUID is a random version-4 style UUID, as the API server assigns.
func randomUID() types.UID {
	a, b := rand.Uint64(), rand.Uint64()
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48|0x8000, b&0xffffffffffff))
}
