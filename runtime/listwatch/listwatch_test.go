package listwatch_test

import (
	"context"
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
	"github.com/informer-gen/informer-gen/runtime/wire"
)

func widget(ns, name string, lbls map[string]string, size int) *lwt.Widget {
	w := &lwt.Widget{Spec: lwt.WidgetSpec{Size: size, NodeName: "node-" + name}}
	w.Namespace, w.Name, w.Labels = ns, name, lbls
	return w
}

func newLW(t *testing.T, srv *lwt.Server, opts listwatch.Options[*lwt.Widget, *lwt.WidgetList]) *listwatch.ListerWatcher[*lwt.Widget, *lwt.WidgetList] {
	t.Helper()
	scheme := runtime.NewScheme()
	if err := lwt.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	client, err := listwatch.NewRESTClient(srv.Config(), srv.HTTPClient(), scheme, lwt.GVR.GroupVersion())
	if err != nil {
		t.Fatal(err)
	}
	opts.Resource = lwt.GVR.Resource
	if strings.HasSuffix(t.Name(), "/codec") {
		opts.Codec = must(wire.NewJSON[*lwt.Widget](lwt.GVR.GroupVersion().WithKind("Widget")))
	} else {
		opts.NewList = func() *lwt.WidgetList { return new(lwt.WidgetList) }
		opts.Items = func(l *lwt.WidgetList) []*lwt.Widget { return listwatch.Pointers(l.Items) }
	}
	return listwatch.New(client, opts)
}

// forBoth runs test with a wire.Codec (subtest "codec") and with the REST
// client's serializer (subtest "serializer"): newLW picks by the name.
func forBoth(t *testing.T, test func(t *testing.T)) {
	t.Run("codec", test)
	t.Run("serializer", test)
}

func TestListPagesDecodeTyped(t *testing.T) { forBoth(t, testListPagesDecodeTyped) }

func testListPagesDecodeTyped(t *testing.T) {
	srv := lwt.NewServer(t)
	for i, n := range []string{"a", "b", "c", "d", "e"} {
		srv.Add(widget("ns1", n, map[string]string{"app": "x"}, i))
	}
	srv.Add(widget("ns2", "other", map[string]string{"app": "x"}, 9))
	lw := newLW(t, srv, listwatch.Options[*lwt.Widget, *lwt.WidgetList]{Namespace: "ns1"})
	ctx := t.Context()

	var names []string
	opts := metav1.ListOptions{Limit: 2}
	var pages int
	for {
		res, err := lw.List(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if res.ResourceVersion != srv.ResourceVersion() {
			t.Errorf("page %d: ResourceVersion %q, want %q", pages, res.ResourceVersion, srv.ResourceVersion())
		}
		for _, w := range res.Items {
			names = append(names, w.Name)
			if w.Spec.NodeName != "node-"+w.Name {
				t.Errorf("%s: spec not decoded: %+v", w.Name, w.Spec)
			}
		}
		if res.Continue == "" {
			if res.RemainingItemCount != nil {
				t.Errorf("last page has RemainingItemCount %d", *res.RemainingItemCount)
			}
			break
		}
		if res.RemainingItemCount == nil || *res.RemainingItemCount != int64(5-2*pages) {
			t.Errorf("page %d: RemainingItemCount = %v, want %d", pages, res.RemainingItemCount, 5-2*pages)
		}
		opts.Continue = res.Continue
	}
	if got := strings.Join(names, ","); got != "a,b,c,d,e" || pages != 3 {
		t.Fatalf("listed %s in %d pages, want a,b,c,d,e in 3", got, pages)
	}
	for _, r := range srv.Requests() {
		if r.URL.Path != "/apis/test.informer-gen.dev/v1/namespaces/ns1/widgets" {
			t.Errorf("request path %q", r.URL.Path)
		}
		if strings.HasSuffix(t.Name(), "/codec") && r.Header.Get("Accept") != "application/json" {
			t.Errorf("request Accept %q, want the codec's application/json", r.Header.Get("Accept"))
		}
	}
}

func TestSelectorsAndTweak(t *testing.T) { forBoth(t, testSelectorsAndTweak) }

func testSelectorsAndTweak(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("ns1", "a", map[string]string{"app": "x"}, 1))
	srv.Add(widget("ns2", "b", map[string]string{"app": "y"}, 2))
	lw := newLW(t, srv, listwatch.Options[*lwt.Widget, *lwt.WidgetList]{
		LabelSelector: "app=y",
		FieldSelector: "metadata.name=b",
		Tweak:         func(o *metav1.ListOptions) { o.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan },
	})
	res, err := lw.List(t.Context(), metav1.ListOptions{LabelSelector: "app=x", ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Name != "b" {
		t.Fatalf("items = %v, want just b", res.Items)
	}
	reqs := srv.Requests()
	q := reqs[len(reqs)-1].URL.Query()
	if reqs[len(reqs)-1].URL.Path != "/apis/test.informer-gen.dev/v1/widgets" {
		t.Errorf("all-namespaces path = %q", reqs[len(reqs)-1].URL.Path)
	}
	for k, want := range map[string]string{
		"labelSelector": "app=y", "fieldSelector": "metadata.name=b",
		"resourceVersion": "0", "resourceVersionMatch": "NotOlderThan",
	} {
		if got := q.Get(k); got != want {
			t.Errorf("query %s = %q, want %q", k, got, want)
		}
	}
}

func TestListErrorKeepsAPIErrorAndNamesResource(t *testing.T) {
	forBoth(t, testListErrorKeepsAPIErrorAndNamesResource)
}

func testListErrorKeepsAPIErrorAndNamesResource(t *testing.T) {
	srv := lwt.NewServer(t)
	st := apierrors.NewResourceExpired("too old resource version").Status()
	st.APIVersion, st.Kind = "v1", "Status"
	srv.Fail(&st)
	lw := newLW(t, srv, listwatch.Options[*lwt.Widget, *lwt.WidgetList]{Namespace: "ns1"})
	_, err := lw.List(t.Context(), metav1.ListOptions{})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("List error %v: want a 410 the reflector can recognise", err)
	}
	if !strings.Contains(err.Error(), "widgets in namespace ns1") {
		t.Fatalf("error %q does not name the resource and namespace", err)
	}
	if _, err := lw.Watch(t.Context(), metav1.ListOptions{}); !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Fatalf("Watch error %v: want 410", err)
	}
}

