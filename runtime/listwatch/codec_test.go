package listwatch_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/listwatch"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// TestCodecErrorsStayAPIErrors: with a Codec, a non-2xx LIST or WATCH
// response is still the apierrors error the reflector classifies.
func TestCodecErrorsStayAPIErrors(t *testing.T) { forBoth(t, testCodecErrorsStayAPIErrors) }

func testCodecErrorsStayAPIErrors(t *testing.T) {
	gr := schema.GroupResource{Group: lwt.GVR.GroupVersion().Group, Resource: lwt.GVR.Resource}
	for _, c := range []struct {
		name   string
		status *apierrors.StatusError
		is     func(error) bool
	}{
		{"expired", apierrors.NewResourceExpired("too old"), apierrors.IsResourceExpired},
		{"gone", apierrors.NewGone("gone"), apierrors.IsGone},
		{"invalid", apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: "Widget"}, "w", nil), apierrors.IsInvalid},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 7), func(err error) bool {
			d, ok := apierrors.SuggestsClientDelay(err)
			return ok && d == 7 && apierrors.IsTooManyRequests(err)
		}},
		{"forbidden", apierrors.NewForbidden(gr, "", errors.New("no")), apierrors.IsForbidden},
	} {
		srv := lwt.NewServer(t)
		st := c.status.Status()
		st.APIVersion, st.Kind = "v1", "Status"
		srv.Fail(&st)
		lw := newLW(t, srv, listwatch.Options[*lwt.Widget, *lwt.WidgetList]{Namespace: "ns1"})
		_, err := lw.List(t.Context(), metav1.ListOptions{})
		if !c.is(err) || !strings.Contains(err.Error(), "widgets in namespace ns1") {
			t.Errorf("%s: List error %v", c.name, err)
		}
		_, err = lw.Watch(t.Context(), metav1.ListOptions{})
		if !c.is(err) || !strings.Contains(err.Error(), "widgets in namespace ns1") {
			t.Errorf("%s: Watch error %v", c.name, err)
		}
	}
}

func nextEvent(t *testing.T, w watch.Interface) (watch.Event, bool) {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		return ev, ok
	case <-time.After(10 * time.Second): // a safety net against hanging, not a timing assertion
		t.Fatal("no event")
		return watch.Event{}, false
	}
}

// TestCodecWatchMalformedEvents: an event that does not decode arrives as a
// MalformedObject naming the object and the watch goes on; after bytes that
// lose the framing, one MalformedObject and the channel closes.
func TestCodecWatchMalformedEvents(t *testing.T) {
	srv := lwt.NewServer(t)
	lw := listwatch.New(newClient(t, srv), listwatch.Options[*lwt.Widget, *lwt.WidgetList]{
		Resource: lwt.GVR.Resource, Codec: must(wire.NewJSON[*lwt.Widget](lwt.GVR.GroupVersion().WithKind("Widget"))),
	})
	w, err := lw.Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	mustOK(t, srv.WaitForWatchers(t.Context(), 1))
	srv.SendRaw([]byte(`{"type":"ADDED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{"namespace":"ns","name":"bad","resourceVersion":"41"},"spec":{"size":"huge"}}}` + "\n"))
	srv.Add(widget("ns", "good", nil, 1))
	srv.SendRaw([]byte(`{"type":"MODIFIED","object":{"apiVersion":"test.informer-gen.dev/v1","kind":"Widget","metadata":{,,`))

	ev, _ := nextEvent(t, w)
	m, ok := ev.Object.(*reflector.MalformedObject)
	var de *wire.DecodeError
	if !ok || !errors.As(m.Err, &de) || !de.Recoverable || de.Key != "ns/bad" || de.ResourceVersion != "41" || !strings.Contains(m.Err.Error(), "widgets") {
		t.Fatalf("first event %#v, want a recoverable MalformedObject naming ns/bad@41 and the resource", ev.Object)
	}
	ev, _ = nextEvent(t, w)
	if g, ok := ev.Object.(*lwt.Widget); !ok || g.Name != "good" || ev.Type != watch.Added {
		t.Fatalf("second event %s %#v", ev.Type, ev.Object)
	}
	ev, _ = nextEvent(t, w)
	if m, ok := ev.Object.(*reflector.MalformedObject); !ok || !errors.As(m.Err, &de) || de.Recoverable {
		t.Fatalf("third event %#v, want an unrecoverable MalformedObject", ev.Object)
	}
	if _, open := nextEvent(t, w); open {
		t.Fatal("watch still open after the framing was lost")
	}
}

