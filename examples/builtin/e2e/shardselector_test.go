package e2e

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/shard"
)

// lowHalf selects the Pods whose uid hash (the API server's shard hash,
// uidHash) is below 2^63.
const lowHalf = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"

// uidHash is the API server's shard hash of uid, from apimachinery's own
// sharding.HashField (16 hex digits), so the test checks the server against
// the server's definition rather than against runtime/shard's copy.
func uidHash(uid types.UID) uint64 {
	h, err := strconv.ParseUint(sharding.HashField(string(uid)), 16, 64)
	if err != nil {
		panic(err) // HashField always returns 16 hex digits
	}
	return h
}

// TestShardSelectorOnPods: with ShardedListAndWatch on, the API server
// filters built-in resources by shardSelector: shard.ServerSelects says so (from the list's
// shardInfo at the first request); a LIST with a selector of half the hash
// space returns exactly the Pods whose uidHash falls in it and echoes
// the selector in metadata.shardInfo; and a WATCH with that selector,
// through an update of every Pod, delivers exactly the updates of those
// Pods.
func TestShardSelectorOnPods(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	ns := namespace(t, "shardselector")
	const n = 100
	if err := createPods(ctx, ns, 0, n); err != nil {
		t.Fatal(err)
	}
	ok, err := shard.ServerSelects(ctx, client.CoreV1().RESTClient(), ns, "pods")
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatal("ServerSelects(pods) = false on a server with ShardedListAndWatch")
	}

	all, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[types.UID]bool{}
	for _, p := range all.Items {
		if uidHash(p.UID) < 1<<63 {
			want[p.UID] = true
		}
	}
	if len(want) == 0 || len(want) == n {
		t.Fatalf("%d of %d Pods hash into the low half: the test needs some on each side", len(want), n)
	}
	low, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{ShardSelector: lowHalf})
	if err != nil {
		t.Fatal(err)
	}
	if low.ShardInfo == nil || low.ShardInfo.Selector != lowHalf {
		t.Errorf("list shardInfo = %+v, want the selector %q echoed", low.ShardInfo, lowHalf)
	}
	got := map[types.UID]bool{}
	for _, p := range low.Items {
		got[p.UID] = true
		if !want[p.UID] {
			t.Errorf("low half lists %s, whose uid hash is %#x", p.Name, uidHash(p.UID))
		}
	}
	if len(got) != len(want) {
		t.Errorf("low half lists %d Pods, want %d of %d", len(got), len(want), n)
	}

	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ShardSelector: lowHalf, ResourceVersion: low.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	patch := []byte(`{"metadata":{"labels":{"touched":"yes"}}}`)
	if err := parallel(ctx, 8, 0, n, func(i int) error {
		_, err := client.CoreV1().Pods(ns).Patch(ctx, fmt.Sprintf("pod-%d", i), types.MergePatchType, patch, metav1.PatchOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	// Then one low-half Pod once more: a watch delivers in resourceVersion
	// order, so when this update arrives every earlier one has.
	if len(low.Items) == 0 {
		t.FailNow()
	}
	last, err := client.CoreV1().Pods(ns).Patch(ctx, low.Items[0].Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"twice"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[types.UID]bool{}
	for {
		select {
		case ev, open := <-w.ResultChan():
			if !open {
				t.Fatalf("the watch closed after %d of %d updates of the low half", len(seen), len(want))
			}
			p, isPod := ev.Object.(*corev1.Pod)
			if ev.Type != watch.Modified || !isPod {
				t.Fatalf("watch delivered %s %T, want MODIFIED Pods", ev.Type, ev.Object)
			}
			if !want[p.UID] {
				t.Errorf("watch delivered %s, outside the low half (hash %#x)", p.Name, uidHash(p.UID))
			}
			if p.ResourceVersion != last.ResourceVersion {
				seen[p.UID] = true
				continue
			}
			if len(seen) != len(want) {
				t.Errorf("the watch delivered updates of %d Pods before the last one, want the %d of the low half", len(seen), len(want))
			}
			return
		case <-ctx.Done():
			t.Fatalf("the watch delivered updates of %d of the %d Pods of the low half, and not the last one", len(seen), len(want))
		}
	}
}
