package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/controller"
	"github.com/informer-gen/informer-gen/examples/crd/generated/informers"
	fooinformers "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/faultproxy"
	"github.com/informer-gen/informer-gen/examples/crd/internal/verify"
)

// fooInformer returns a started factory's v1 Foo informer on namespace ns of
// the server in cfg. edit (optional) changes the informer options; retries
// back off at most 500ms so that tests converge quickly after an outage.
func fooInformer(t *testing.T, cfg *rest.Config, ns string, tweak func(*metav1.ListOptions), edit func(*informer.Options[*samplev1.Foo])) (*informers.SharedInformerFactory, *informer.Informer[*samplev1.Foo]) {
	t.Helper()
	opts := factory.Options{Namespaces: []string{ns}, Tweak: tweak}
	opts.Types = append(opts.Types, factory.TypeOptions[*samplev1.Foo]{Type: fooinformers.FooType, Informer: func(o *informer.Options[*samplev1.Foo]) {
		o.Reflector.InitialBackoff = 50 * time.Millisecond
		o.Reflector.MaxBackoff = 500 * time.Millisecond
		if edit != nil {
			edit(o)
		}
	}})
	f := informers.NewSharedInformerFactory(cfg, opts)
	inf := f.Samplecontroller().V1().Foos().Informer()
	t.Cleanup(f.Shutdown)
	return f, inf
}

func newProxy(t *testing.T, cfg *rest.Config) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func syncFactory(t *testing.T, ctx context.Context, f *informers.SharedInformerFactory) {
	t.Helper()
	f.Start(ctx)
	sctx, cancel := context.WithTimeout(ctx, e2eutil.Patience)
	defer cancel()
	if err := f.WaitForCacheSync(sctx); err != nil {
		t.Fatal(err)
	}
}

func cacheEqualsList(t *testing.T, ctx context.Context, c rest.Interface, inf *informer.Informer[*samplev1.Foo], ns string) {
	t.Helper()
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "informer cache equals a fresh LIST", func() error {
		return e2eutil.FooCacheEqualsList(ctx, c, inf, ns)
	})
}

func fooRequests(p *faultproxy.Proxy) []faultproxy.Request {
	var out []faultproxy.Request
	for _, r := range p.Requests() {
		if strings.HasSuffix(r.URL.Path, "/foos") {
			out = append(out, r)
		}
	}
	return out
}

// TestInitialSyncWatchList: the initial sync streams through WatchList
// (sendInitialEvents=true) and never issues a LIST.
func TestInitialSyncWatchList(t *testing.T) {
	ctx := t.Context()
	const ns = "watchlist"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 300, nil); err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, server.Config())
	f, inf := fooInformer(t, p.Config(), ns, nil, nil)
	syncFactory(t, ctx, f)
	if n := inf.Indexer().Len(); n != 300 {
		t.Errorf("after sync the cache holds %d Foos, want 300", n)
	}
	var watchLists, lists int
	for _, r := range fooRequests(p) {
		switch {
		case r.IsWatchList():
			watchLists++
		case r.IsList():
			lists++
		}
	}
	if watchLists == 0 || lists != 0 {
		t.Errorf("initial sync made %d WatchList requests and %d LISTs, want >0 and 0", watchLists, lists)
	}
	// Changes after the sync arrive on the same stream.
	if err := e2eutil.CreateFoos(ctx, client, ns, "late", 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	if err := e2eutil.DeleteFoo(ctx, client, ns, "foo-0"); err != nil {
		t.Fatal(err)
	}
	cacheEqualsList(t, ctx, client, inf, ns)
}

// TestPagingListWatch: with WatchList off the initial LIST is paged (500 per
// page) through 2,100 objects, all pages at one resourceVersion.
func TestPagingListWatch(t *testing.T) {
	ctx := t.Context()
	const ns = "paging"
	const n = 2100
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, n, nil); err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, server.Config())
	off := false
	f, inf := fooInformer(t, p.Config(), ns, nil, func(o *informer.Options[*samplev1.Foo]) {
		o.Reflector.WatchList = &off
		o.Reflector.PageSize = 500
	})
	syncFactory(t, ctx, f)
	if got := inf.Indexer().Len(); got != n {
		t.Errorf("after sync the cache holds %d Foos, want %d", got, n)
	}
	var pages, continued int
	for _, r := range fooRequests(p) {
		if r.IsWatchList() {
			t.Errorf("WatchList request with WatchList off: %s", r.URL)
		}
		if r.IsList() {
			pages++
			if r.URL.Query().Get("limit") != "500" {
				t.Errorf("LIST without limit=500: %s", r.URL)
			}
			if r.URL.Query().Get("continue") != "" {
				continued++
			}
		}
	}
	if want := (n + 499) / 500; pages != want || continued != want-1 {
		t.Errorf("initial sync made %d LIST pages (%d with continue), want %d (%d)", pages, continued, want, want-1)
	}
	if err := e2eutil.CreateFoos(ctx, client, ns, "late", 0, 5, nil); err != nil {
		t.Fatal(err)
	}
	cacheEqualsList(t, ctx, client, inf, ns)
}

