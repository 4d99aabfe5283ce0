package factory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sprotobuf "k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	lwt "github.com/informer-gen/informer-gen/internal/listwatchtest"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/reflector"
	"github.com/informer-gen/informer-gen/runtime/store"
	pbcorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-protobuf/want/informers/core/v1"
)

// WidgetSummary is what informer-gen would generate for a projection of
// Widget that keeps .spec.nodeName: Widget's metadata and that one field.
type WidgetSummary struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSummarySpec `json:"spec"`
}

type WidgetSummarySpec struct {
	NodeName string `json:"nodeName,omitempty"`
}

func (w *WidgetSummary) DeepCopyInto(out *WidgetSummary) {
	*out = *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

func (w *WidgetSummary) DeepCopy() *WidgetSummary {
	if w == nil {
		return nil
	}
	out := new(WidgetSummary)
	w.DeepCopyInto(out)
	return out
}

func (w *WidgetSummary) DeepCopyObject() runtime.Object { return w.DeepCopy() }

var WidgetSummaryType = factory.Type[*WidgetSummary]{
	Resource:    lwt.GVR,
	Namespaced:  true,
	AddToScheme: lwt.AddToScheme,
	Indexers: func() store.Indexers[*WidgetSummary] {
		return store.Indexers[*WidgetSummary]{nodeIndex: func(w *WidgetSummary) ([]string, error) {
			return store.Values(w.Spec.NodeName), nil
		}}
	},
	Projection: "WidgetSummary",
	Kind:       "Widget",
}

const (
	widgetName  = "widgets.v1.test.informer-gen.dev"
	summaryName = "widgets.v1.test.informer-gen.dev/WidgetSummary"
)

// A projection is an informer of its own beside the kind's: its own LIST and
// WATCH (as JSON whatever the config asks for: here CBOR, which the server
// refuses, so the kind's informer asks once and falls back: a projection of a custom
// resource is read as JSON; TestBuiltInProjectionAsksForProtobuf has a built-in kind's), its own cache holding the
// projected fields, its own name; ForResource keeps meaning the kind.
func TestProjectionIsAnInformerOfItsOwn(t *testing.T) {
	srv := lwt.NewServer(t)
	a := widget("ns1", "a", "n1", map[string]string{"app": "x"})
	a.Spec.Size = 3
	srv.Add(a)
	srv.Add(widget("ns2", "b", "n2", nil))
	ctx := deadline(t)

	cfg := srv.Config()
	cfg.ContentType = "application/cbor"
	f := factory.New(cfg, factory.Options{HTTPClient: srv.HTTPClient()})
	defer f.Shutdown()
	full := factory.InformerFor(f, WidgetType)
	summary := factory.InformerFor(f, WidgetSummaryType)
	if again := factory.InformerFor(f, WidgetSummaryType); again != summary {
		t.Fatal("InformerFor returned a second informer for the same projection")
	}
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.NewLister(summary.Indexer(), lwt.GVR.GroupResource()).Namespace("ns1").Get("a")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "n1" || got.Labels["app"] != "x" || got.ResourceVersion == "" {
		t.Fatalf("projection of a = %+v, want its metadata and .spec.nodeName", got)
	}
	if n := full.Indexer().Len(); n != 2 {
		t.Fatalf("the kind's cache has %d widgets, want 2", n)
	}
	if onN2, _ := summary.Indexer().ByIndex(nodeIndex, "n2"); len(onN2) != 1 || onN2[0].Name != "b" {
		t.Fatalf("projection ByIndex(node, n2) = %v, want b", onN2)
	}

	if g, err := f.ForResource(lwt.GVR); err != nil || g.Informer().Name() != widgetName {
		t.Fatalf("ForResource = %v, %v; want the kind's informer %s", g, err, widgetName)
	}
	var names []string
	for _, g := range f.Informers() {
		names = append(names, g.Informer().Name())
	}
	if strings.Join(names, ",") != widgetName+","+summaryName {
		t.Fatalf("Informers() are %v, want the kind's and the projection's", names)
	}

	var cbor int
	for _, r := range srv.Requests() {
		if strings.Contains(r.Header.Get("Accept"), "cbor") {
			cbor++
		}
	}
	if cbor != 1 {
		t.Fatalf("%d requests asked for CBOR; want 1, the kind's first (the projection's must ask for JSON)", cbor)
	}

	// Watch events reach the projection as well, decoded into it.
	updated := make(chan *WidgetSummary, 1)
	if _, err := summary.AddHandler(informer.HandlerFuncs[*WidgetSummary]{
		UpdateFunc: func(_, obj *WidgetSummary) { updated <- obj },
	}, informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitForWatchers(ctx, 2); err != nil {
		t.Fatal(err)
	}
	moved := a.DeepCopy()
	moved.Spec.NodeName = "n3"
	srv.Update(moved)
	select {
	case w := <-updated:
		if w.Name != "a" || w.Spec.NodeName != "n3" {
			t.Fatalf("the projection's handler got %+v, want a on n3", w)
		}
	case <-ctx.Done():
		t.Fatal("the projection never saw the update")
	}
}

// The typed overrides of a projection (TypeOptions.ListerWatcher, Informer
// with its Type) are its own: the kind's informer keeps the REST source,
// and the kind's typed overrides do not reach the projection.
func TestProjectionOverridesAreItsOwn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		opts := factory.Options{}
		s := &WidgetSummary{Spec: WidgetSummarySpec{NodeName: "n1"}}
		s.Namespace, s.Name, s.ResourceVersion = "ns", "a", "1"
		var sawName string
		opts.Types = append(opts.Types, factory.TypeOptions[*WidgetSummary]{
			Type:          WidgetSummaryType,
			ListerWatcher: summaryLW{items: []*WidgetSummary{s}},
			Informer:      func(o *informer.Options[*WidgetSummary]) { sawName = o.Reflector.Name },
		})
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, Informer: func(*informer.Options[*lwt.Widget]) {
			t.Error("the kind's Informer override ran for the projection")
		}})
		f := factory.New(nil, opts) // no rest.Config: only the projection can sync
		summary := factory.InformerFor(f, WidgetSummaryType)
		if sawName != summaryName {
			t.Fatalf("the projection's Informer override saw name %q, want %q", sawName, summaryName)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := summary.Indexer().ByIndex(nodeIndex, "n1"); len(got) != 1 {
			t.Fatalf("ByIndex = %v", got)
		}
		f.Shutdown()
	})
}

