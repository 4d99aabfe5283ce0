package clientsetconfig_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/clientsetconfig"
	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
)

var configMapType = factory.Type[*corev1.ConfigMap]{
	Resource:    corev1.SchemeGroupVersion.WithResource("configmaps"),
	Namespaced:  true,
	AddToScheme: corev1.AddToScheme,
}

// clientset is the shape of a client-gen clientset, with one group-version
// client whose RESTClient is the *rest.RESTClient client-gen's NewForConfig
// builds (client-go's kubernetes.Clientset has the same CoreV1 method).
type clientset struct{ core realCoreV1 }

func (c *clientset) CoreV1() realCoreV1 { return c.core }

type realCoreV1 struct{ rc *rest.RESTClient }

func (c realCoreV1) RESTClient() rest.Interface { return c.rc }

// fakeClientset has the shape of client-gen's fakes (a group-version client
// whose RESTClient is nil, typed clients per resource), recording the
// actions and serving one watch the test feeds.
type fakeClientset struct{ core *fakeCoreV1 }

func (c fakeClientset) CoreV1() *fakeCoreV1 { return c.core }
func (c fakeClientset) Discovery() any      { return nil }

type fakeCoreV1 struct {
	mu      sync.Mutex
	objs    []corev1.ConfigMap
	actions []string
	listErr error
	watch   *watch.FakeWatcher
}

// watchAfterSync waits until every goroutine of the test's bubble is
// blocked (the factory has synced and watches) and returns the fake's
// watch, failing the test when there is none.
func (c *fakeCoreV1) watchAfterSync(t *testing.T) *watch.FakeWatcher {
	t.Helper()
	synctest.Wait()
	c.mu.Lock()
	w := c.watch
	c.mu.Unlock()
	if w == nil {
		t.Fatalf("no watch after sync; actions %q", c.Actions())
	}
	return w
}

func (c *fakeCoreV1) RESTClient() rest.Interface {
	var ret *rest.RESTClient
	return ret
}

func (c *fakeCoreV1) ConfigMaps(namespace string) fakeConfigMaps { return fakeConfigMaps{c, namespace} }

func (c *fakeCoreV1) Actions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.actions)
}

type fakeConfigMaps struct {
	c  *fakeCoreV1
	ns string
}

func (m fakeConfigMaps) List(_ context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	m.c.actions = append(m.c.actions, fmt.Sprintf("list %q %s", m.ns, opts.LabelSelector))
	if m.c.listErr != nil {
		return nil, m.c.listErr
	}
	return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: slices.Clone(m.c.objs)}, nil
}

func (m fakeConfigMaps) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	m.c.mu.Lock()
	defer m.c.mu.Unlock()
	m.c.actions = append(m.c.actions, fmt.Sprintf("watch %q %s rv=%s", m.ns, opts.LabelSelector, opts.ResourceVersion))
	if m.c.watch != nil {
		return nil, apierrors.NewConflict(configMapType.Resource.GroupResource(), "", errors.New("one watch only in this fake"))
	}
	m.c.watch = watch.NewFakeWithChanSize(10, false)
	return m.c.watch, nil
}

func configMap(ns, name, v string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: v}, Data: map[string]string{"v": v}}
}

// A factory over a fake clientset lists and watches through the fake's
// typed client, as upstream's informers do: the fake sees one LIST and one
// WATCH (never a WatchList) with the factory's selector, its objects reach
// the cache and handlers without apiVersion and kind of their own, and its
// watch events arrive.
func TestClientsetConfigOverAFakeClientset(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &fakeCoreV1{objs: []corev1.ConfigMap{*configMap("ns", "a", "1"), *configMap("other", "b", "2")}}
		f := factory.New(clientsetconfig.For(fakeClientset{core}), factory.Options{LabelSelector: "app=x"})
		defer f.Shutdown()
		inf := factory.InformerFor(f, configMapType)
		rec := new(runtimetest.Recorder[*corev1.ConfigMap])
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		if got, ok := inf.Indexer().Get("ns/a"); !ok || got.Data["v"] != "1" {
			t.Errorf("cache ns/a = %v, %v; want the fake's object", got, ok)
		} else if got.TypeMeta != (metav1.TypeMeta{}) {
			t.Errorf("cache ns/a has TypeMeta %+v; the fake's object has none", got.TypeMeta)
		}
		w := core.watchAfterSync(t)
		// Events newer than the LIST (resourceVersion 5), as a server's are.
		a := configMap("ns", "a", "3")
		a.ResourceVersion = "6"
		w.Modify(a)
		b := configMap("other", "b", "2")
		b.ResourceVersion = "7"
		w.Delete(b)
		if err := rec.WaitFor(ctx, func(s map[string]*corev1.ConfigMap) bool {
			return len(s) == 1 && s["ns/a"].Data["v"] == "3"
		}); err != nil {
			t.Fatalf("events from the fake's watch: %v; events %v", err, rec.Events())
		}
		cancel()
		f.Shutdown()
		if want := []string{`list "" app=x`, `watch "" app=x rv=5`}; !slices.Equal(core.Actions(), want) {
			t.Errorf("fake actions = %q, want %q", core.Actions(), want)
		}
		var got []string
		for _, e := range rec.Events() {
			got = append(got, e.Type+" "+e.Key)
		}
		if want := []string{"add ns/a", "add other/b", "update ns/a", "delete other/b"}; !slices.Equal(got, want) {
			t.Errorf("handler events = %q, want %q", got, want)
		}
		if err := rec.Err(); err != nil {
			t.Error(err)
		}
	})
}