// TestBookmarksAdvanceResourceVersion: the informer watches a namespace in
// which nothing happens while other namespaces change. Only bookmarks can
// move its resourceVersion forward; with 3s watches the server sends one
// before each watch ends.
func TestBookmarksAdvanceResourceVersion(t *testing.T) {
	ctx := t.Context()
	const ns = "bookmarks"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 3, nil); err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, server.Config())
	timeout := int64(3)
	f, inf := fooInformer(t, p.Config(), ns, func(o *metav1.ListOptions) { o.TimeoutSeconds = &timeout }, nil)
	syncFactory(t, ctx, f)
	before, err := strconv.ParseUint(inf.LastSyncResourceVersion(), 10, 64)
	if err != nil {
		t.Fatalf("LastSyncResourceVersion %q: %v", inf.LastSyncResourceVersion(), err)
	}
	// Move the server's resourceVersion in another namespace.
	if err := e2eutil.CreateFoos(ctx, client, "bookmarks-elsewhere", "foo", 0, 3, nil); err != nil {
		t.Fatal(err)
	}
	var other samplev1.Foo
	if err := client.Get().Namespace("bookmarks-elsewhere").Resource("foos").Name("foo-2").Do(ctx).Into(&other); err != nil {
		t.Fatal(err)
	}
	target, _ := strconv.ParseUint(other.ResourceVersion, 10, 64)
	if target <= before {
		t.Fatalf("server RV %d did not move past the informer's %d", target, before)
	}
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "bookmark advances the informer's resourceVersion", func() error {
		rv, _ := strconv.ParseUint(inf.LastSyncResourceVersion(), 10, 64)
		if rv < target {
			return fmt.Errorf("informer at rv %d, server at %d", rv, target)
		}
		return nil
	})
	for _, r := range fooRequests(p) {
		if r.IsWatch() && r.URL.Query().Get("allowWatchBookmarks") != "true" {
			t.Errorf("watch without allowWatchBookmarks=true: %s", r.URL)
		}
	}
	cacheEqualsList(t, ctx, client, inf, ns)
}

// TestRelistAfterCompaction: while the network is down, objects are deleted
// and etcd is compacted (watch cache off, so the server cannot serve the old
// resourceVersion). On reconnect the watch gets 410 Expired, the informer
// relists, and the deleted objects are delivered as tombstones
// (finalStateUnknown) since their delete events are gone.
func TestRelistAfterCompaction(t *testing.T) {
	ctx := t.Context()
	srv, c := startNoCacheServer(t)
	const ns = "compaction"
	if err := e2eutil.CreateFoos(ctx, c, ns, "foo", 0, 40, nil); err != nil {
		t.Fatal(err)
	}
	p := newProxy(t, srv.Config())
	rec := e2eutil.NewRecorder()
	errs := new(e2eutil.ErrorLog)
	f, inf := fooInformer(t, p.Config(), ns, nil, func(o *informer.Options[*samplev1.Foo]) {
		o.Reflector.WatchErrorHandler = errs.Handle
	})
	if _, err := inf.AddHandler(rec.Handler(), informer.HandlerOptions{}); err != nil {
		t.Fatal(err)
	}
	syncFactory(t, ctx, f)

	p.SetDown(true)
	for i := range 10 {
		if err := e2eutil.DeleteFoo(ctx, c, ns, fmt.Sprintf("foo-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := e2eutil.CreateFoos(ctx, c, ns, "new", 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.CompactEtcd(ctx); err != nil {
		t.Fatal(err)
	}
	before := len(p.Requests())
	p.SetDown(false)

	cacheEqualsList(t, ctx, c, inf, ns)
	for i := range 10 {
		key := fmt.Sprintf("%s/foo-%d", ns, i)
		e2eutil.Eventually(t, ctx, e2eutil.Patience, "tombstone for "+key, func() error {
			d := rec.Deletes(key)
			if len(d) != 1 || !d[0] {
				return fmt.Errorf("deletes of %s = %v, want one with finalStateUnknown", key, d)
			}
			return nil
		})
	}
	if got := rec.Adds(ns + "/new-3"); got != 1 {
		t.Errorf("adds of new-3 = %d, want 1", got)
	}
	if errs.Find(func(err error) bool { return apierrors.IsResourceExpired(err) || apierrors.IsGone(err) }) == nil {
		t.Errorf("no 410 Expired/Gone reached the WatchErrorHandler")
	}
	relisted := false
	for _, r := range p.Requests()[before:] {
		relisted = relisted || (strings.HasSuffix(r.URL.Path, "/foos") && (r.IsList() || r.IsWatchList()))
	}
	if !relisted {
		t.Errorf("no LIST or WatchList after the outage: the informer did not relist")
	}
}

// TestAPIServerRestart: the API server stops mid-watch and comes back on the
// same etcd; the informer reconnects and converges, including changes made
// right after the restart.
func TestAPIServerRestart(t *testing.T) {
	ctx := t.Context()
	const ns = "restart"
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, 20, nil); err != nil {
		t.Fatal(err)
	}
	f, inf := fooInformer(t, server.Config(), ns, nil, nil)
	syncFactory(t, ctx, f)

	if err := server.StopAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "the informer notices the outage", func() error {
		if inf.LastError() == nil {
			return errors.New("LastError is nil")
		}
		return nil
	})
	if err := server.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e2eutil.CreateFoos(ctx, client, ns, "after", 0, 20, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if err := e2eutil.DeleteFoo(ctx, client, ns, fmt.Sprintf("foo-%d", i)); err != nil {
			t.Fatal(err)
		}
		err := client.Patch(types.MergePatchType).Namespace(ns).Resource("foos").Name(fmt.Sprintf("foo-%d", 10+i)).
			Body([]byte(`{"spec":{"replicas":42}}`)).Do(ctx).Error()
		if err != nil {
			t.Fatal(err)
		}
	}
	cacheEqualsList(t, ctx, client, inf, ns)
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "LastError clears", func() error { return inf.LastError() })
}

