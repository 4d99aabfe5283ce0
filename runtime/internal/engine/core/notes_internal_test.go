package core

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informer-gen/informer-gen/runtime/internal/cache"
	"github.com/informer-gen/informer-gen/runtime/internal/fifo"
)

// A note is queued per handler for every delta (100k of each for an initial
// list of 100k): one interface and two small fields, with an update's
// previous object kept aside.
func TestNoteIsThreeWords(t *testing.T) {
	if got := unsafe.Sizeof(note{}); got > 24 {
		t.Errorf("a note takes %d bytes, want at most 24", got)
	}
}

func noteCM(name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: map[string]string{"v": v}}
}

// Appending buffers renumbers their updates: each update still delivers
// its own previous object.
func TestNoteBufAppendKeepsEachUpdatesOldObject(t *testing.T) {
	a1, a2, b1, b2 := noteCM("a", "1"), noteCM("a", "2"), noteCM("b", "1"), noteCM("b", "2")
	c := noteCM("c", "1")
	var first, second, buf noteBuf
	first.update(a1, a2)
	first.add(note{op: opAdd, obj: c})
	second.add(note{op: opDelete, obj: c})
	second.update(b1, b2)
	buf.appendBuf(first)
	buf.appendBuf(second)
	buf.appendBuf(noteBuf{notes: []note{{op: opSynced}}})

	var got []string
	for k := range buf.notes {
		n := &buf.notes[k]
		switch n.op {
		case opUpdate:
			got = append(got, fmt.Sprintf("update %s %s->%s", n.obj.GetName(), buf.oldOf(n).(*corev1.ConfigMap).Data["v"], n.obj.(*corev1.ConfigMap).Data["v"]))
		case opSynced:
			got = append(got, "synced")
		default:
			got = append(got, n.op.String()+" "+n.obj.GetName())
		}
	}
	want := []string{"update a 1->2", "add c", "delete c", "update b 1->2", "synced"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("notes = %q, want %q", got, want)
	}
	if len(buf.olds) != 2 {
		t.Errorf("olds holds %d objects, want 2 (one per update)", len(buf.olds))
	}
}

// A batch of n deltas allocates its notes once, in the pop loop and in each
// listener's buffer, whatever n is: not a slice grown by append (about 40
// allocations and five times the notes' size for 20k). An update costs a
// 24-byte note and a 16-byte old object in each place.
func TestBatchNotesAreAllocatedOnce(t *testing.T) {
	const n = 20_000
	i, _ := newShared(Options{}, reflect.TypeFor[*corev1.ConfigMap](), nil)
	objs := make([]cache.Obj, n)
	for k := range objs {
		objs[k] = noteCM(fmt.Sprintf("cm-%d", k), "1")
	}
	if err := i.Seed(objs...); err != nil {
		t.Fatal(err)
	}
	if _, err := i.AddHandler(nopHandler{}, HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	l := i.handlers[0]
	// Updates of every cached key, under the same keys and namespace (the
	// cache's own work then allocates nothing).
	batch := fifo.Batch[cache.Obj]{Atomic: true, ResourceVersion: "2"}
	for k, o := range objs {
		batch.Deltas = append(batch.Deltas, fifo.Delta[cache.Obj]{Type: fifo.Replaced, Key: fmt.Sprintf("ns/cm-%d", k), Object: o})
	}
	drain := func() {
		l.mu.Lock()
		if got := len(l.buf.notes); got != n && got != 2*n {
			t.Errorf("the listener holds %d notes, want %d", got, n)
		}
		l.buf.reset()
		l.mu.Unlock()
	}
	drain() // AddHandler's own notes (n adds)

	var before, after runtime.MemStats
	allocs := testing.AllocsPerRun(5, func() {
		runtime.ReadMemStats(&before)
		if err := i.process(batch); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		drain()
	})
	// Notes and olds, in the pop loop and in the listener: 4; the cache's
	// transaction and the relist's (disabled) log line, the rest.
	if allocs > 12 {
		t.Errorf("processing a batch of %d updates made %v allocations, want at most 12", n, allocs)
	}
	if perDelta := float64(after.TotalAlloc-before.TotalAlloc) / n; perDelta > 2*(24+16)+8 {
		t.Errorf("processing a batch of %d updates allocated %.1f B per delta, want at most %d", n, perDelta, 2*(24+16)+8)
	}
}