type summaryLW struct{ items []*WidgetSummary }

func (l summaryLW) List(context.Context, metav1.ListOptions) (*reflector.ListResult[*WidgetSummary], error) {
	return &reflector.ListResult[*WidgetSummary]{Items: l.items, ResourceVersion: "1"}, nil
}

func (l summaryLW) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil && *opts.SendInitialEvents {
		return nil, apierrors.NewBadRequest("no WatchList here")
	}
	w := watch.NewFake()
	context.AfterFunc(ctx, w.Stop)
	return w, nil
}

// A projection's Type without Kind is reported through the informer (as a
// bad config is), naming what is missing, not as a scheme lookup failure.
func TestProjectionWithoutKindIsReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The error comes before any request: nothing listens at Host.
		f := factory.New(&rest.Config{Host: "https://127.0.0.1:1"}, factory.Options{})
		typ := WidgetSummaryType
		typ.Kind = ""
		factory.InformerFor(f, typ)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(t.Context())
		err := f.WaitForCacheSync(ctx)
		if err == nil || !strings.Contains(err.Error(), "has no Type.Kind") || !strings.Contains(err.Error(), summaryName) {
			t.Fatalf("WaitForCacheSync = %v, want an error naming %s and the missing Type.Kind", err, summaryName)
		}
		f.Shutdown()
	})
}