// TestCRDDeletedAndRecreated: deleting the CRD makes the informer report a
// clear error (404 naming the resource) instead of retrying silently; once
// the CRD is back, it recovers.
func TestCRDDeletedAndRecreated(t *testing.T) {
	ctx := t.Context()
	srv, c := startNoCacheServer(t)
	const ns = "crd"
	if err := e2eutil.CreateFoos(ctx, c, ns, "foo", 0, 10, nil); err != nil {
		t.Fatal(err)
	}
	errs := new(e2eutil.ErrorLog)
	f, inf := fooInformer(t, srv.Config(), ns, nil, func(o *informer.Options[*samplev1.Foo]) {
		o.Reflector.WatchErrorHandler = errs.Handle
	})
	syncFactory(t, ctx, f)

	const name = "foos.samplecontroller.example.com"
	crd, err := e2eutil.CRD(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.DeleteCRD(ctx, name); err != nil {
		t.Fatal(err)
	}
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "the informer reports the missing resource", func() error {
		err := inf.LastError()
		if err == nil || !apierrors.IsNotFound(err) {
			return fmt.Errorf("LastError = %v, want a 404", err)
		}
		if !strings.Contains(err.Error(), "foos") {
			return fmt.Errorf("LastError %q does not name the resource", err)
		}
		return nil
	})
	if errs.Find(apierrors.IsNotFound) == nil {
		t.Errorf("the WatchErrorHandler was not called with the 404")
	}
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "cache empties with the CRD", func() error {
		if n := inf.Indexer().Len(); n != 0 {
			return fmt.Errorf("%d Foos still cached", n)
		}
		return nil
	})

	if err := srv.InstallCRDs(ctx, crd); err != nil {
		t.Fatal(err)
	}
	if err := e2eutil.CreateFoos(ctx, c, ns, "again", 0, 5, nil); err != nil {
		t.Fatal(err)
	}
	cacheEqualsList(t, ctx, c, inf, ns)
	if n := inf.Indexer().Len(); n != 5 {
		t.Errorf("cache holds %d Foos after the CRD came back, want 5", n)
	}
}

