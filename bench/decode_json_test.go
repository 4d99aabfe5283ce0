package bench_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	goruntime "runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
	kjson "sigs.k8s.io/json"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// The JSON decode microbenchmarks: the same bytes through our wire codec and
// through client-go's decoders (what its REST client runs on a response,
// without the HTTP).

const decodeEvents = 100 // events per watch body; an op is one event

func podWatchBody(b *testing.B) []byte {
	var sb strings.Builder
	for i := range decodeEvents {
		p := newBenchPod(i)
		raw, err := json.Marshal(p) // apiVersion and kind set, as the server sends
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&sb, "{\"type\":\"MODIFIED\",\"object\":%s}\n", raw)
	}
	return []byte(sb.String())
}

func podListBody(b testing.TB, n int) []byte {
	list := &corev1.PodList{}
	list.APIVersion, list.Kind = "v1", "PodList"
	list.ResourceVersion, list.Continue = "123456", "next-page-token"
	for i := range n {
		p := newBenchPod(i)
		p.TypeMeta.Kind, p.TypeMeta.APIVersion = "", "" // built-in list items have none
		list.Items = append(list.Items, *p)
	}
	raw, err := json.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

func clientGoNegotiator() runtime.ClientNegotiator {
	return runtime.NewClientNegotiator(serializer.NewCodecFactory(clientgoscheme.Scheme).WithoutConversion(), corev1.SchemeGroupVersion)
}

// podDecoder is the generated JSON decoder of core/v1 Pod (bench/generated:
// informer-gen --json-decoders all on k8s.io/api/core/v1), the
// "impl=ours,generated" variants.
var podDecoder = wire.GeneratedDecoder(corev1gen.PodType.DecodeJSON)

// BenchmarkDecodeJSONWatchEvent decodes one Pod watch event (~2.3 KB) per op,
// from a body of 100 events.
func BenchmarkDecodeJSONWatchEvent(b *testing.B) {
	body := podWatchBody(b)
	ours := func(opts ...wire.Option) func(b *testing.B) {
		return func(b *testing.B) {
			codec := must(wire.NewJSON[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod"), opts...))
			b.ReportAllocs()
			b.SetBytes(int64(len(body) / decodeEvents))
			for n := 0; n < b.N; {
				d := codec.NewWatchDecoder(bytes.NewReader(body))
				for ; n < b.N; n++ {
					ev, err := d.Next()
					if err == io.EOF {
						break
					}
					if err != nil || ev.Object.Name == "" {
						b.Fatal(err)
					}
				}
			}
		}
	}
	b.Run("impl=ours", ours())
	b.Run("impl=ours,generated", ours(podDecoder))
	b.Run("impl=client-go", func(b *testing.B) {
		// rest.Request.newStreamWatcher's decoder stack.
		objDec, streamSer, framer, err := clientGoNegotiator().StreamDecoder("application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(body) / decodeEvents))
		for n := 0; n < b.N; {
			d := restclientwatch.NewDecoder(streaming.NewDecoder(framer.NewFrameReader(io.NopCloser(bytes.NewReader(body))), streamSer), objDec)
			for ; n < b.N; n++ {
				_, obj, err := d.Decode()
				if err == io.EOF {
					break
				}
				if err != nil || obj.(*corev1.Pod).Name == "" {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=sigs.k8s.io-json-object-only", func(b *testing.B) {
		// The reflective decode alone, without framing or kind lookup: a
		// floor for any decoder built on sigs.k8s.io/json.
		raw, err := json.Marshal(newBenchPod(0))
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var p corev1.Pod
			if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeJSONListPage decodes one LIST page of 500 Pods per op.
func BenchmarkDecodeJSONListPage(b *testing.B) {
	body := podListBody(b, 500)
	ours := func(opts ...wire.Option) func(b *testing.B) {
		return func(b *testing.B) {
			codec := must(wire.NewJSON[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod"), opts...))
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				items := make([]*corev1.Pod, 0, 500)
				lm, err := codec.DecodeList(bytes.NewReader(body), func(p *corev1.Pod) error {
					items = append(items, p)
					return nil
				})
				if err != nil || len(items) != 500 || lm.ResourceVersion == "" {
					b.Fatal(err)
				}
			}
		}
	}
	b.Run("impl=ours", ours())
	b.Run("impl=ours,generated", ours(podDecoder))
	b.Run("impl=client-go", func(b *testing.B) {
		// rest.Request.Do reads the body, Result.Into decodes it.
		dec, err := clientGoNegotiator().Decoder("application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			raw, err := io.ReadAll(bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			list := &corev1.PodList{}
			if _, _, err := dec.Decode(raw, nil, list); err != nil || len(list.Items) != 500 {
				b.Fatal(err)
			}
		}
	})
}

// benchFoo is a small CRD object like examples/crd's Foo (a few spec and
// status fields), with the metadata the API server gives it.
type benchFoo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              benchFooSpec   `json:"spec"`
	Status            benchFooStatus `json:"status,omitempty"`
}

type benchFooSpec struct {
	DeploymentName string `json:"deploymentName"`
	Replicas       int32  `json:"replicas"`
	HostName       string `json:"hostName,omitempty"`
}

type benchFooStatus struct {
	AvailableReplicas  int32 `json:"availableReplicas"`
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

func (f *benchFoo) DeepCopyObject() runtime.Object { c := *f; return &c }

type benchFooList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []benchFoo `json:"items"`
}

func (l *benchFooList) DeepCopyObject() runtime.Object { c := *l; return &c }

var benchFooGVK = schema.GroupVersionKind{Group: "samplecontroller.example.com", Version: "v1", Kind: "Foo"}

func newBenchFoo(i int) *benchFoo {
	created := metav1.Unix(1700000000+int64(i), 0)
	return &benchFoo{
		TypeMeta: metav1.TypeMeta{APIVersion: benchFooGVK.GroupVersion().String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%benchNamespaces), Name: fmt.Sprintf("foo-%d", i),
			UID:             types.UID(fmt.Sprintf("6c1e2f3a-0000-4000-8000-%012d", i)),
			ResourceVersion: fmt.Sprint(1000 + i), Generation: 1, CreationTimestamp: created,
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%benchApps), "tier": "web"},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "e2e", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "samplecontroller.example.com/v1",
				Time: &created, FieldsType: "FieldsV1",
				FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{".":{},"f:app":{},"f:tier":{}}},"f:spec":{".":{},"f:deploymentName":{},"f:hostName":{},"f:replicas":{}}}`),
			}},
		},
		Spec:   benchFooSpec{DeploymentName: fmt.Sprintf("deploy-%d", i), Replicas: int32(i % 5), HostName: fmt.Sprintf("host-%d", i%benchNodes)},
		Status: benchFooStatus{AvailableReplicas: int32(i % 5), ObservedGeneration: 1},
	}
}

func fooNegotiator() runtime.ClientNegotiator {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(benchFooGVK, &benchFoo{})
	scheme.AddKnownTypeWithName(benchFooGVK.GroupVersion().WithKind("FooList"), &benchFooList{})
	metav1.AddToGroupVersion(scheme, benchFooGVK.GroupVersion())
	return runtime.NewClientNegotiator(serializer.NewCodecFactory(scheme).WithoutConversion(), benchFooGVK.GroupVersion())
}

// BenchmarkDecodeJSONCRDWatchEvent is BenchmarkDecodeJSONWatchEvent for a
// small CRD object (~0.8 KB), as the end-to-end benchmark's Foos.
func BenchmarkDecodeJSONCRDWatchEvent(b *testing.B) {
	var sb strings.Builder
	for i := range decodeEvents {
		raw, err := json.Marshal(newBenchFoo(i))
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&sb, "{\"type\":\"MODIFIED\",\"object\":%s}\n", raw)
	}
	body := []byte(sb.String())
	b.Run("impl=ours", func(b *testing.B) {
		codec := must(wire.NewJSON[*benchFoo](benchFooGVK))
		b.ReportAllocs()
		b.SetBytes(int64(len(body) / decodeEvents))
		for n := 0; n < b.N; {
			d := codec.NewWatchDecoder(bytes.NewReader(body))
			for ; n < b.N; n++ {
				ev, err := d.Next()
				if err == io.EOF {
					break
				}
				if err != nil || ev.Object.Name == "" {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		objDec, streamSer, framer, err := fooNegotiator().StreamDecoder("application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(body) / decodeEvents))
		for n := 0; n < b.N; {
			d := restclientwatch.NewDecoder(streaming.NewDecoder(framer.NewFrameReader(io.NopCloser(bytes.NewReader(body))), streamSer), objDec)
			for ; n < b.N; n++ {
				_, obj, err := d.Decode()
				if err == io.EOF {
					break
				}
				if err != nil || obj.(*benchFoo).Name == "" {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkDecodeJSONCRDListPage decodes one LIST page of 500 benchFoos per op.
func BenchmarkDecodeJSONCRDListPage(b *testing.B) {
	list := &benchFooList{TypeMeta: metav1.TypeMeta{APIVersion: benchFooGVK.GroupVersion().String(), Kind: "FooList"}}
	list.ResourceVersion, list.Continue = "123456", "next-page-token"
	for i := range 500 {
		list.Items = append(list.Items, *newBenchFoo(i)) // CRD list items keep their kind
	}
	body, err := json.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("impl=ours", func(b *testing.B) {
		codec := must(wire.NewJSON[*benchFoo](benchFooGVK))
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			items := make([]*benchFoo, 0, 500)
			lm, err := codec.DecodeList(bytes.NewReader(body), func(f *benchFoo) error {
				items = append(items, f)
				return nil
			})
			if err != nil || len(items) != 500 || lm.ResourceVersion == "" {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		dec, err := fooNegotiator().Decoder("application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			raw, err := io.ReadAll(bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			list := &benchFooList{}
			if _, _, err := dec.Decode(raw, nil, list); err != nil || len(list.Items) != 500 {
				b.Fatal(err)
			}
		}
	})
}

// newE2EFoo is Foo number i as the end-to-end benchmark creates it
// (bench/e2e's fooObject: five labels, two annotations, a spec with a host)
// with the metadata the API server adds, managedFields included (~1.3 KB).
func newE2EFoo(i int) *benchFoo {
	created := metav1.Unix(1700000000+int64(i), 0)
	name := fmt.Sprintf("foo-%06d", i)
	tiers := [...]string{"web", "api", "db"}
	return &benchFoo{
		TypeMeta: metav1.TypeMeta{APIVersion: benchFooGVK.GroupVersion().String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("bench-%d", i%benchNamespaces), Name: name,
			UID:             types.UID(fmt.Sprintf("6c1e2f3a-0000-4000-8000-%012d", i)),
			ResourceVersion: fmt.Sprint(100000 + i), Generation: 1, CreationTimestamp: created,
			Labels: map[string]string{
				"app.kubernetes.io/name":    fmt.Sprintf("app-%d", i%50),
				"app.kubernetes.io/part-of": fmt.Sprintf("system-%d", i%7),
				"tier":                      tiers[i%3],
				"team":                      fmt.Sprintf("team-%d", i%8),
				"environment":               "production",
			},
			Annotations: map[string]string{
				"example.com/owner":       fmt.Sprintf("team-%d@example.com", i%8),
				"example.com/description": "a Foo created by the end-to-end benchmark to stand for a typical custom resource",
			},
			ManagedFields: []metav1.ManagedFieldsEntry{{
				Manager: "e2e.test", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "samplecontroller.example.com/v1",
				Time: &created, FieldsType: "FieldsV1",
				FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:annotations":{".":{},"f:example.com/description":{},"f:example.com/owner":{}},` +
					`"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:environment":{},"f:team":{},"f:tier":{}}},` +
					`"f:spec":{".":{},"f:deploymentName":{},"f:hostName":{},"f:replicas":{}}}`),
			}},
		},
		Spec: benchFooSpec{DeploymentName: "deploy-" + name, Replicas: int32(i % 5), HostName: fmt.Sprintf("host-%d", i%20)},
	}
}

const e2eFoos = 5000 // items in BenchmarkDecodeJSONFooList's body

func e2eFooListBody(b testing.TB, n int) []byte {
	list := &benchFooList{TypeMeta: metav1.TypeMeta{APIVersion: benchFooGVK.GroupVersion().String(), Kind: "FooList"}}
	list.ResourceVersion = "123456"
	for i := range n {
		list.Items = append(list.Items, *newE2EFoo(i))
	}
	body, err := json.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	return body
}

// BenchmarkDecodeJSONFooList decodes the unpaged LIST of 5,000 Foos shaped
// like the end-to-end benchmark's (one op is the whole body), our codec with
// and without SkipManagedFields (what the factory can ask for when it strips
// managedFields anyway) against client-go's Do().Into.
func BenchmarkDecodeJSONFooList(b *testing.B) {
	body := e2eFooListBody(b, e2eFoos)
	ours := func(codec wire.Codec[*benchFoo]) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				items := make([]*benchFoo, 0, e2eFoos)
				_, err := codec.DecodeList(bytes.NewReader(body), func(f *benchFoo) error {
					items = append(items, f)
					return nil
				})
				if err != nil || len(items) != e2eFoos {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/e2eFoos, "ns/obj")
		}
	}
	b.Run("impl=ours", ours(must(wire.NewJSON[*benchFoo](benchFooGVK))))
	b.Run("impl=ours,skipmanagedfields", ours(must(wire.NewJSON[*benchFoo](benchFooGVK, wire.SkipManagedFields()))))
	b.Run("impl=client-go", func(b *testing.B) {
		dec, err := fooNegotiator().Decoder("application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			raw, err := io.ReadAll(bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			list := &benchFooList{}
			if _, _, err := dec.Decode(raw, nil, list); err != nil || len(list.Items) != e2eFoos {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/e2eFoos, "ns/obj")
	})
}

// retainedPerObject reports, as B/obj, the heap that the objects decode
// returns (n of them, kept alive) hold after a GC: what a cache of them
// costs, the decoder's garbage and scratch excluded.
func retainedPerObject(b *testing.B, n int, decode func() any) {
	var sum uint64
	for b.Loop() {
		var before, after goruntime.MemStats
		goruntime.GC()
		goruntime.ReadMemStats(&before)
		keep := decode()
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		sum += after.HeapAlloc - before.HeapAlloc
		goruntime.KeepAlive(keep)
	}
	b.ReportMetric(float64(sum)/float64(b.N)/float64(n), "B/obj")
}

// BenchmarkDecodeJSONRetained measures the heap held per decoded object, of
// a LIST body of 2,000 Pods (bench's 2.3 KB Pod) or Foos (the end-to-end
// benchmark's): our items, each its own allocation, against client-go's
// decoded list (whose items share its Items array, as client-go's informer
// keeps them). Both keep managedFields, except ours with SkipManagedFields.
func BenchmarkDecodeJSONRetained(b *testing.B) {
	const n = 2000
	podBody := podListBody(b, n)
	fooBody := e2eFooListBody(b, n)
	oursList := func(b *testing.B, body []byte, decodeList func(io.Reader, func(any)) error) {
		retainedPerObject(b, n, func() any {
			items := make([]any, 0, n)
			if err := decodeList(bytes.NewReader(body), func(o any) { items = append(items, o) }); err != nil || len(items) != n {
				b.Fatal(err)
			}
			return items
		})
	}
	clientGoList := func(b *testing.B, neg runtime.ClientNegotiator, body []byte, newList func() runtime.Object) {
		dec, err := neg.Decoder("application/json", nil)
		if err != nil {
			b.Fatal(err)
		}
		retainedPerObject(b, n, func() any {
			raw, err := io.ReadAll(bytes.NewReader(body))
			if err != nil {
				b.Fatal(err)
			}
			list := newList()
			if _, _, err := dec.Decode(raw, nil, list); err != nil {
				b.Fatal(err)
			}
			return list
		})
	}
	podCodec := must(wire.NewJSON[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod")))
	b.Run("kind=Pod/impl=ours", func(b *testing.B) {
		oursList(b, podBody, func(r io.Reader, each func(any)) error {
			_, err := podCodec.DecodeList(r, func(p *corev1.Pod) error { each(p); return nil })
			return err
		})
	})
	podGenCodec := must(wire.NewJSON[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod"), podDecoder))
	b.Run("kind=Pod/impl=ours,generated", func(b *testing.B) {
		oursList(b, podBody, func(r io.Reader, each func(any)) error {
			_, err := podGenCodec.DecodeList(r, func(p *corev1.Pod) error { each(p); return nil })
			return err
		})
	})
	b.Run("kind=Pod/impl=client-go", func(b *testing.B) {
		clientGoList(b, clientGoNegotiator(), podBody, func() runtime.Object { return &corev1.PodList{} })
	})
	for _, c := range []struct {
		impl  string
		codec wire.Codec[*benchFoo]
	}{
		{"ours", must(wire.NewJSON[*benchFoo](benchFooGVK))},
		{"ours,skipmanagedfields", must(wire.NewJSON[*benchFoo](benchFooGVK, wire.SkipManagedFields()))},
	} {
		b.Run("kind=Foo/impl="+c.impl, func(b *testing.B) {
			oursList(b, fooBody, func(r io.Reader, each func(any)) error {
				_, err := c.codec.DecodeList(r, func(f *benchFoo) error { each(f); return nil })
				return err
			})
		})
	}
	b.Run("kind=Foo/impl=client-go", func(b *testing.B) {
		clientGoList(b, fooNegotiator(), fooBody, func() runtime.Object { return &benchFooList{} })
	})
}
