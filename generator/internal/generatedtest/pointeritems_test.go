package generatedtest

import (
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	networkingv1 "github.com/informer-gen/informer-gen/testdata/golden/pointer-items/input/apis/networking/v1"
	informersv1 "github.com/informer-gen/informer-gen/testdata/golden/pointer-items/want/informers/networking/v1"
	listersv1 "github.com/informer-gen/informer-gen/testdata/golden/pointer-items/want/listers/networking/v1"
)

func virtualService(ns, name string, hosts ...string) *networkingv1.VirtualService {
	return &networkingv1.VirtualService{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       networkingv1.VirtualServiceSpec{Hosts: hosts},
	}
}

// TestPointerItemsList: a list type with Items []*Kind (istio's style) is
// read through the generated Type without copying, and its informer and
// lister behave as for Items []Kind.
func TestPointerItemsList(t *testing.T) {
	a, b := virtualService("ns1", "a", "a.example.com"), virtualService("ns2", "b")
	items := informersv1.VirtualServiceType.Items(&networkingv1.VirtualServiceList{Items: []*networkingv1.VirtualService{a, b}})
	if len(items) != 2 || items[0] != a || items[1] != b {
		t.Fatalf("VirtualServiceType.Items = %v, want the list's own pointers", items)
	}
	if got := informersv1.VirtualServiceType.Items(informersv1.VirtualServiceType.NewList()); len(got) != 0 {
		t.Errorf("Items of an empty list = %v", got)
	}

	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: listersv1.VirtualServiceResource}, a, b)
		inf := informersv1.NewVirtualServiceInformer(src, informer.Options[*networkingv1.VirtualService]{})
		rec := runtimetest.NewRecorder[*networkingv1.VirtualService]()
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx := runSynced(t, inf)
		lister := listersv1.NewVirtualServiceLister(inf.Indexer())
		got, err := lister.VirtualServices("ns1").Get("a")
		if err != nil || len(got.Spec.Hosts) != 1 || got.Spec.Hosts[0] != "a.example.com" {
			t.Fatalf("VirtualServices(ns1).Get(a) = %v, %v", got, err)
		}
		if _, err := src.Add(virtualService("ns1", "c")); err != nil {
			t.Fatal(err)
		}
		if err := rec.WaitFor(ctx, func(s map[string]*networkingv1.VirtualService) bool { return s["ns1/c"] != nil }); err != nil {
			t.Fatal(err)
		}
		all, err := lister.VirtualServices("ns1").List(labels.Everything())
		if err != nil || len(all) != 2 {
			t.Errorf("VirtualServices(ns1).List = %d items, %v; want a and c", len(all), err)
		}
		if err := rec.Err(); err != nil {
			t.Error(err)
		}
	})
}