// The objects of a fake reach the cache with the TypeMeta the test gave
// them, in its LIST and its watch events alike, as upstream's informers over
// a fake hold the fake's objects: full, partial or none (client-go's real
// watch decoding clears it; a fake's objects are never decoded upstream).
func TestClientsetConfigFakeKeepsTypeMeta(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
		withTM := func(tm metav1.TypeMeta, ns, name, v string) *corev1.ConfigMap {
			c := configMap(ns, name, v)
			c.TypeMeta = tm
			return c
		}
		core := &fakeCoreV1{objs: []corev1.ConfigMap{*withTM(full, "ns", "listed", "1"), *configMap("ns", "bare", "2")}}
		f := factory.New(clientsetconfig.For(fakeClientset{core}), factory.Options{})
		defer f.Shutdown()
		inf := factory.InformerFor(f, configMapType)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		w := core.watchAfterSync(t)
		partial := metav1.TypeMeta{Kind: "ConfigMap"}
		w.Add(withTM(full, "ns", "added", "6"))
		w.Add(withTM(partial, "ns", "partial", "7"))
		w.Modify(configMap("ns", "bare", "8"))
		synctest.Wait()
		for key, want := range map[string]metav1.TypeMeta{
			"ns/listed": full, "ns/added": full, "ns/partial": partial, "ns/bare": {},
		} {
			got, ok := inf.Indexer().Get(key)
			if !ok {
				t.Errorf("%s not in the cache", key)
				continue
			}
			if got.TypeMeta != want {
				t.Errorf("%s has TypeMeta %+v, want %+v as the test gave it", key, got.TypeMeta, want)
			}
		}
		if got, _ := inf.Indexer().Get("ns/bare"); got == nil || got.Data["v"] != "8" {
			t.Errorf("ns/bare = %v, want the modified object", got)
		}
	})
}

// A fake made by client-go's NewSimpleClientset (the only constructor of
// older client-gen fakes) keeps objects as the test gave them: without a
// resourceVersion, in its LIST and its watch events alike (only the list has
// one). A factory over it syncs and applies its events, as upstream's
// informers do; a real server's object without a resourceVersion is refused
// (reflector.ErrInvalidResourceVersion), not a fake's.
func TestClientsetConfigOverAFakeWithoutResourceVersions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		noRV := func(ns, name, v string) *corev1.ConfigMap {
			c := configMap(ns, name, v)
			c.ResourceVersion = ""
			return c
		}
		core := &fakeCoreV1{objs: []corev1.ConfigMap{*noRV("ns", "a", "1"), *noRV("other", "b", "2")}}
		f := factory.New(clientsetconfig.For(fakeClientset{core}), factory.Options{})
		defer f.Shutdown()
		inf := factory.InformerFor(f, configMapType)
		rec := new(runtimetest.Recorder[*corev1.ConfigMap])
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		w := core.watchAfterSync(t)
		w.Modify(noRV("ns", "a", "3"))
		w.Add(noRV("ns", "c", "4"))
		w.Delete(noRV("other", "b", "2"))
		if err := rec.WaitFor(ctx, func(s map[string]*corev1.ConfigMap) bool {
			return len(s) == 2 && s["ns/a"].Data["v"] == "3" && s["ns/c"] != nil
		}); err != nil {
			t.Fatalf("events from the fake's watch: %v; events %v", err, rec.Events())
		}
		var got []string
		for _, e := range rec.Events() {
			got = append(got, e.Type+" "+e.Key)
		}
		if want := []string{"add ns/a", "add other/b", "update ns/a", "add ns/c", "delete other/b"}; !slices.Equal(got, want) {
			t.Errorf("handler events = %q, want %q", got, want)
		}
		if err := rec.Err(); err != nil {
			t.Error(err)
		}
	})
}

