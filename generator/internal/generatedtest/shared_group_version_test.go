package generatedtest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"

	components "github.com/informer-gen/informer-gen/testdata/golden/shared-group-version/input/apis/components/v1alpha1"
	configuration "github.com/informer-gen/informer-gen/testdata/golden/shared-group-version/input/apis/configuration/v1alpha1"
	httpendpoint "github.com/informer-gen/informer-gen/testdata/golden/shared-group-version/input/apis/httpEndpoint/v1alpha1"
	daprinformers "github.com/informer-gen/informer-gen/testdata/golden/shared-group-version/want/informers"
)

// TestSharedGroupVersionSyncs: the kinds of one group version that three
// API packages declare (one of them registering in an init()) are served by
// one factory over HTTP, each from its own package, whichever starts first:
// every order of the three is tried (the factory's one REST client per group
// version is made by the first).
func TestSharedGroupVersionSyncs(t *testing.T) {
	items := map[string]any{
		"components":     components.Component{TypeMeta: metav1.TypeMeta{APIVersion: "dapr.example.com/v1alpha1", Kind: "Component"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "statestore", ResourceVersion: "5"}, Spec: components.ComponentSpec{Type: "state.redis"}},
		"configurations": configuration.Configuration{TypeMeta: metav1.TypeMeta{APIVersion: "dapr.example.com/v1alpha1", Kind: "Configuration"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tracing", ResourceVersion: "6"}, Spec: configuration.ConfigurationSpec{Tracing: true}},
		"httpendpoints":  httpendpoint.HTTPEndpoint{TypeMeta: metav1.TypeMeta{APIVersion: "dapr.example.com/v1alpha1", Kind: "HTTPEndpoint"}, ObjectMeta: metav1.ObjectMeta{Name: "github", ResourceVersion: "7"}, Spec: httpendpoint.HTTPEndpointSpec{BaseURL: "https://api.github.com"}},
	}
	kinds := map[string]string{"components": "ComponentList", "configurations": "ConfigurationList", "httpendpoints": "HTTPEndpointList"}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		resource, ok := strings.CutPrefix(r.URL.Path, "/apis/dapr.example.com/v1alpha1/")
		if !ok || items[resource] == nil {
			http.NotFound(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" {
			if r.URL.Query().Get("sendInitialEvents") == "true" {
				rw.WriteHeader(http.StatusBadRequest)
				_ = json.NewEncoder(rw).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"},
					Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest, Message: "sendInitialEvents is not supported"})
				return
			}
			rw.WriteHeader(http.StatusOK)
			rw.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		_ = json.NewEncoder(rw).Encode(map[string]any{
			"apiVersion": "dapr.example.com/v1alpha1", "kind": kinds[resource],
			"metadata": map[string]string{"resourceVersion": "10"}, "items": []any{items[resource]},
		})
	}))
	defer srv.Close()

	for _, order := range [][]string{
		{"components", "configurations", "httpendpoints"},
		{"configurations", "httpendpoints", "components"},
		{"httpendpoints", "components", "configurations"},
	} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			f := daprinformers.NewSharedInformerFactory(&rest.Config{Host: srv.URL}, factory.Options{HTTPClient: srv.Client()})
			defer f.Shutdown()
			v := f.Dapr().V1alpha1()
			for _, r := range order {
				switch r {
				case "components":
					v.Components().Informer()
				case "configurations":
					v.Configurations().Informer()
				case "httpendpoints":
					v.HTTPEndpoints().Informer()
				}
			}
			f.Start(t.Context())
			if err := f.WaitForCacheSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if c, err := v.Components().Lister().Components("ns").Get("statestore"); err != nil || c.Spec.Type != "state.redis" {
				t.Errorf("Components ns/statestore = %+v, %v", c, err)
			}
			if c, err := v.Configurations().Lister().Configurations("ns").Get("tracing"); err != nil || !c.Spec.Tracing {
				t.Errorf("Configurations ns/tracing = %+v, %v", c, err)
			}
			if e, err := v.HTTPEndpoints().Lister().Get("github"); err != nil || e.Spec.BaseURL != "https://api.github.com" {
				t.Errorf("HTTPEndpoints github = %+v, %v", e, err)
			}
		})
	}
}
