package factory_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// TestFactoryDecodesWithTheJSONCodec: the factory's REST source decodes with
// wire's JSON codec (an event that does not decode reaches the watch error
// handler as a DecodeError naming the object, and the watch goes on), not
// with the REST client's serializer (which would end the watch).
func TestFactoryDecodesWithTheJSONCodec(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("ns1", "a", "n1", nil))
	ctx := deadline(t)
	var (
		mu   sync.Mutex
		errs []error
		seen = make(chan struct{}, 1)
	)
	opts := factory.Options{HTTPClient: srv.HTTPClient()}
	opts.Reflector.WatchErrorHandler = func(_ context.Context, err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
		select {
		case seen <- struct{}{}:
		default:
		}
	}
	f := factory.New(srv.Config(), opts)
	defer f.Shutdown()
	gotB := make(chan struct{})
	startWatching(ctx, t, f, srv, func(w *lwt.Widget) {
		if w.Name == "b" {
			close(gotB)
		}
	})
	srv.SendRaw([]byte(`{"type":"ADDED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"namespace":"ns1","name":"bad","resourceVersion":"40"},"spec":{"size":[]}}}` + "\n"))
	srv.Add(widget("ns1", "b", "n1", nil))
	select {
	case <-seen:
	case <-ctx.Done():
		t.Fatal("the malformed event was not reported")
	}
	select {
	case <-gotB:
	case <-ctx.Done():
		t.Fatal("the event after the malformed one did not arrive")
	}
	mu.Lock()
	defer mu.Unlock()
	var de *wire.DecodeError
	if len(errs) != 1 || !errors.Is(errs[0], reflector.ErrMalformedEvent) || !errors.As(errs[0], &de) || de.Key != "ns1/bad" || de.ResourceVersion != "40" {
		t.Fatalf("watch errors %v: want one ErrMalformedEvent with a DecodeError for ns1/bad@40", errs)
	}
}

// TestManagedFieldsSkippedOnlyWhenNothingReadsThem: an informer that drops
// managedFields and has no Transform has them skipped by the JSON decoder
// (an event whose managedFields entries are malformed still arrives, since
// they are never decoded); with a Transform they are decoded, so the
// Transform sees them, and dropped after it.
func TestManagedFieldsSkippedOnlyWhenNothingReadsThem(t *testing.T) {
	const badManagedFields = `{"type":"ADDED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"namespace":"ns1","name":"skipped","resourceVersion":"40","managedFields":[{"manager":5}]}}}` + "\n"
	withManagedFields := func(w *lwt.Widget) *lwt.Widget {
		w.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate}}
		return w
	}
	run := func(t *testing.T, opts factory.Options, add func(*lwt.Server), want string) (*lwt.Widget, []error) {
		srv := lwt.NewServer(t)
		ctx := deadline(t)
		var (
			mu   sync.Mutex
			errs []error
		)
		opts.HTTPClient = srv.HTTPClient()
		opts.Reflector.WatchErrorHandler = func(_ context.Context, err error) {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
		f := factory.New(srv.Config(), opts)
		defer f.Shutdown()
		got := make(chan *lwt.Widget, 1)
		startWatching(ctx, t, f, srv, func(w *lwt.Widget) {
			if w.Name == want {
				got <- w
			}
		})
		add(srv)
		select {
		case w := <-got:
			mu.Lock()
			defer mu.Unlock()
			return w, errs
		case <-ctx.Done():
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s did not arrive; watch errors: %v", want, errs)
			return nil, nil
		}
	}

	t.Run("defaults skip them", func(t *testing.T) {
		w, errs := run(t, factory.Options{}, func(srv *lwt.Server) { srv.SendRaw([]byte(badManagedFields)) }, "skipped")
		if len(errs) != 0 || len(w.ManagedFields) != 0 {
			t.Fatalf("managedFields %v, watch errors %v: want them skipped without an error", w.ManagedFields, errs)
		}
	})
	t.Run("KeepManagedFields decodes them", func(t *testing.T) {
		w, _ := run(t, factory.Options{KeepManagedFields: true}, func(srv *lwt.Server) { srv.Add(withManagedFields(widget("ns1", "kept", "n1", nil))) }, "kept")
		if len(w.ManagedFields) != 1 || w.ManagedFields[0].Manager != "kubectl" {
			t.Fatalf("managedFields %v: want the server's", w.ManagedFields)
		}
	})
	t.Run("a Transform sees them", func(t *testing.T) {
		var mu sync.Mutex
		seen := map[string]int{}
		opts := factory.Options{Transform: func(obj runtime.Object) (runtime.Object, error) {
			w := obj.(*lwt.Widget)
			mu.Lock()
			seen[w.Name] = len(w.ManagedFields)
			mu.Unlock()
			return obj, nil
		}}
		w, _ := run(t, opts, func(srv *lwt.Server) { srv.Add(withManagedFields(widget("ns1", "transformed", "n1", nil))) }, "transformed")
		mu.Lock()
		defer mu.Unlock()
		if seen["transformed"] != 1 || len(w.ManagedFields) != 0 {
			t.Fatalf("the Transform saw %d managedFields entries, the cache holds %d: want 1, then dropped", seen["transformed"], len(w.ManagedFields))
		}
	})
}

// startWatching starts f's Widget informer with onAdd as its add handler and
// returns once it has synced and watches srv.
func startWatching(ctx context.Context, t *testing.T, f *factory.Factory, srv *lwt.Server, onAdd func(*lwt.Widget)) {
	t.Helper()
	inf := factory.InformerFor(f, WidgetType)
	if _, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{AddFunc: func(w *lwt.Widget, _ bool) { onAdd(w) }}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitForWatchers(ctx, 1); err != nil {
		t.Fatal(err)
	}
}
