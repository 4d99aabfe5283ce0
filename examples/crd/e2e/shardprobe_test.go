package e2e

import (
	"testing"

	"github.com/informer-gen/informer-gen/runtime/shard"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
)

// Without the ShardedListAndWatch gate (this package's server) the API
// server neither refuses a shardSelector nor applies it: the list is full,
// and shard.ServerSelects says false, so a replica falls back to watching
// everything (client-side sharding). With the gate, see e2e/shardedwatch.
func TestShardSelectorIgnoredWithoutGate(t *testing.T) {
	ctx := t.Context()
	const ns = "shardprobe"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 20, nil); err != nil {
		t.Fatal(err)
	}
	var low samplev1.FooList
	err := client.Get().Namespace(ns).Resource("foos").
		Param("shardSelector", "shardRange(object.metadata.uid, '0x0000000000000000', '0x0000000000000001')").
		Do(ctx).Into(&low)
	if err != nil {
		t.Fatalf("a shardSelector without the gate: %v, want it ignored", err)
	}
	if len(low.Items) != 20 {
		t.Errorf("listed %d Foos with a selector of one hash, want all 20 (ignored)", len(low.Items))
	}
	ok, err := shard.ServerSelects(ctx, client, ns, "foos")
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		t.Error("ServerSelects = true on a server without ShardedListAndWatch")
	}
	// An empty collection gives no evidence: false, the safe answer.
	if ok, err := shard.ServerSelects(ctx, client, "shardprobe-empty", "foos"); err != nil || ok {
		t.Errorf("ServerSelects on no objects = %v, %v; want false, nil", ok, err)
	}
}
