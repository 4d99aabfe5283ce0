package generatedtest_test

import (
	"context"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"

	nodesv1 "github.com/informer-gen/informer-gen/testdata/golden/init-registration/input/pkg/apis/v1"
	nodesinformers "github.com/informer-gen/informer-gen/testdata/golden/init-registration/want/informers"
	nodesv1informers "github.com/informer-gen/informer-gen/testdata/golden/init-registration/want/informers/nodes/v1"
	wfv1 "github.com/informer-gen/informer-gen/testdata/golden/named-slice-items/input/pkg/apis/workflow/v1alpha1"
	wfinformers "github.com/informer-gen/informer-gen/testdata/golden/named-slice-items/want/informers/argoproj/v1alpha1"
	wflisters "github.com/informer-gen/informer-gen/testdata/golden/named-slice-items/want/listers/argoproj/v1alpha1"
)

// TestNamedSliceItemsKind: Workflow's list holds Items Workflows (a named
// slice); its generated informer lists, watches and serves the lister.
func TestNamedSliceItemsKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: wfinformers.WorkflowType.Resource.GroupResource()},
			&wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Namespace: "argo", Name: "a"}, Spec: wfv1.WorkflowSpec{Size: "s"}})
		inf := wfinformers.NewWorkflowInformer(src, informer.Options[*wfv1.Workflow]{})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- inf.Run(ctx) }()
		defer func() { cancel(); <-done }()
		rec := new(runtimetest.Recorder[*wfv1.Workflow])
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := src.Add(&wfv1.Workflow{ObjectMeta: metav1.ObjectMeta{Namespace: "argo", Name: "b"}, Spec: wfv1.WorkflowSpec{Size: "m"}}); err != nil {
			t.Fatal(err)
		}
		want := src.Snapshot()
		if err := rec.WaitFor(ctx, func(got map[string]*wfv1.Workflow) bool { return runtimetest.SameResourceVersions(got, want) }); err != nil {
			t.Fatal(err)
		}
		lister := wflisters.NewWorkflowLister(inf.Indexer())
		b, err := lister.Workflows("argo").Get("b")
		if err != nil || b.Spec.Size != "m" {
			t.Fatalf("lister Get(argo/b) = %v, %v; want the added workflow", b, err)
		}
		all, err := lister.List(nil)
		if err != nil || len(all) != 2 {
			t.Fatalf("lister List = %d workflows, %v; want 2", len(all), err)
		}
		if err := rec.Err(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestInitRegisteredKind: the API package registers NodePool only in an
// init() into client-go's scheme and declares no SchemeGroupVersion or
// AddToScheme; the generated Type carries a group version and an
// AddToScheme of its own, and the factory serves the kind from them.
func TestInitRegisteredKind(t *testing.T) {
	typ := nodesv1informers.NodePoolType
	wantGVR := schema.GroupVersionResource{Group: "nodes.example.com", Version: "v1", Resource: "nodepools"}
	if typ.Resource != wantGVR || typ.Namespaced {
		t.Fatalf("NodePoolType = %v namespaced=%v, want %v cluster-scoped", typ.Resource, typ.Namespaced, wantGVR)
	}
	s := runtime.NewScheme()
	if err := typ.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []runtime.Object{&nodesv1.NodePool{}, &nodesv1.NodePoolList{}, &nodesv1.NodeClaim{}, &nodesv1.NodeClaimList{}} {
		gvks, _, err := s.ObjectKinds(obj)
		if err != nil || len(gvks) != 1 || gvks[0].GroupVersion() != wantGVR.GroupVersion() {
			t.Errorf("scheme kinds of %T = %v, %v; want one in %v", obj, gvks, err, wantGVR.GroupVersion())
		}
	}

	synctest.Test(t, func(t *testing.T) {
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: wantGVR.GroupResource()},
			&nodesv1.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
		opts := factory.Options{}
		opts.Types = append(opts.Types, factory.TypeOptions[*nodesv1.NodePool]{Type: typ, ListerWatcher: src})
		f := nodesinformers.NewSharedInformerFactory(nil, opts)
		defer f.Shutdown()
		pools := f.Nodes().V1().NodePools()
		pools.Informer()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		got, err := pools.Lister().Get("default")
		if err != nil || got.Name != "default" {
			t.Fatalf("lister Get(default) = %v, %v", got, err)
		}
		if _, err := f.ForResource(wantGVR); err != nil {
			t.Fatalf("ForResource(%v): %v", wantGVR, err)
		}
	})
}
