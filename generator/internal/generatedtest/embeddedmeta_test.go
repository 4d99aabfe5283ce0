package generatedtest

import (
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	shopv1 "github.com/informer-gen/informer-gen/testdata/golden/embedded-objectmeta/input/apis/shop/v1"
	informersv1 "github.com/informer-gen/informer-gen/testdata/golden/embedded-objectmeta/want/informers/shop/v1"
	listersv1 "github.com/informer-gen/informer-gen/testdata/golden/embedded-objectmeta/want/listers/shop/v1"
)

// TestObjectMetaThroughEmbeddedStruct: a kind whose ObjectMeta is embedded
// through an inlined struct (the layout the generator accepts) decodes its
// "metadata" from the server's JSON, and its generated informer, lister and
// index on .metadata.generateName see it.
func TestObjectMetaThroughEmbeddedStruct(t *testing.T) {
	var order shopv1.Order
	body := `{"apiVersion":"shop.example.com/v1","kind":"Order","metadata":{"namespace":"ns1","name":"o1","generateName":"o-"},"spec":{"customer":"c1"}}`
	if err := json.Unmarshal([]byte(body), &order); err != nil {
		t.Fatal(err)
	}
	if order.GetNamespace() != "ns1" || order.GetName() != "o1" || order.GetGenerateName() != "o-" {
		t.Fatalf("decoded metadata = %q/%q (generateName %q), want ns1/o1 (o-)", order.GetNamespace(), order.GetName(), order.GetGenerateName())
	}

	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: listersv1.OrderResource}, &order)
		inf := informersv1.NewOrderInformer(src, informer.Options[*shopv1.Order]{})
		runSynced(t, inf)
		lister := listersv1.NewOrderLister(inf.Indexer())
		if got, err := lister.Orders("ns1").Get("o1"); err != nil || got.Spec.Customer != "c1" {
			t.Errorf("Orders(ns1).Get(o1) = %v, %v", got, err)
		}
		if got, err := lister.ByGenerateName("o-"); err != nil || len(got) != 1 || got[0].GetName() != "o1" {
			t.Errorf("ByGenerateName(o-) = %v, %v; want o1", got, err)
		}
		if got, err := lister.Orders("ns2").ByCustomer("c1"); err != nil || len(got) != 0 {
			t.Errorf("Orders(ns2).ByCustomer(c1) = %v, %v; want none", got, err)
		}
	})
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
