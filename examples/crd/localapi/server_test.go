package localapi_test

import (
	"context"
	"net/http"
	"os"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.example.com
spec:
  group: test.example.com
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
---
`

var widgets = schema.GroupVersionResource{Group: "test.example.com", Version: "v1", Resource: "widgets"}

func widget(name string, size int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": name, "namespace": "default"},
		"spec":       map[string]any{"size": size},
	}}
}

func TestMain(m *testing.M) {
	localapi.QuietKlog()
	if os.Getenv(envChild) != "" {
		os.Exit(runChild())
	}
	os.Exit(m.Run())
}

// TestServerLifecycle starts a server, serves a CRD, restarts the API server
// on the same etcd data, compacts etcd and checks that an old resourceVersion
// is then refused with 410 (watch cache off), and stops.
func TestServerLifecycle(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	crds, err := localapi.ParseCRDs([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	if len(crds) != 1 || crds[0].Name != "widgets.test.example.com" {
		t.Fatalf("ParseCRDs = %d CRDs, want widgets.test.example.com", len(crds))
	}
	srv, err := localapi.Start(ctx, localapi.Options{CRDs: crds, DisableWatchCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := srv.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	}()

	// The kubeconfig is private and loads into a working client config.
	fi, err := os.Stat(srv.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode = %v, want 0600", fi.Mode().Perm())
	}
	kc, err := clientcmd.BuildConfigFromFlags("", srv.KubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	w := dyn.Resource(widgets).Namespace("default")
	created, err := w.Create(ctx, widget("a", 1), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create through the kubeconfig: %v", err)
	}

	// Anonymous requests are refused: only the kubeconfig's token works.
	anon := rest.AnonymousClientConfig(kc)
	hc, err := rest.HTTPClientFor(anon)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/apis/test.example.com/v1/namespaces/default/widgets", "/api", "/readyz"} {
		resp, err := hc.Get(kc.Host + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("anonymous GET %s: %s, want 401", path, resp.Status)
		}
	}
	bad := rest.CopyConfig(kc)
	bad.BearerToken = "not-the-token"
	if _, err := dynamic.NewForConfigOrDie(bad).Resource(widgets).Namespace("default").Create(ctx, widget("evil", 1), metav1.CreateOptions{}); !apierrors.IsUnauthorized(err) {
		t.Errorf("create with a wrong token: err = %v, want 401", err)
	}

	// Restart the API server: same port, same data. An open watch does not
	// hold the stop up (it used to take the generic server's 60s).
	wi, err := w.Watch(ctx, metav1.ListOptions{ResourceVersion: created.GetResourceVersion()})
	if err != nil {
		t.Fatal(err)
	}
	defer wi.Stop()
	stopStart := time.Now()
	if err := srv.StopAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(stopStart); d > 5*time.Second {
		t.Errorf("StopAPIServer with a watch open took %v, want about a second", d)
	}
	if _, err := w.Get(ctx, "a", metav1.GetOptions{}); err == nil {
		t.Fatal("GET succeeded while the API server was stopped")
	}
	if err := srv.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := w.Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("GET after restart: %v", err)
	}
	if got.GetResourceVersion() != created.GetResourceVersion() {
		t.Errorf("after restart RV = %s, want %s", got.GetResourceVersion(), created.GetResourceVersion())
	}

	// Compaction: a watch from the first RV is refused with 410 Expired.
	if _, err := w.Create(ctx, widget("b", 2), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.CompactEtcd(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = w.List(ctx, metav1.ListOptions{ResourceVersion: created.GetResourceVersion(), ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("exact LIST at a compacted RV: err = %v, want 410 Expired", err)
	}

	// DeleteCRD removes the resource from the server.
	if err := srv.DeleteCRD(ctx, "widgets.test.example.com"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("LIST after DeleteCRD: err = %v, want 404", err)
	}
}
