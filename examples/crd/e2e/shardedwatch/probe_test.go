package shardedwatch

import (
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"

	"github.com/informer-gen/informer-gen/runtime/shard"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
)

// The custom-resource path honours shardSelector with the gate on:
// ServerSelects says so, and a selector of half the hash
// space lists exactly the Foos whose uid hash falls in it.
func TestCustomResourcesHonourShardSelector(t *testing.T) {
	ctx := t.Context()
	const ns = "probe"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 100, nil); err != nil {
		t.Fatal(err)
	}
	ok, err := shard.ServerSelects(ctx, client, ns, "foos")
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		t.Fatal("ServerSelects = false on a server with ShardedListAndWatch")
	}
	var all, low samplev1.FooList
	if err := client.Get().Namespace(ns).Resource("foos").Do(ctx).Into(&all); err != nil {
		t.Fatal(err)
	}
	lowSel := "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')"
	if err := client.Get().Namespace(ns).Resource("foos").Param("shardSelector", lowSel).Do(ctx).Into(&low); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, f := range all.Items {
		if uidHash(f.UID) < 1<<63 {
			want++
		}
	}
	if len(low.Items) != want || want == 0 || want == len(all.Items) {
		t.Errorf("low half lists %d of %d Foos, want %d", len(low.Items), len(all.Items), want)
	}
	for _, f := range low.Items {
		if uidHash(f.UID) >= 1<<63 {
			t.Errorf("low half lists %s, whose uid hash is %#x", f.Name, uidHash(f.UID))
		}
	}
	// What ServerSelects works around: custom-resource lists do not echo
	// the selector (UnstructuredList has no SetShardInfo in v0.37.2). If
	// this starts failing, the server now does, and the first probe
	// suffices.
	if low.ShardInfo != nil {
		t.Logf("shardInfo = %+v: custom-resource lists now echo the selector", low.ShardInfo)
	}
}

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
