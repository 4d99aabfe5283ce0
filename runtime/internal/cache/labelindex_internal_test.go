package cache

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestLabelIndexIsLazy checks that only a selector the label index can answer
// builds it, so users that never select by label never pay for it.
func TestLabelIndexIsLazy(t *testing.T) {
	w := New(Options{})
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Labels: map[string]string{"k": "v"}}}
	w.Set(Key(p), p)
	ix := w.Cache()
	for _, s := range []string{"", "k!=v", "k", "!k", "k notin (x)"} {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ix.ListSelector("", sel)
		ix.ListSelector("ns", sel)
	}
	ix.List()
	if len(ix.labels) != 0 {
		t.Fatal("label index built by a read that cannot use it")
	}
	if got := ix.ListSelector("", labels.SelectorFromSet(labels.Set{"k": "v"})); len(got) != 1 {
		t.Fatalf("k=v matched %d objects, want 1", len(got))
	}
	if len(ix.labels) != 1 || len(ix.labels["k"]) != 1 {
		t.Fatalf("label index = %v, want key k with one value", ix.labels)
	}
	// Only the keys asked for are indexed.
	q := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b", Labels: map[string]string{"k": "w", "other": "x"}}}
	w.Set(Key(q), q)
	if _, ok := ix.labels["other"]; ok {
		t.Fatal("a label key nobody selected on was indexed")
	}
	if got := ix.ListSelector("ns", labels.SelectorFromSet(labels.Set{"k": "w", "other": "x"})); len(got) != 1 || got[0] != Obj(q) {
		t.Fatalf("k=w,other=x matched %d objects, want b", len(got))
	}
	if len(ix.labels["other"]) != 1 {
		t.Fatal("key other not indexed after a selector asked for it")
	}
	// Maintained from then on; a value's posting goes when its last object does.
	w.Delete(Key(p))
	w.Delete(Key(q))
	if len(ix.labels["k"])+len(ix.labels["other"]) != 0 {
		t.Fatalf("label index keeps values after the last object went: %v", ix.labels)
	}
}
