package cache

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func arenaBytes(a *keyArena) int {
	n := 0
	for _, c := range a.chunks {
		n += cap(c)
	}
	return n
}

// Deleting most keys rewrites the arena (its size follows the live keys),
// and every surviving key, an odd key (not Key(obj)) and a key larger than
// a chunk still resolve, before and after the rewrite.
func TestKeyArenaCompactsAndKeepsKeys(t *testing.T) {
	w := New(Options{})
	ix := w.Cache()
	cm := func(i int) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "namespace", Name: fmt.Sprintf("%s-%d", strings.Repeat("n", 60), i)}}
	}
	const n = 20000
	for i := range n {
		o := cm(i)
		w.Set(Key(o), o)
	}
	odd := cm(-1)
	w.Set("odd key", odd)
	big := cm(-2)
	bigKey := strings.Repeat("k", 3*keyChunk)
	w.Set(bigKey, big)
	full := arenaBytes(&ix.keys)

	for i := range n - 100 {
		if _, ok := w.Delete(Key(cm(i))); !ok {
			t.Fatalf("delete %d: missing", i)
		}
	}
	if got := arenaBytes(&ix.keys); got >= full/4 {
		t.Fatalf("arena holds %d bytes after deleting %d of %d keys (was %d): not compacted", got, n-100, n, full)
	}
	if ix.keys.garbage > ix.keys.live+keyChunk {
		t.Fatalf("garbage %d outweighs live %d after compaction", ix.keys.garbage, ix.keys.live)
	}
	for i := range n {
		o, ok := ix.Get(Key(cm(i)))
		if want := i >= n-100; ok != want || (ok && o.GetName() != cm(i).Name) {
			t.Fatalf("Get %d = %v, %v; want present=%v", i, o, ok, want)
		}
	}
	if o, ok := ix.Get("odd key"); !ok || o != odd {
		t.Fatal("odd key lost")
	}
	if _, ok := ix.Get(Key(odd)); ok {
		t.Fatal("an object stored under an odd key is found under Key(obj)")
	}
	if o, ok := ix.Get(bigKey); !ok || o != big {
		t.Fatal("key larger than a chunk lost")
	}
	keys := ix.ListKeys()
	if len(keys) != 102 || !slices.Contains(keys, "odd key") || !slices.Contains(keys, bigKey) {
		t.Fatalf("ListKeys: %d keys, odd %v, big %v", len(keys), slices.Contains(keys, "odd key"), slices.Contains(keys, bigKey))
	}
	// Freed ids are reused with their new keys.
	for i := range 1000 {
		o := cm(n + i)
		w.Set(Key(o), o)
	}
	for i := range 1000 {
		if o, ok := ix.Get(Key(cm(n + i))); !ok || o.GetName() != cm(n+i).Name {
			t.Fatalf("re-added %d not found", n+i)
		}
	}
	if got := ix.Len(); got != 1102 {
		t.Fatalf("Len = %d, want 1102", got)
	}
}
