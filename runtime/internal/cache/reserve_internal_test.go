package cache

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func reservePod(k int) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", k%7), Name: fmt.Sprintf("pod-%d", k)}}
}

// After Reserve(n), storing n objects into an empty cache grows none of its
// per-object tables: each is allocated once, at its final size.
func TestReserveSizesTheTablesOnce(t *testing.T) {
	const n = 5000
	w := New(Options{})
	w.Reserve(n)
	c := w.Cache()
	table, objs, refs, live := len(c.table), cap(c.objs.data), cap(c.keys.refs), cap(c.live)
	if objs < n || refs < n || live < (n+63)/64 {
		t.Fatalf("after Reserve(%d): room for %d objects, %d key refs, %d live words", n, objs, refs, live)
	}
	for k := range n {
		p := reservePod(k)
		w.Set(Key(p), p)
	}
	if len(c.table) != table || cap(c.objs.data) != objs || cap(c.keys.refs) != refs || cap(c.live) != live {
		t.Errorf("storing %d objects after Reserve grew the tables: table %d -> %d, objs %d -> %d, refs %d -> %d, live %d -> %d",
			n, table, len(c.table), objs, cap(c.objs.data), refs, cap(c.keys.refs), live, cap(c.live))
	}
	if got := c.Len(); got != n {
		t.Errorf("Len = %d, want %d", got, n)
	}
}

// Reserve on a cache that holds objects rehashes without losing any, and
// where there is room already it changes nothing.
func TestReserveKeepsWhatIsStored(t *testing.T) {
	w := New(Options{})
	for k := range 100 {
		p := reservePod(k)
		w.Set(Key(p), p)
	}
	w.Delete(Key(reservePod(3)))
	c := w.Cache()
	w.Reserve(50) // room already
	table := len(c.table)
	w.Reserve(10_000)
	if len(c.table) <= table {
		t.Errorf("Reserve(10000) left the table at %d slots", len(c.table))
	}
	for k := range 100 {
		got, ok := c.Get(Key(reservePod(k)))
		if want := k != 3; ok != want || ok && got.GetName() != fmt.Sprintf("pod-%d", k) {
			t.Errorf("Get(pod-%d) after Reserve = %v, %v; want present %v", k, got, ok, want)
		}
	}
	if got := c.Len(); got != 99 {
		t.Errorf("Len = %d, want 99", got)
	}
	p := reservePod(3)
	w.Set(Key(p), p) // reuses the freed id
	if got := len(c.objs.data); got != 100 {
		t.Errorf("%d ids in use after re-adding the deleted object, want 100", got)
	}
}