func TestWatchStreamsTypedEvents(t *testing.T) { forBoth(t, testWatchStreamsTypedEvents) }

func testWatchStreamsTypedEvents(t *testing.T) {
	srv := lwt.NewServer(t)
	srv.Add(widget("ns1", "a", nil, 1))
	lw := newLW(t, srv, listwatch.Options[*lwt.Widget, *lwt.WidgetList]{Namespace: "ns1"})
	timeout := int64(60)
	w, err := lw.Watch(t.Context(), metav1.ListOptions{
		ResourceVersion: srv.ResourceVersion(), AllowWatchBookmarks: true, TimeoutSeconds: &timeout,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := srv.WaitForWatchers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}

	srv.Update(widget("ns1", "a", nil, 2))
	srv.Add(widget("ns2", "elsewhere", nil, 0)) // other namespace: filtered
	srv.Bookmark()
	srv.Delete(widget("ns1", "a", nil, 2))

	want := []struct {
		typ  watch.EventType
		name string
		rv   string
	}{{watch.Modified, "a", "3"}, {watch.Bookmark, "", "4"}, {watch.Deleted, "a", "5"}}
	for _, wnt := range want {
		select {
		case ev := <-w.ResultChan():
			obj, ok := ev.Object.(*lwt.Widget)
			if !ok {
				t.Fatalf("event object is %T, want *Widget", ev.Object)
			}
			if ev.Type != wnt.typ || obj.Name != wnt.name || obj.ResourceVersion != wnt.rv {
				t.Fatalf("event %s %s@%s, want %s %s@%s", ev.Type, obj.Name, obj.ResourceVersion, wnt.typ, wnt.name, wnt.rv)
			}
			if ev.Type == watch.Modified && obj.Spec.Size != 2 {
				t.Fatalf("modified spec not decoded: %+v", obj.Spec)
			}
		case <-time.After(10 * time.Second): // a safety net against hanging, not a timing assertion
			t.Fatalf("no %s event", wnt.typ)
		}
	}
	reqs := srv.Requests()
	q := reqs[len(reqs)-1].URL.Query()
	if q.Get("watch") != "true" || q.Get("allowWatchBookmarks") != "true" || q.Get("timeoutSeconds") != "60" || q.Get("resourceVersion") != "2" {
		t.Fatalf("watch query = %v", q)
	}
}

func TestWatchEndsWithContext(t *testing.T) { forBoth(t, testWatchEndsWithContext) }

func testWatchEndsWithContext(t *testing.T) {
	srv := lwt.NewServer(t)
	lw := newLW(t, srv, listwatch.Options[*lwt.Widget, *lwt.WidgetList]{})
	ctx, cancel := context.WithCancel(t.Context())
	w, err := lw.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for range w.ResultChan() {
	}
	w.Stop()
}

func TestConfigFor(t *testing.T) {
	scheme := runtime.NewScheme()
	base := &rest.Config{Host: "https://example.invalid"}
	core := listwatch.ConfigFor(base, scheme, schema.GroupVersion{Version: "v1"})
	if core.APIPath != "/api" || core.GroupVersion.String() != "v1" {
		t.Errorf("core group: APIPath %q GroupVersion %v", core.APIPath, core.GroupVersion)
	}
	named := listwatch.ConfigFor(base, scheme, lwt.GVR.GroupVersion())
	if named.APIPath != "/apis" || *named.GroupVersion != lwt.GVR.GroupVersion() {
		t.Errorf("named group: APIPath %q GroupVersion %v", named.APIPath, named.GroupVersion)
	}
	if named.QPS != listwatch.DefaultQPS || named.Burst != listwatch.DefaultBurst || named.UserAgent == "" || named.NegotiatedSerializer == nil {
		t.Errorf("defaults not set: QPS %v Burst %v UA %q", named.QPS, named.Burst, named.UserAgent)
	}
	if base.APIPath != "" || base.GroupVersion != nil || base.QPS != 0 {
		t.Errorf("ConfigFor modified its input: %+v", base)
	}
	kept := listwatch.ConfigFor(&rest.Config{QPS: 7, Burst: 9, UserAgent: "me"}, scheme, lwt.GVR.GroupVersion())
	if kept.QPS != 7 || kept.Burst != 9 || kept.UserAgent != "me" {
		t.Errorf("explicit settings overridden: %v %v %q", kept.QPS, kept.Burst, kept.UserAgent)
	}
}

func TestFuncsAdaptsTypedClient(t *testing.T) {
	var gotOpts metav1.ListOptions
	remaining := int64(7)
	fw := watch.NewFake()
	lw := listwatch.Funcs[*lwt.Widget, *lwt.WidgetList]{
		ListFunc: func(_ context.Context, opts metav1.ListOptions) (*lwt.WidgetList, error) {
			gotOpts = opts
			l := &lwt.WidgetList{Items: []lwt.Widget{*widget("ns", "a", nil, 1)}}
			l.ResourceVersion, l.Continue, l.RemainingItemCount = "42", "next", &remaining
			return l, nil
		},
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return fw, nil },
		Items:     func(l *lwt.WidgetList) []*lwt.Widget { return listwatch.Pointers(l.Items) },
	}
	res, err := lw.List(t.Context(), metav1.ListOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if gotOpts.Limit != 5 || len(res.Items) != 1 || res.Items[0].Name != "a" || res.ResourceVersion != "42" ||
		res.Continue != "next" || res.RemainingItemCount == nil || *res.RemainingItemCount != 7 {
		t.Fatalf("List = %+v (opts %+v)", res, gotOpts)
	}
	w, err := lw.Watch(t.Context(), metav1.ListOptions{})
	if err != nil || w != fw {
		t.Fatalf("Watch = %v, %v", w, err)
	}
	fw.Stop()
}

func TestPointers(t *testing.T) {
	items := []lwt.Widget{{}, {}}
	items[0].Name, items[1].Name = "a", "b"
	p := listwatch.Pointers(items)
	if len(p) != 2 || p[0] != &items[0] || p[1] != &items[1] {
		t.Fatalf("Pointers does not point into the slice")
	}
	if listwatch.Pointers[lwt.Widget](nil) != nil {
		t.Fatal("Pointers(nil) != nil")
	}
}
