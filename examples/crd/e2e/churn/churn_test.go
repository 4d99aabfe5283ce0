package churn

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/listwatch"

	"github.com/informer-gen/informer-gen/examples/crd/internal/e2eutil"
	"github.com/informer-gen/informer-gen/examples/crd/internal/parallel"
	"github.com/informer-gen/informer-gen/examples/crd/localapi"
)

// BenchmarkInformerChurnE2E adds and removes the informers of 200 kinds in a
// loop against a local API server, as a controller whose watched kinds
// change at run time does. The server runs in a child process (this test
// binary, started once with envServer set), which installs 200 CRDs (kinds
// Churn0..Churn199 of churn.example.com/v1, a one-field schema) and creates 5
// objects of each; so this process holds only the client side. Each round
// creates every kind's informer through one factory on the server's
// kubeconfig (InformerFor + AddHandler), waits for the caches to sync
// (WaitForCacheSync), and removes them all (factory.RemoveInformer); ns/op is
// one round.
//
// After one warm-up round (what the first use of the group keeps for good:
// its scheme, REST client, HTTP/2 connection), it takes a baseline, runs b.N
// rounds, and reports:
//
//   - goroutines-over: goroutines above the baseline (want 0);
//   - heap-ratio: the live heap after GC over the baseline's (want ≤ 1.05),
//     and heap-over-MiB, the difference; heap-held-MiB, what the heap grew by
//     while the 200 informers were synced, is the scale a leak of the
//     informers' caches would show on, and heap0-MiB the baseline;
//   - open-requests: the factory's HTTP requests whose response is not yet
//     closed (its transport is wrapped to count them; want 0), and
//     open-watches: the server's own count of WATCH requests on the group
//     still running (apiserver_longrunning_requests; want 0), next to
//     watches-synced, the same count while the warm-up round's informers
//     were synced (one WATCH per kind when the server supports WatchList).
//
// It logs how long starting the server process (with the CRDs and objects)
// took.
//
//	cd examples/crd && go test -run '^$' -bench 'BenchmarkInformerChurnE2E$' -benchtime 30x ./e2e/churn/
func BenchmarkInformerChurnE2E(b *testing.B) {
	ctx := b.Context()
	setupCtx, cancel := context.WithTimeout(ctx, 3*e2eutil.Patience)
	defer cancel()
	server, err := startServer(setupCtx)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("API server process with %d kinds of %d objects ready in %v", churnKinds, churnObjects, serverSetup.Round(time.Millisecond))

	var open atomic.Int64
	hc, err := rest.HTTPClientFor(server.config())
	if err != nil {
		b.Fatal(err)
	}
	hc.Transport = &countingTransport{next: hc.Transport, open: &open}
	f := factory.New(server.config(), factory.Options{HTTPClient: hc})
	defer f.Shutdown()
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	f.Start(runCtx)

	types := churnTypes()
	round := func(synced func()) {
		for _, typ := range types {
			inf := factory.InformerFor(f, typ)
			if _, err := inf.AddHandler(informer.HandlerFuncs[*churnObject]{}, informer.HandlerOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		syncCtx, cancel := context.WithTimeout(runCtx, e2eutil.Patience)
		err := f.WaitForCacheSync(syncCtx)
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		for _, typ := range types {
			if n := len(factory.InformerFor(f, typ).Indexer().List()); n != churnObjects {
				b.Fatalf("%s: %d objects cached after sync, want %d", typ.Resource.Resource, n, churnObjects)
			}
		}
		if synced != nil {
			synced()
		}
		for _, typ := range types {
			if !f.RemoveInformer(typ) {
				b.Fatalf("%s: no informer to remove", typ.Resource)
			}
		}
	}

	_, heapCold := churnBaseline()
	var heapSynced uint64
	watchesSynced, watchesErr := 0, error(nil)
	round(func() {
		_, heapSynced = churnBaseline()
		watchesSynced, watchesErr = openWatches(ctx, server.config())
	})
	goroutines0, heap0 := churnBaseline()
	b.ResetTimer()
	for range b.N {
		round(nil)
	}
	b.StopTimer()
	goroutines, heap := churnBaseline()
	watches, err := openWatches(ctx, server.config())
	if err != nil {
		b.Logf("open-watches not reported: %v", err)
	} else {
		b.ReportMetric(float64(watches), "open-watches")
	}
	if watchesErr == nil {
		b.ReportMetric(float64(watchesSynced), "watches-synced")
	}
	b.ReportMetric(float64(goroutines-goroutines0), "goroutines-over")
	b.ReportMetric(float64(heap)/float64(heap0), "heap-ratio")
	b.ReportMetric((float64(heap)-float64(heap0))/(1<<20), "heap-over-MiB")
	b.ReportMetric((float64(heapSynced)-float64(heapCold))/(1<<20), "heap-held-MiB")
	b.ReportMetric(float64(heap0)/(1<<20), "heap0-MiB")
	b.ReportMetric(float64(open.Load()), "open-requests")
}

const (
	churnKinds   = 200
	churnObjects = 5
	churnGroup   = "churn.example.com"
	churnNS      = "churn"
)

var churnGV = schema.GroupVersion{Group: churnGroup, Version: "v1"}

func churnKind(k int) string   { return "Churn" + strconv.Itoa(k) }
func churnPlural(k int) string { return "churn" + strconv.Itoa(k) + "s" }

// churnObject is the Go type of all 200 kinds: the scheme registers it under
// each kind's name, and each factory.Type names its kind (Type.Kind), which
// the JSON codec checks every object's kind against.
type churnObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              churnSpec `json:"spec"`
}

type churnSpec struct {
	Value string `json:"value"`
}

func (o *churnObject) DeepCopy() *churnObject {
	if o == nil {
		return nil
	}
	out := &churnObject{TypeMeta: o.TypeMeta, Spec: o.Spec}
	o.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return out
}

func (o *churnObject) DeepCopyObject() k8sruntime.Object { return o.DeepCopy() }

// addChurnToScheme registers churnObject under every churn kind.
func addChurnToScheme(s *k8sruntime.Scheme) error {
	for k := range churnKinds {
		s.AddKnownTypeWithName(churnGV.WithKind(churnKind(k)), &churnObject{})
	}
	metav1.AddToGroupVersion(s, churnGV)
	return nil
}

func churnTypes() []factory.Type[*churnObject] {
	types := make([]factory.Type[*churnObject], churnKinds)
	for k := range types {
		types[k] = factory.Type[*churnObject]{
			Resource:    churnGV.WithResource(churnPlural(k)),
			Namespaced:  true,
			AddToScheme: addChurnToScheme,
			Kind:        churnKind(k),
		}
	}
	return types
}

// installChurnKinds installs the 200 CRDs on server and creates the objects
// of each, logging how long each step took to stderr.
func installChurnKinds(ctx context.Context, server *localapi.Server) error {
	crds := make([]*localapi.CRD, churnKinds)
	for k := range crds {
		crds[k] = &localapi.CRD{
			ObjectMeta: metav1.ObjectMeta{Name: churnPlural(k) + "." + churnGroup},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: churnGroup,
				Names: apiextensionsv1.CustomResourceDefinitionNames{
					Kind: churnKind(k), ListKind: churnKind(k) + "List",
					Plural: churnPlural(k), Singular: strings.ToLower(churnKind(k)),
				},
				Scope: apiextensionsv1.NamespaceScoped,
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
					Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
						Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"value": {Type: "string"},
							}},
						},
					}},
				}},
			},
		}
	}
	start := time.Now()
	if err := server.InstallCRDs(ctx, crds...); err != nil {
		return err
	}
	installed := time.Since(start)

	cfg := rest.CopyConfig(server.Config())
	cfg.QPS = -1
	scheme := k8sruntime.NewScheme()
	if err := addChurnToScheme(scheme); err != nil {
		return err
	}
	c, err := listwatch.NewRESTClient(cfg, nil, scheme, churnGV)
	if err != nil {
		return err
	}
	start = time.Now()
	err = parallel.Do(ctx, 16, 0, churnKinds*churnObjects, func(i int) error {
		k, n := i/churnObjects, i%churnObjects
		body := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"obj-%d","namespace":%q},"spec":{"value":"v%d"}}`,
			churnGV.String(), churnKind(k), n, churnNS, n)
		err := c.Post().Namespace(churnNS).Resource(churnPlural(k)).SetHeader("Content-Type", "application/json").
			Body([]byte(body)).Do(ctx).Error()
		if err != nil {
			return fmt.Errorf("creating %s %s/obj-%d: %w", churnKind(k), churnNS, n, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "installed %d CRDs (served) in %v; created %d objects in %v\n", churnKinds, installed.Round(time.Millisecond),
		churnKinds*churnObjects, time.Since(start).Round(time.Millisecond))
	return nil
}

// churnBaseline returns the goroutine count and the live heap after GC.
// Goroutines that are exiting get a moment to finish.
func churnBaseline() (int, uint64) {
	var ms runtime.MemStats
	for range 2 {
		runtime.GC()
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return runtime.NumGoroutine(), ms.HeapAlloc
}

// countingTransport counts the requests whose response body is not yet
// closed (or that have not yet returned).
type countingTransport struct {
	next http.RoundTripper
	open *atomic.Int64
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	t.open.Add(1)
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		t.open.Add(-1)
		return nil, err
	}
	resp.Body = &countedBody{ReadCloser: resp.Body, open: t.open}
	return resp, nil
}

type countedBody struct {
	io.ReadCloser
	open *atomic.Int64
	once sync.Once
}

func (b *countedBody) Close() error {
	b.once.Do(func() { b.open.Add(-1) })
	return b.ReadCloser.Close()
}

// openWatches returns the server's count of running WATCH requests on the
// churn group (the apiserver_longrunning_requests gauge of its /metrics).
func openWatches(ctx context.Context, cfg *rest.Config) (int, error) {
	c, err := rest.UnversionedRESTClientFor(withNegotiator(cfg))
	if err != nil {
		return 0, err
	}
	raw, err := c.Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return 0, err
	}
	n, seen := 0, false
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_longrunning_requests{") {
			continue
		}
		seen = true
		if !strings.Contains(line, `verb="WATCH"`) || !strings.Contains(line, `group="`+churnGroup+`"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, fmt.Errorf("metrics line %q: %w", line, err)
		}
		n += int(v)
	}
	if !seen {
		return 0, fmt.Errorf("no apiserver_longrunning_requests in the server's /metrics")
	}
	return n, sc.Err()
}

func withNegotiator(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.NegotiatedSerializer = serializer.NewCodecFactory(k8sruntime.NewScheme()).WithoutConversion()
	return cfg
}
