package cache

import (
	"math/rand/v2"
	"strings"
	"testing"
)

type nsName struct{ ns, name string }

func (o nsName) GetNamespace() string { return o.ns }
func (o nsName) GetName() string      { return o.name }

// TestCompareKeys: CompareKeys orders as strings.Compare of the Keys it does
// not build, also where comparing the namespace first would not ("a/x"
// sorts after "a-b/y": '/' is above '-'), across cluster-scoped and
// namespaced keys and random ones from a small alphabet.
func TestCompareKeys(t *testing.T) {
	objs := []nsName{
		{"a", "x"}, {"a-b", "y"}, {"a", "b"}, {"", "a"}, {"", "a/x"}, {"", "a-b/y"}, {"", "a/"},
		{"ns-1", "p"}, {"ns-10", "p"}, {"ns-1", "p0"}, {"", ""}, {"a", ""}, {"", "ns-1"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		var b strings.Builder
		for range r.IntN(4) {
			b.WriteByte("a/-0"[r.IntN(4)])
		}
		return b.String()
	}
	for range 300 {
		objs = append(objs, nsName{str(), str()})
	}
	for _, a := range objs {
		for _, b := range objs {
			if got, want := CompareKeys(a, b), strings.Compare(Key(a), Key(b)); got != want {
				t.Fatalf("CompareKeys(%q, %q) = %d, strings.Compare of the keys %d", Key(a), Key(b), got, want)
			}
		}
	}
}
