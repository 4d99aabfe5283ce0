package workqueue

import "testing"

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

// TestPriorityHotPathAllocatesNothing: AddWithOpts at two priorities (a key
// moving up among them), GetWithPriority and Done allocate nothing once the
// lanes exist.
func TestPriorityHotPathAllocatesNothing(t *testing.T) {
	q := New(Options[string]{})
	defer q.ShutDown()
	keys := []string{"a/1", "a/2", "b/3", "c/4"}
	i := 0
	if allocs := testing.AllocsPerRun(1000, func() {
		k := keys[i%len(keys)]
		i++
		q.AddWithOpts(AddOpts{Priority: LowPriority}, k)
		q.AddWithOpts(AddOpts{Priority: 0}, k) // moves it up
		got, _, _ := q.GetWithPriority()
		q.Done(got)
	}); allocs != 0 {
		t.Errorf("%v allocations per AddWithOpts/GetWithPriority/Done", allocs)
	}
}
