package workqueue

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// pushNew and push are the Queue's two uses of pushTagged.
func pushNew[K comparable](r *keyRing[K], key K) bool { return r.pushTagged(key, r.tag(key), true) }
func push[K comparable](r *keyRing[K], key K)         { r.pushTagged(key, r.tag(key), false) }

// popChecked pops and checks the returned tag is the key's.
func popChecked[K comparable](t *testing.T, r *keyRing[K]) K {
	t.Helper()
	key, tag := r.pop()
	if tag != r.tag(key) {
		t.Fatalf("pop returned tag %x for %v, whose tag is %x", tag, key, r.tag(key))
	}
	return key
}

// checkKeyRing verifies keyRing's invariants: every live position has
// exactly one index slot, reachable from its home slot without crossing a
// free slot, and the index holds nothing else.
func checkKeyRing[K comparable](t *testing.T, r *keyRing[K], realTags bool) {
	t.Helper()
	if r.keys == nil {
		if r.size != 0 {
			t.Fatalf("size %d with no buffer", r.size)
		}
		return
	}
	mask := len(r.keys) - 1
	live := make(map[uint32]bool, r.size)
	for i := range r.size {
		live[uint32((r.head+i)&mask)] = true
	}
	seen := 0
	for slot, s := range r.index {
		if s == 0 {
			continue
		}
		seen++
		tag, pos := uint32(s>>32), uint32(s)
		if !live[pos] {
			t.Fatalf("index slot %d points at position %d, which holds no key", slot, pos)
		}
		if r.tags[pos] != tag || realTags && r.tag(r.keys[pos]) != tag {
			t.Fatalf("index slot %d: tag %x, stored %x, key's %x", slot, tag, r.tags[pos], r.tag(r.keys[pos]))
		}
		for i := tag & r.imask; i != uint32(slot); i = (i + 1) & r.imask {
			if r.index[i] == 0 {
				t.Fatalf("index slot %d (home %d) is cut off by free slot %d", slot, tag&r.imask, i)
			}
		}
	}
	if seen != r.size {
		t.Fatalf("index holds %d slots for %d keys", seen, r.size)
	}
}

// TestKeyRingMatchesModel drives keyRing with random pushNew, push and pop
// through growth, wraparound and long probe runs, checking order,
// deduplication and the index invariants against a slice and a map.
func TestKeyRingMatchesModel(t *testing.T) {
	for _, space := range []int{8, 40, 1000} { // keys to draw from: mostly duplicates .. mostly new
		t.Run(strconv.Itoa(space), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(space), 3))
			var ring keyRing[string]
			ring.init()
			var order []string
			in := map[string]bool{}
			for step := range 20000 {
				switch op := r.IntN(10); {
				case op < 5: // pushNew, biased so the ring grows to a few hundred keys
					k := "ns/" + strconv.Itoa(r.IntN(space))
					if got := pushNew(&ring, k); got == in[k] {
						t.Fatalf("step %d: pushNew(%q) = %v with the key queued: %v", step, k, got, in[k])
					}
					if !in[k] {
						in[k] = true
						order = append(order, k)
					}
				case op < 6: // push of a key known to be absent
					k := "other/" + strconv.Itoa(step)
					push(&ring, k)
					in[k] = true
					order = append(order, k)
				default:
					if len(order) == 0 {
						continue
					}
					if got := popChecked(t, &ring); got != order[0] {
						t.Fatalf("step %d: pop = %q, want %q", step, got, order[0])
					}
					delete(in, order[0])
					order = order[1:]
				}
				if ring.len() != len(order) {
					t.Fatalf("step %d: len %d, want %d", step, ring.len(), len(order))
				}
				if step%97 == 0 || len(order) < 40 {
					checkKeyRing(t, &ring, true)
				}
			}
			for len(order) > 0 {
				if got := popChecked(t, &ring); got != order[0] {
					t.Fatalf("drain: pop = %q, want %q", got, order[0])
				}
				order = order[1:]
			}
			checkKeyRing(t, &ring, true)
		})
	}
}

// TestKeyRingStructKeys covers a key type like the controllers' (strings and
// a scalar), whose equal values must dedupe however they were built.
func TestKeyRingStructKeys(t *testing.T) {
	type key struct {
		kind      int
		namespace string
		name      string
	}
	var ring keyRing[key]
	ring.init()
	for i := range 100 {
		pushNew(&ring, key{i % 2, "ns", "n" + strconv.Itoa(i)})
	}
	for i := range 100 {
		if pushNew(&ring, key{i % 2, "ns", string([]byte("n" + strconv.Itoa(i)))}) {
			t.Fatalf("key %d queued twice", i)
		}
	}
	checkKeyRing(t, &ring, true)
	for i := range 100 {
		if got, want := popChecked(t, &ring), (key{i % 2, "ns", "n" + strconv.Itoa(i)}); got != want {
			t.Fatalf("pop = %v, want %v", got, want)
		}
	}
	checkKeyRing(t, &ring, true)
}

// TestQueueHotPathAllocatesNothing: Add, Get and Done of string, int and
// struct keys allocate nothing once the queue has grown (maphash.Comparable
// does not move such keys to the heap).
func TestQueueHotPathAllocatesNothing(t *testing.T) {
	type key struct {
		kind            int
		namespace, name string
	}
	checkAllocs(t, "string", []string{"a/1", "a/2", "b/3"})
	checkAllocs(t, "int", []int{0, 1, 2, 3, 4, 5, 6})
	checkAllocs(t, "struct", []key{{1, "ns", "a"}, {2, "ns", "b"}, {1, "other", "a"}})
}

// checkAllocs fails t if an Add/Get/Done cycle over keys allocates.
func checkAllocs[K comparable](t *testing.T, name string, keys []K) {
	t.Helper()
	q := New(Options[K]{})
	defer q.ShutDown()
	i := 0
	if allocs := testing.AllocsPerRun(1000, func() {
		q.Add(keys[i%len(keys)])
		i++
		k, _ := q.Get()
		q.Done(k)
	}); allocs != 0 {
		t.Errorf("%s keys: %v allocations per Add/Get/Done", name, allocs)
	}
}

// TestKeyRingCollidingTags gives every key one of a few tags whose home
// slots sit at the very end and the very start of the index, whatever its
// size, so probe runs are long and wrap around, and pop's backward shift
// crosses the end of the table.
func TestKeyRingCollidingTags(t *testing.T) {
	tagOf := func(n int) uint32 {
		if n%4 == 3 {
			return uint32(n%3) + 1 // homes 1..3
		}
		return 0xFFFFFFFF - uint32(n%5) // homes imask-4 .. imask
	}
	r := rand.New(rand.NewPCG(7, 7))
	var ring keyRing[int]
	ring.init()
	var order []int
	in := map[int]bool{}
	for step := range 20000 {
		if r.IntN(10) < 6 || len(order) == 0 {
			n := r.IntN(300)
			if got := ring.pushTagged(n, tagOf(n), true); got == in[n] {
				t.Fatalf("step %d: pushTagged(%d) = %v with the key queued: %v", step, n, got, in[n])
			}
			if !in[n] {
				in[n] = true
				order = append(order, n)
			}
		} else {
			if got, _ := ring.pop(); got != order[0] {
				t.Fatalf("step %d: pop = %d, want %d", step, got, order[0])
			}
			delete(in, order[0])
			order = order[1:]
		}
		checkKeyRing(t, &ring, false)
	}
}