// TestListErrorsSurface: a 403 or 404 on LIST makes WaitForCacheSync fail
// with that error (naming the resource), not with a bare timeout.
func TestListErrorsSurface(t *testing.T) {
	for _, tc := range []struct {
		code   int32
		reason metav1.StatusReason
		is     func(error) bool
	}{
		{http.StatusForbidden, metav1.StatusReasonForbidden, apierrors.IsForbidden},
		{http.StatusNotFound, metav1.StatusReasonNotFound, apierrors.IsNotFound},
	} {
		t.Run(string(tc.reason), func(t *testing.T) {
			ctx := t.Context()
			p := newProxy(t, server.Config())
			p.Inject(func(r faultproxy.Request) bool {
				return r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/foos")
			}, tc.code, tc.reason, `foos.samplecontroller.example.com is not available (injected)`)
			f, inf := fooInformer(t, p.Config(), "errors", nil, nil)
			f.Start(ctx)
			// The informer never syncs here, so WaitForCacheSync returns only
			// when its context ends: end it once the refused LIST has been
			// seen (however long that takes on a busy machine), and the
			// error must then carry the 403/404, not a bare deadline.
			e2eutil.Eventually(t, ctx, e2eutil.Patience, "the informer records the refused LIST", func() error {
				if inf.LastError() == nil {
					return errors.New("no LastError yet")
				}
				return nil
			})
			sctx, cancel := context.WithCancel(ctx)
			cancel()
			err := f.WaitForCacheSync(sctx)
			if err == nil {
				t.Fatal("WaitForCacheSync succeeded against a server that refuses every LIST")
			}
			if !tc.is(err) {
				t.Errorf("WaitForCacheSync error %q does not wrap the %d", err, tc.code)
			}
			if !strings.Contains(err.Error(), "foos") {
				t.Errorf("WaitForCacheSync error %q does not name the resource", err)
			}
		})
	}
}

// TestController1000 runs the controller with 8 workers over 1,000 Foos on
// 10 Hosts: every status is reconciled, and no key is ever worked on by two
// workers at once.
func TestController1000(t *testing.T) {
	ctx := t.Context()
	const ns = "controller"
	const n, hosts = 1000, 10
	var mu sync.Mutex
	inFlight := map[controller.Key]bool{}
	var overlaps []controller.Key
	current, maxConcurrent := 0, 0
	observe := func(k controller.Key) func(error) {
		mu.Lock()
		defer mu.Unlock()
		if inFlight[k] {
			overlaps = append(overlaps, k)
		}
		inFlight[k] = true
		current++
		maxConcurrent = max(maxConcurrent, current)
		return func(error) {
			mu.Lock()
			defer mu.Unlock()
			delete(inFlight, k)
			current--
		}
	}
	f := informers.NewSharedInformerFactory(server.Config(), factory.Options{Namespaces: []string{ns}})
	t.Cleanup(f.Shutdown)
	ctrl, err := controller.New(server.Config(), f, controller.Options{Workers: 8, Observe: observe})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	f.Start(runCtx)
	go func() { done <- ctrl.Run(runCtx) }()

	hostName := func(i int) string { return fmt.Sprintf("ctrl-host-%d", i%hosts) }
	for i := range hosts {
		h := &samplev1.Host{ObjectMeta: metav1.ObjectMeta{Name: hostName(i)}, Spec: samplev1.HostSpec{Capacity: int32(i)}}
		if err := client.Post().Resource("hosts").Body(h).Do(ctx).Error(); err != nil {
			t.Fatal(err)
		}
	}
	if err := e2eutil.CreateFoos(ctx, client, ns, "foo", 0, n, hostName); err != nil {
		t.Fatal(err)
	}
	fooInf := f.Samplecontroller().V1().Foos().Informer()
	hostInf := f.Samplecontroller().V1().Hosts().Informer()
	e2eutil.Eventually(t, ctx, e2eutil.Patience, "every status reconciled and the caches equal a LIST", func() error {
		foos, _, err := verifyListFoos(ctx, ns)
		if err != nil {
			return err
		}
		hs, err := listCtrlHosts(ctx)
		if err != nil {
			return err
		}
		return errors.Join(
			verify.Reconciled(foos, hs),
			verify.CacheEqualsList("Foo", fooInf.Indexer().List(), foos),
			verify.CacheEqualsList("Host", filterHosts(hostInf.Indexer().List()), hs),
		)
	})
	stop()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(overlaps) > 0 {
		t.Errorf("%d keys were worked on by two workers at once, e.g. %v", len(overlaps), overlaps[0])
	}
	if maxConcurrent < 2 {
		t.Errorf("at most %d reconciles ran at once with 8 workers", maxConcurrent)
	}
	if s := ctrl.Stats(); s.Reconciles < n {
		t.Errorf("%d reconciles for %d Foos", s.Reconciles, n)
	}
	t.Logf("max concurrent reconciles %d, stats %+v", maxConcurrent, ctrl.Stats())
}

func verifyListFoos(ctx context.Context, ns string) ([]*samplev1.Foo, string, error) {
	return verify.ListFoos(ctx, client, ns, "")
}

// listCtrlHosts lists the Hosts of TestController1000.
func listCtrlHosts(ctx context.Context) ([]*samplev1.Host, error) {
	hs, _, err := verify.ListHosts(ctx, client, "")
	return filterHosts(hs), err
}

func filterHosts(hs []*samplev1.Host) []*samplev1.Host {
	var out []*samplev1.Host
	for _, h := range hs {
		if strings.HasPrefix(h.Name, "ctrl-host-") {
			out = append(out, h)
		}
	}
	return out
}
