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

	net "github.com/informer-gen/informer-gen/testdata/golden/unregistered-genclient-kind/input/apis/net/v2alpha1"
	netinformers "github.com/informer-gen/informer-gen/testdata/golden/unregistered-genclient-kind/want/informers"
)

// TestUnregisteredKindSyncs: a +genclient kind its package's AddToScheme
// leaves out (Cilium's v2alpha1 CiliumCIDRGroup) syncs over HTTP beside one
// the package registers, whichever starts first: the factory decodes
// through the scheme the first Type of the group version builds, which
// must know both.
func TestUnregisteredKindSyncs(t *testing.T) {
	items := map[string]any{
		"pools":      net.Pool{TypeMeta: metav1.TypeMeta{APIVersion: "net.example.com/v2alpha1", Kind: "Pool"}, ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "lb", ResourceVersion: "5"}, Spec: net.PoolSpec{CIDR: "10.0.0.0/24"}},
		"cidrgroups": net.CIDRGroup{TypeMeta: metav1.TypeMeta{APIVersion: "net.example.com/v2alpha1", Kind: "CIDRGroup"}, ObjectMeta: metav1.ObjectMeta{Name: "external", ResourceVersion: "6"}, Spec: net.CIDRGroupSpec{ExternalCIDRs: []string{"192.0.2.0/24"}}},
	}
	lists := map[string]string{"pools": "PoolList", "cidrgroups": "CIDRGroupList"}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		resource, ok := strings.CutPrefix(r.URL.Path, "/apis/net.example.com/v2alpha1/")
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
			"apiVersion": "net.example.com/v2alpha1", "kind": lists[resource],
			"metadata": map[string]string{"resourceVersion": "10"}, "items": []any{items[resource]},
		})
	}))
	defer srv.Close()

	for _, first := range []string{"pools", "cidrgroups"} {
		t.Run(first+" first", func(t *testing.T) {
			f := netinformers.NewSharedInformerFactory(&rest.Config{Host: srv.URL}, factory.Options{HTTPClient: srv.Client()})
			defer f.Shutdown()
			v := f.Net().V2alpha1()
			if first == "pools" {
				v.Pools().Informer()
				v.CIDRGroups().Informer()
			} else {
				v.CIDRGroups().Informer()
				v.Pools().Informer()
			}
			f.Start(t.Context())
			if err := f.WaitForCacheSync(t.Context()); err != nil {
				t.Fatal(err)
			}
			if p, err := v.Pools().Lister().Pools("ns").Get("lb"); err != nil || p.Spec.CIDR != "10.0.0.0/24" {
				t.Errorf("Pools ns/lb = %+v, %v", p, err)
			}
			if g, err := v.CIDRGroups().Lister().Get("external"); err != nil || len(g.Spec.ExternalCIDRs) != 1 {
				t.Errorf("CIDRGroups external = %+v, %v", g, err)
			}
		})
	}
}