// TestCodecWatchStatusAndStop: an ERROR event carries a *metav1.Status;
// Stop closes the channel (and goleak checks the goroutine went).
func TestCodecWatchStatusAndStop(t *testing.T) {
	srv := lwt.NewServer(t)
	lw := listwatch.New(newClient(t, srv), listwatch.Options[*lwt.Widget, *lwt.WidgetList]{
		Resource: lwt.GVR.Resource, Codec: must(wire.NewJSON[*lwt.Widget](lwt.GVR.GroupVersion().WithKind("Widget"))),
	})
	w, err := lw.Watch(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustOK(t, srv.WaitForWatchers(t.Context(), 1))
	srv.SendRaw([]byte(`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410}}`))
	ev, _ := nextEvent(t, w)
	if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || !apierrors.IsResourceExpired(apierrors.FromObject(st)) {
		t.Fatalf("ERROR event %s %#v", ev.Type, ev.Object)
	}
	w.Stop()
	for range w.ResultChan() {
	}
	w.Stop()
}

func newClient(t *testing.T, srv *lwt.Server) *restClient {
	t.Helper()
	scheme := newScheme(t)
	c, err := listwatch.NewRESTClient(srv.Config(), srv.HTTPClient(), scheme, lwt.GVR.GroupVersion())
	mustOK(t, err)
	return c
}

func mustOK(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type restClient = rest.RESTClient

func newScheme(t *testing.T) *runtime.Scheme {
	scheme := runtime.NewScheme()
	mustOK(t, lwt.AddToScheme(scheme))
	return scheme
}

// TestFallbackCodecAfterNotAcceptable: a server that refuses the codec's
// media type (406, as for a custom resource asked for CBOR without the
// feature gate) is asked again at once with the fallback codec, and every
// later request uses the fallback without asking for the refused type again.
func TestFallbackCodecAfterNotAcceptable(t *testing.T) {
	gvk := lwt.GVR.GroupVersion().WithKind("Widget")
	cbor, err := wire.NewCBOR[*lwt.Widget](gvk)
	mustOK(t, err)
	for _, first := range []string{"list", "watch"} {
		t.Run(first+" first", func(t *testing.T) {
			srv := lwt.NewServer(t)
			srv.Add(widget("ns", "a", nil, 1))
			lw := listwatch.New(newClient(t, srv), listwatch.Options[*lwt.Widget, *lwt.WidgetList]{
				Resource: lwt.GVR.Resource, Codec: cbor, FallbackCodec: must(wire.NewJSON[*lwt.Widget](gvk)),
			})
			list := func() {
				res, err := lw.List(t.Context(), metav1.ListOptions{})
				if err != nil || len(res.Items) != 1 || res.Items[0].Name != "a" {
					t.Fatalf("List = %v, %v; want widget a", res, err)
				}
			}
			watchOnce := func() {
				w, err := lw.Watch(t.Context(), metav1.ListOptions{ResourceVersion: srv.ResourceVersion()})
				mustOK(t, err)
				mustOK(t, srv.WaitForWatchers(t.Context(), 1))
				srv.Add(widget("ns", "b", nil, 2))
				if ev, _ := nextEvent(t, w); ev.Type != watch.Added {
					t.Fatalf("watch event %s %#v", ev.Type, ev.Object)
				}
				w.Stop()
			}
			if first == "list" {
				list()
				watchOnce()
			} else {
				watchOnce()
				srv.Delete(widget("ns", "b", nil, 2))
				list()
			}
			var accepts []string
			for _, r := range srv.Requests() {
				accepts = append(accepts, r.Header.Get("Accept"))
			}
			want := []string{"application/cbor", "application/json", "application/json"}
			if strings.Join(accepts, " ") != strings.Join(want, " ") {
				t.Errorf("Accept headers of the requests %q, want %q", accepts, want)
			}
		})
	}
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
