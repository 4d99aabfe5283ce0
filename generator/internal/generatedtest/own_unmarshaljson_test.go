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

	acidinformers "github.com/informer-gen/informer-gen/testdata/golden/kind-own-unmarshaljson/want/informers"
)

// TestKindWithOwnUnmarshalJSON: Postgresql has its own UnmarshalJSON, which
// keeps an object whose spec does not decode and records why; it gets no
// generated decoder, and its informer, over HTTP, decodes through the
// method: both objects of the LIST are cached, the bad one with its Error.
// Cluster, beside it, has a generated decoder.
func TestKindWithOwnUnmarshalJSON(t *testing.T) {
	lists := map[string]string{
		"postgresqls": `{"apiVersion":"acid.example.com/v1","kind":"PostgresqlList","metadata":{"resourceVersion":"10"},"items":[` +
			`{"apiVersion":"acid.example.com/v1","kind":"Postgresql","metadata":{"namespace":"ns","name":"good","resourceVersion":"5"},"spec":{"numberOfInstances":2}},` +
			`{"apiVersion":"acid.example.com/v1","kind":"Postgresql","metadata":{"namespace":"ns","name":"bad","resourceVersion":"6"},"spec":{"numberOfInstances":"two"}}]}`,
		"clusters": `{"apiVersion":"acid.example.com/v1","kind":"ClusterList","metadata":{"resourceVersion":"10"},"items":[` +
			`{"apiVersion":"acid.example.com/v1","kind":"Cluster","metadata":{"namespace":"ns","name":"c","resourceVersion":"7"},"spec":{"numberOfInstances":3}}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		resource, ok := strings.CutPrefix(r.URL.Path, "/apis/acid.example.com/v1/")
		if !ok || lists[resource] == "" {
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
		_, _ = rw.Write([]byte(lists[resource]))
	}))
	defer srv.Close()

	f := acidinformers.NewSharedInformerFactory(&rest.Config{Host: srv.URL}, factory.Options{HTTPClient: srv.Client()})
	defer f.Shutdown()
	v := f.Acid().V1()
	v.Postgresqls().Informer()
	v.Clusters().Informer()
	f.Start(t.Context())
	if err := f.WaitForCacheSync(t.Context()); err != nil {
		t.Fatal(err)
	}
	pgs := v.Postgresqls().Lister().Postgresqls("ns")
	if good, err := pgs.Get("good"); err != nil || good.Spec.Instances != 2 || good.Error != "" {
		t.Errorf("good = %+v, %v; want 2 instances, no error", good, err)
	}
	if bad, err := pgs.Get("bad"); err != nil || bad.Spec.Instances != 0 || bad.Error == "" {
		t.Errorf("bad = %+v, %v; want it cached with the method's Error", bad, err)
	}
	if c, err := v.Clusters().Lister().Clusters("ns").Get("c"); err != nil || c.Spec.Instances != 3 {
		t.Errorf("cluster c = %+v, %v", c, err)
	}
}