// Options.Metrics gives a kind's informer and its projection's hooks of
// their own, keyed by their names.
func TestMetricsTellsProjectionsApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := widget("ns", "a", "n1", nil)
		w.ResourceVersion = "1"
		s := &WidgetSummary{}
		s.Namespace, s.Name, s.ResourceVersion = "ns", "a", "1"
		counts := map[string]*listCount{}
		noWL := false
		opts := factory.Options{
			Reflector: reflector.Options{WatchList: &noWL},
			Metrics: func(name string) (reflector.Metrics, informer.Metrics) {
				counts[name] = &listCount{}
				return counts[name], nil
			},
		}
		opts.Types = append(opts.Types, factory.TypeOptions[*lwt.Widget]{Type: WidgetType, ListerWatcher: fakeLW{items: []*lwt.Widget{w}}})
		opts.Types = append(opts.Types, factory.TypeOptions[*WidgetSummary]{Type: WidgetSummaryType, ListerWatcher: summaryLW{items: []*WidgetSummary{s}}})
		f := factory.New(nil, opts)
		factory.InformerFor(f, WidgetType)
		factory.InformerFor(f, WidgetSummaryType)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if len(counts) != 2 || counts[widgetName] == nil || counts[summaryName] == nil {
			t.Fatalf("Metrics asked for %v, want %s and %s", slices.Sorted(maps.Keys(counts)), widgetName, summaryName)
		}
		for name, c := range counts {
			c.mu.Lock()
			if c.lists != 1 {
				t.Errorf("%s's reflector hook saw %d lists, want its own 1", name, c.lists)
			}
			c.mu.Unlock()
		}
		f.Shutdown()
	})
}

// A projection of a built-in kind with a generated protobuf decoder asks the
// server for protobuf, as the kind's own informer would (the server encodes
// the full object; the client builds only the projection), and decodes it:
// here PodWire of the golden case projection-protobuf, against a server that
// answers a Pod LIST in protobuf when asked and in JSON otherwise.
func TestBuiltInProjectionAsksForProtobuf(t *testing.T) {
	if pbcorev1.PodWireType.DecodeProtobuf == nil {
		t.Fatal("PodWire has no protobuf decoder: generated code is stale (run hack/update-codegen.sh)")
	}
	pod := func(name, node string) corev1.Pod {
		p := corev1.Pod{Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
		p.Namespace, p.Name, p.ResourceVersion = "ns", name, "7"
		p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m"}}
		return p
	}
	list := &corev1.PodList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "10"},
		Items:    []corev1.Pod{pod("a", "n1"), pod("b", "n2")},
	}
	var mu sync.Mutex
	var lists []string // the Accept header of each LIST
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if r.URL.Path != "/api/v1/pods" {
			http.NotFound(rw, r)
			return
		}
		if q.Get("watch") == "true" {
			if q.Get("sendInitialEvents") == "true" {
				rw.Header().Set("Content-Type", "application/json")
				rw.WriteHeader(http.StatusBadRequest)
				_ = json.NewEncoder(rw).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
					Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: "sendInitialEvents is not supported"})
				return
			}
			rw.Header().Set("Content-Type", r.Header.Get("Accept"))
			rw.WriteHeader(http.StatusOK)
			rw.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		accept := r.Header.Get("Accept")
		mu.Lock()
		lists = append(lists, accept)
		mu.Unlock()
		var body bytes.Buffer
		if strings.Contains(accept, runtime.ContentTypeProtobuf) {
			if err := k8sprotobuf.NewSerializer(clientgoscheme.Scheme, clientgoscheme.Scheme).Encode(list, &body); err != nil {
				t.Error(err)
			}
			rw.Header().Set("Content-Type", runtime.ContentTypeProtobuf)
		} else {
			_ = json.NewEncoder(&body).Encode(list)
			rw.Header().Set("Content-Type", "application/json")
		}
		_, _ = rw.Write(body.Bytes())
	}))
	defer srv.Close()
	ctx := deadline(t)

	f := factory.New(&rest.Config{Host: srv.URL}, factory.Options{HTTPClient: srv.Client()})
	defer f.Shutdown()
	inf := factory.InformerFor(f, pbcorev1.PodWireType)
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := store.NewLister(inf.Indexer(), corev1.Resource("pods")).Namespace("ns").Get("b")
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "n2" || got.ResourceVersion != "7" || got.ManagedFields != nil {
		t.Fatalf("projection of b = %+v, want its metadata (managedFields dropped) and .spec.nodeName n2", got)
	}
	if len(got.Spec.Containers) != 1 || got.Spec.Containers[0].Name != "c" {
		t.Fatalf("projection of b has containers %+v, want one named c", got.Spec.Containers)
	}
	f.Shutdown()
	mu.Lock()
	defer mu.Unlock()
	if len(lists) == 0 || !strings.HasPrefix(lists[0], runtime.ContentTypeProtobuf) {
		t.Fatalf("the projection's LISTs asked for %q, want protobuf", lists)
	}
}
