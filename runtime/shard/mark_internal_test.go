package shard

import (
	"context"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/reflector"
)

// noAPI satisfies LeaseClient and ListerWatcher for tests that drive the
// shard's state by hand; it is never called.
type noAPI struct{ LeaseClient }

func (noAPI) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*coordinationv1.Lease], error) {
	panic("not called")
}
func (noAPI) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) { panic("not called") }

func testLease(id, rv, view string) *coordinationv1.Lease {
	dur := int32(15)
	return &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: "g-" + id, ResourceVersion: rv,
			Labels: map[string]string{GroupLabel: "g"}, Annotations: map[string]string{viewAnnotation: view}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &id, LeaseDurationSeconds: &dur},
	}
}

// Only a write made after our announcement counts as a member's ack: not
// the write that was there before, nor the same write delivered again by a
// relist. Views recur (a member leaves and the old membership is back), so
// a write carrying the same view from before would otherwise count.
func TestAckCountsOnlyWritesAfterTheMark(t *testing.T) {
	s, err := New(Options{Group: "g", Identity: "a", Leases: noAPI{}, Source: noAPI{}})
	if err != nil {
		t.Fatal(err)
	}
	ab := newView([]string{"a", "b"})
	s.mu.Lock()
	s.leasesSynced, s.lastRenew = true, time.Now()
	s.mu.Unlock()

	// b already announced [a b] (say, from an earlier epoch) before we did.
	s.observe(testLease("b", "1", ab.id), false)
	if s.target.id != ab.id {
		t.Fatalf("target %v, want [a b]", s.target.members)
	}
	// Our write of [a b] lands (resourceVersion 2) and the watch delivers it.
	s.mu.Lock()
	s.published, s.pubRVs = ab.id, []string{"2"}
	s.mu.Unlock()
	s.observe(testLease("a", "2", ab.id), false)
	if s.marked != ab.id {
		t.Fatal("own write seen, but not marked")
	}
	if m := s.Members(); m != nil {
		t.Fatalf("acting on %v on the strength of b's write from before our announcement", m)
	}
	// A relist delivers b's unchanged Lease again: still not an ack.
	s.observe(testLease("b", "1", ab.id), false)
	if m := s.Members(); m != nil {
		t.Fatalf("acting on %v after a relist redelivered b's old write", m)
	}
	// b renews after our mark, carrying [a b]: that is the ack.
	s.observe(testLease("b", "3", ab.id), false)
	if m := s.Members(); !slices.Equal(m, ab.members) {
		t.Fatalf("acting on %v after b's ack, want %v", m, ab.members)
	}
	// A later write of b carrying another view withdraws its ack.
	s.observe(testLease("b", "4", "ffffffffffffffff"), false)
	s.mu.Lock()
	acked := s.members["b"].acked
	s.mu.Unlock()
	if acked {
		t.Error("b still counted as acking [a b] after it announced another view")
	}
}
