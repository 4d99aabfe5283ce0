package informer_test

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
)

// A controller test seeds the cache of an informer it never runs, then calls
// its sync function, which reads through listers and indexes.
func TestSeedFillsTheCacheOfAnInformerNotRun(t *testing.T) {
	src := runtimetest.NewSource[CM](runtimetest.SourceOptions{})
	inf := informer.New[CM](src, informer.Options[CM]{Indexers: store.Indexers[CM]{
		"v": func(o CM) ([]string, error) { return []string{o.Data["v"]}, nil },
	}})
	rec := new(runtimetest.Recorder[CM])
	if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := inf.Seed(cm("ns", "a", "x"), cm("ns", "b", "y"), cm("", "c", "x")); err != nil {
		t.Fatalf("Seed: %v", err)
	}
	if err := inf.Seed(cm("ns", "a", "z")); err != nil {
		t.Fatalf("Seed again: %v", err)
	}
	if got, ok := inf.Indexer().Get("ns/a"); !ok || got.Data["v"] != "z" {
		t.Errorf("Get(ns/a) = %v, %v; want the second seed", got, ok)
	}
	keys := inf.Indexer().ListKeys()
	slices.Sort(keys)
	if want := []string{"c", "ns/a", "ns/b"}; !slices.Equal(keys, want) {
		t.Errorf("ListKeys = %q, want %q", keys, want)
	}
	byX, err := inf.Indexer().IndexKeys("v", "x")
	if err != nil || !slices.Equal(byX, []string{"c"}) {
		t.Errorf(`IndexKeys("v", "x") = %q, %v; want [c]`, byX, err)
	}
	if inf.HasSynced() {
		t.Error("HasSynced after Seed = true, want false")
	}
	if ev := rec.Events(); len(ev) != 0 {
		t.Errorf("handler events after Seed = %v, want none", ev)
	}

	// A nameless object stores nothing of the call.
	err = inf.Seed(cm("ns", "d"), cm("ns", ""))
	if err == nil || !strings.Contains(err.Error(), "object 1") {
		t.Errorf("Seed of a nameless object = %v, want an error naming it", err)
	}
	if _, ok := inf.Indexer().Get("ns/d"); ok {
		t.Error("a failed Seed stored ns/d")
	}
}

func TestSeedAfterRunIsAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource[CM](runtimetest.SourceOptions{})
		inf := informer.New[CM](src, informer.Options[CM]{})
		run(t, inf)
		synctest.Wait()
		if err := inf.Seed(cm("ns", "a")); err == nil || !strings.Contains(err.Error(), "already run") {
			t.Errorf("Seed after Run = %v, want an error", err)
		}
		if n := inf.Indexer().Len(); n != 0 {
			t.Errorf("cache after a refused Seed holds %d objects", n)
		}
	})
}
