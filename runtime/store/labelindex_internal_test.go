package store

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestLabelIndexIsLazy checks that only a selector the label index can answer
// builds it, so users that never select by label never pay for it.
func TestLabelIndexIsLazy(t *testing.T) {
	w := New(Options[*corev1.Pod]{})
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Labels: map[string]string{"k": "v"}}}
	w.Set(Key(p), p)
	ix := w.Indexer()
	for _, s := range []string{"", "k!=v", "k", "!k", "k notin (x)"} {
		sel, err := labels.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ix.ListSelector("", sel)
		ix.ListSelector("ns", sel)
	}
	ix.List()
	if ix.labels != nil || ix.labelsBuilt.Load() {
		t.Fatal("label index built by a read that cannot use it")
	}
	if got := ix.ListSelector("", labels.SelectorFromSet(labels.Set{"k": "v"})); len(got) != 1 {
		t.Fatalf("k=v matched %d objects, want 1", len(got))
	}
	if ix.labels == nil || !ix.labelsBuilt.Load() {
		t.Fatal("label index not built by an equality selector")
	}
	// Maintained from then on, and emptied keys are dropped.
	w.Delete(Key(p))
	if len(ix.labels) != 0 {
		t.Fatalf("label index keeps %d keys after the last object went", len(ix.labels))
	}
}
