package controllerruntime_test

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

var errForbidden = errors.New("foos is forbidden (test)")

// forbiddenLW fails every LIST and WATCH.
type forbiddenLW struct{}

func (forbiddenLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*samplev1.Foo], error) {
	return nil, errForbidden
}
func (forbiddenLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errForbidden
}

// TestKindWaitForSyncNamesLastError: a source whose informer cannot list
// times out with the informer's last error; a cancelled wait is not an
// error (as controller-runtime's Kind); Start twice is an error.
func TestKindWaitForSyncNamesLastError(t *testing.T) {
	inf := informer.New[*samplev1.Foo](forbiddenLW{}, informer.Options[*samplev1.Foo]{Reflector: reflector.Options{Name: "foos"}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- inf.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()

	src := crinformers.Kind(inf, &handler.TypedEnqueueRequestForObject[*samplev1.Foo]{})
	q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
	defer q.ShutDown()
	if err := src.Start(ctx, q); err != nil {
		t.Fatal(err)
	}
	if err := src.Start(ctx, q); err == nil {
		t.Error("second Start: nil error")
	}
	wctx, wcancel := context.WithTimeout(ctx, 2*time.Second)
	defer wcancel()
	err := src.WaitForSync(wctx)
	if !errors.Is(err, errForbidden) {
		t.Fatalf("WaitForSync = %v, want an error wrapping the informer's last error", err)
	}
	cctx, ccancel := context.WithCancel(ctx)
	ccancel()
	if err := src.WaitForSync(cctx); err != nil {
		t.Errorf("WaitForSync with a cancelled ctx = %v, want nil", err)
	}
}
