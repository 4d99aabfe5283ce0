package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/types"

	samplev1 "github.com/informer-gen/informer-gen/examples/crd/apis/samplecontroller/v1"
	samplev1gen "github.com/informer-gen/informer-gen/examples/crd/generated/informers/samplecontroller/v1"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// decodeFoo is Foo number i of the end-to-end benchmark (five labels, two
// annotations, a spec with a host) with the metadata the API server adds,
// managedFields included (~1.3 KB): bench's newE2EFoo, as examples/crd's
// own type, whose decoder informer-gen generates.
func decodeFoo(i int) samplev1.Foo {
	created := metav1.Unix(1700000000+int64(i), 0)
	name := fmt.Sprintf("foo-%06d", i)
	tiers := [...]string{"web", "api", "db"}
	return samplev1.Foo{
		TypeMeta: metav1.TypeMeta{APIVersion: samplev1.SchemeGroupVersion.String(), Kind: "Foo"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("bench-%d", i%10), Name: name,
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
				FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:annotations":{".":{},"f:example.com/description":{},"f:example.com/owner":{}},` +
					`"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:environment":{},"f:team":{},"f:tier":{}}},` +
					`"f:spec":{".":{},"f:deploymentName":{},"f:hostName":{},"f:replicas":{}}}`)},
			}},
		},
		Spec: samplev1.FooSpec{DeploymentName: "deploy-" + name, Replicas: int32(i % 5), HostName: fmt.Sprintf("host-%d", i%20)},
	}
}

const decodeFoos = 5000

// BenchmarkDecodeJSONFooList decodes the unpaged LIST of 5,000 Foos of the
// end-to-end benchmark (one op is the whole body) with our codec — without
// and with examples/crd's generated decoder, with and without
// SkipManagedFields — and with client-go's Do().Into. Compare with
// `go run github.com/informer-gen/informer-gen/hack/benchratio` (from the
// root module).
func BenchmarkDecodeJSONFooList(b *testing.B) {
	list := &samplev1.FooList{TypeMeta: metav1.TypeMeta{APIVersion: samplev1.SchemeGroupVersion.String(), Kind: "FooList"}}
	list.ResourceVersion = "123456"
	for i := range decodeFoos {
		list.Items = append(list.Items, decodeFoo(i))
	}
	body, err := json.Marshal(list)
	if err != nil {
		b.Fatal(err)
	}
	gvk := samplev1.SchemeGroupVersion.WithKind("Foo")
	gen := wire.GeneratedDecoder(samplev1gen.FooType.DecodeJSON)
	ours := func(opts ...wire.Option) func(b *testing.B) {
		codec := must(wire.NewJSON[*samplev1.Foo](gvk, opts...))
		return func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				n := 0
				if _, err := codec.DecodeList(bytes.NewReader(body), func(*samplev1.Foo) error { n++; return nil }); err != nil || n != decodeFoos {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/decodeFoos, "ns/obj")
		}
	}
	b.Run("impl=ours", ours())
	b.Run("impl=ours,generated", ours(gen))
	b.Run("impl=ours,skipmanagedfields", ours(wire.SkipManagedFields()))
	b.Run("impl=ours,generated,skipmanagedfields", ours(gen, wire.SkipManagedFields()))
	b.Run("impl=client-go", func(b *testing.B) {
		scheme := runtime.NewScheme()
		if err := samplev1.AddToScheme(scheme); err != nil {
			b.Fatal(err)
		}
		dec, err := runtime.NewClientNegotiator(serializer.NewCodecFactory(scheme).WithoutConversion(), samplev1.SchemeGroupVersion).Decoder("application/json", nil)
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
			l := &samplev1.FooList{}
			if _, _, err := dec.Decode(raw, nil, l); err != nil || len(l.Items) != decodeFoos {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/decodeFoos, "ns/obj")
	})
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
