package controllerruntime_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var errForbidden = errors.New("configmaps is forbidden (test)")

// forbiddenLW fails every LIST and WATCH.
type forbiddenLW struct{}

func (forbiddenLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*corev1.ConfigMap], error) {
	return nil, errForbidden
}
func (forbiddenLW) Watch(context.Context, metav1.ListOptions) (watch.Interface, error) {
	return nil, errForbidden
}

// TestKindWaitForSyncNamesLastError: a source whose informer cannot list
// times out with the informer's last error; a cancelled wait is not an
// error (as controller-runtime's Kind); Start twice is an error.
func TestKindWaitForSyncNamesLastError(t *testing.T) {
	// Virtual time: the 2 s wait and the informer's backoff cost no real
	// time, and a busy machine cannot make the LIST miss the wait.
	synctest.Test(t, func(t *testing.T) {
		inf := informer.New[*corev1.ConfigMap](forbiddenLW{}, informer.Options[*corev1.ConfigMap]{Reflector: reflector.Options{Name: "configmaps"}})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- inf.Run(ctx) }()
		defer func() {
			cancel()
			<-done
		}()

		src := crinformers.Kind(inf, &handler.TypedEnqueueRequestForObject[*corev1.ConfigMap]{})
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
	})
}
