package e2e_test

import (
	"context"
	"testing"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	v1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/freshness"
	"github.com/informer-gen/informer-gen/runtime/informer"
)

// guideOwnWrites is docs/guide.md's controller-runtime controller that reads
// its own writes ("Reading your own writes"); docs/snippets_test.go checks
// the block against the region.
func guideOwnWrites(mgr manager.Manager, fooInformer *informer.Informer[*v1.Foo], r reconcile.Reconciler) error {
	// doc:begin guide-ownwrites
	ow := crinformers.NewOwnWrites(&freshness.Tracker[reconcile.Request]{})
	res := freshness.Resource{Name: "foos", Cache: fooInformer.Indexer()}
	err := ctrl.NewControllerManagedBy(mgr).
		Named("foo"). // no For(): the sources are informer-gen's, so the controller needs a name
		WatchesRawSource(crinformers.Kind(fooInformer, &handler.TypedEnqueueRequestForObject[*v1.Foo]{})).
		WatchesRawSource(ow).
		Complete(ow.Reconciler(r))
	// in r, after a successful write: ow.Tracker().Wrote(req, res, written)
	// doc:end guide-ownwrites
	_ = res
	return err
}

// TestDocOwnWritesBuilds: the guide's builder is one controller-runtime
// accepts (Complete refuses a controller with neither For nor Named), not
// only code that compiles.
func TestDocOwnWritesBuilds(t *testing.T) {
	mgr, err := ctrl.NewManager(server.Config(), managerOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(server.Config(), factory.Options{})
	r := reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil })
	if err := guideOwnWrites(mgr, f.Samplecontroller().V1().Foos().Informer(), r); err != nil {
		t.Fatalf("the guide's controller: %v", err)
	}
}