// A fake's objects go out as the kind the factory's scheme registers their
// type as, which is not always the type's name (Zalando's postgres-operator
// registers Postgresql as kind "postgresql"): the LIST and the watch events
// decode, where kind ConfigMap would be refused as another kind's.
func TestClientsetConfigOverAFakeOfAKindNamedOtherwise(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lowerCase := configMapType
		lowerCase.AddToScheme = func(s *runtime.Scheme) error {
			gv := corev1.SchemeGroupVersion
			s.AddKnownTypeWithName(gv.WithKind("configmap"), &corev1.ConfigMap{})
			s.AddKnownTypeWithName(gv.WithKind("configmapList"), &corev1.ConfigMapList{})
			metav1.AddToGroupVersion(s, gv)
			return nil
		}
		core := &fakeCoreV1{objs: []corev1.ConfigMap{*configMap("ns", "a", "1")}}
		f := factory.New(clientsetconfig.For(fakeClientset{core}), factory.Options{})
		defer f.Shutdown()
		inf := factory.InformerFor(f, lowerCase)
		rec := new(runtimetest.Recorder[*corev1.ConfigMap])
		if _, err := inf.AddHandler(rec, informer.HandlerOptions{}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(ctx)
		if err := f.WaitForCacheSync(ctx); err != nil {
			t.Fatal(err)
		}
		w := core.watchAfterSync(t)
		b := configMap("ns", "b", "6")
		w.Add(b)
		if err := rec.WaitFor(ctx, func(s map[string]*corev1.ConfigMap) bool { return len(s) == 2 }); err != nil {
			t.Fatalf("events from the fake's watch: %v; events %v", err, rec.Events())
		}
		if err := rec.Err(); err != nil {
			t.Error(err)
		}
	})
}

// A fake's error reaches WaitForCacheSync with its API status and the
// resource's name, instead of a silent hang.
func TestClientsetConfigFakeErrorsAreReported(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		core := &fakeCoreV1{listErr: apierrors.NewForbidden(configMapType.Resource.GroupResource(), "", errors.New("forbidden by the test"))}
		f := factory.New(clientsetconfig.For(fakeClientset{core}), factory.Options{})
		defer f.Shutdown()
		factory.InformerFor(f, configMapType)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		f.Start(ctx)
		err := f.WaitForCacheSync(ctx)
		if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), "configmaps") || !strings.Contains(err.Error(), "forbidden by the test") {
			t.Errorf("WaitForCacheSync = %v, want the fake's 403 naming configmaps", err)
		}
	})
}

// notAClientset has a group-version client without the resource.
type notAClientset struct{}

func (notAClientset) AppsV1() *fakeCoreV1 { return &fakeCoreV1{} }

// Something that is not a clientset, or lacks the resource, gives a config
// whose every request fails, saying why.
func TestClientsetConfigOfSomethingElse(t *testing.T) {
	for name, tc := range map[string]struct {
		cs   any
		want string
	}{
		"nil":          {nil, "nil clientset"},
		"nil pointer":  {(*clientset)(nil), "nil clientset"},
		"string":       {"not a clientset", "string is not a client-gen clientset"},
		"no such type": {notAClientset{}, "no method CoreV1"},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := factory.New(clientsetconfig.For(tc.cs), factory.Options{})
				defer f.Shutdown()
				factory.InformerFor(f, configMapType)
				ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
				defer cancel()
				f.Start(ctx)
				err := f.WaitForCacheSync(ctx)
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "configmaps") {
					t.Errorf("WaitForCacheSync = %v, want an error naming configmaps and saying %q", err, tc.want)
				}
			})
		})
	}
}

// A real clientset lends the factory its server (with a path prefix) and
// its HTTP client, credentials included.
func TestClientsetConfigOfARealClientset(t *testing.T) {
	var (
		mu    sync.Mutex
		auths []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.URL.Path != "/prefix/api/v1/configmaps" {
			http.Error(w, "unexpected path "+r.URL.Path, http.StatusNotFound)
			return
		}
		q := r.URL.Query()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case q.Get("sendInitialEvents") == "true":
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: "Failure", Code: 400, Reason: metav1.StatusReasonBadRequest})
		case q.Get("watch") == "true":
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		default:
			list := corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}, ListMeta: metav1.ListMeta{ResourceVersion: "7"},
				Items: []corev1.ConfigMap{*configMap("ns", "a", "1")}}
			json.NewEncoder(w).Encode(list)
		}
	}))
	defer srv.Close()
	// What client-gen's NewForConfig does for core/v1.
	rcfg := &rest.Config{Host: srv.URL + "/prefix", BearerToken: "t0ken", APIPath: "/api"}
	rcfg.GroupVersion = &corev1.SchemeGroupVersion
	sch := runtime.NewScheme()
	if err := corev1.AddToScheme(sch); err != nil {
		t.Fatal(err)
	}
	rcfg.NegotiatedSerializer = serializer.NewCodecFactory(sch).WithoutConversion()
	rc, err := rest.RESTClientFor(rcfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientsetconfig.For(&clientset{realCoreV1{rc}})
	opts := factory.Options{Types: []factory.TypeOverride{factory.TypeOptions[*corev1.ConfigMap]{Type: configMapType, ContentType: "application/json"}}}
	f := factory.New(cfg, opts)
	defer f.Shutdown()
	inf := factory.InformerFor(f, configMapType)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	f.Start(ctx)
	if err := f.WaitForCacheSync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.Indexer().Get("ns/a"); !ok {
		t.Error("the server's object is not in the cache")
	}
	cancel()
	f.Shutdown()
	mu.Lock()
	defer mu.Unlock()
	if len(auths) == 0 {
		t.Fatal("no request reached the server")
	}
	for _, a := range auths {
		if a != "Bearer t0ken" {
			t.Errorf("request with Authorization %q, want the clientset's bearer token", a)
		}
	}
}
