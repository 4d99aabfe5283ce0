package factory_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	lwt "github.com/informer-gen/informer-gen/runtime/listwatch/listwatchtest"
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
	inf := factory.InformerFor(f, WidgetType)
	gotB := make(chan struct{})
	if _, err := inf.AddHandler(informer.HandlerFuncs[*lwt.Widget]{AddFunc: func(w *lwt.Widget, _ bool) {
		if w.Name == "b" {
			close(gotB)
		}
	}}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitForWatchers(ctx, 1); err != nil {
		t.Fatal(err)
	}
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
