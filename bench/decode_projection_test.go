package bench_test

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	projv1 "github.com/informer-gen/informer-gen/bench/generated/projections/core/v1"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// What a projection saves a controller that reads a few fields of Pods:
// the same LIST page of 500 bench Pods (~2.3 KB each, managedFields
// included), decoded as the factory's informers decode them — a Pod
// informer reads protobuf (the factory's default for built-in types), a
// projection's reads JSON, straight into bench/generated's PodSummary
// (.spec.nodeName, .status.phase, .status.podIP, .status.conditions; see
// hack/update-codegen.sh) — and what the decoded objects keep on the heap
// once the informer dropped managedFields.

var podSummaryDecoder = wire.GeneratedDecoder(corev1gen.PodSummaryType.DecodeJSON)

const projectionPage = 500

// podPageBodies returns one LIST page of bench Pods as JSON and as protobuf.
func podPageBodies(b *testing.B) (jsonBody, protoBody []byte) {
	jsonBody = podListBody(b, projectionPage)
	list := &corev1.PodList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "123456", Continue: "token"},
	}
	for i := range projectionPage {
		list.Items = append(list.Items, *newBenchPod(i))
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &buf); err != nil {
		b.Fatal(err)
	}
	return jsonBody, buf.Bytes()
}

// decodePage decodes body with codec into a fresh slice, dropping each
// object's managedFields as the informer does when it keeps them out of the
// cache (a JSON codec with SkipManagedFields never decodes them).
func decodePage[T interface {
	*E
	metav1.Object
}, E any](b *testing.B, codec wire.Codec[T], body []byte) []T {
	items := make([]T, 0, projectionPage)
	if _, err := codec.DecodeList(bytes.NewReader(body), func(o T) error {
		o.SetManagedFields(nil)
		items = append(items, o)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	if len(items) != projectionPage {
		b.Fatalf("%d items", len(items))
	}
	return items
}

func BenchmarkDecodeProjectionListPage(b *testing.B) {
	jsonBody, protoBody := podPageBodies(b)
	podGVK := corev1.SchemeGroupVersion.WithKind("Pod")
	rows := []struct {
		name   string
		body   []byte
		decode func(b *testing.B, body []byte) any
	}{
		{"what=Pod/wire=protobuf", protoBody, func(b *testing.B, body []byte) any {
			return decodePage(b, must(wire.NewProtobuf[*corev1.Pod](podGVK)), body)
		}},
		{"what=Pod/wire=json,generated", jsonBody, func(b *testing.B, body []byte) any {
			return decodePage(b, must(wire.NewJSON[*corev1.Pod](podGVK, wire.SkipManagedFields(), podDecoder)), body)
		}},
		{"what=PodSummary/wire=json,generated", jsonBody, func(b *testing.B, body []byte) any {
			return decodePage(b, must(wire.NewJSON[*projv1.PodSummary](podGVK, wire.SkipManagedFields(), podSummaryDecoder)), body)
		}},
		{"what=PodSummary/wire=json,reflective", jsonBody, func(b *testing.B, body []byte) any {
			return decodePage(b, must(wire.NewJSON[*projv1.PodSummary](podGVK, wire.SkipManagedFields())), body)
		}},
		// The anchor: client-go's informer of Pods reads protobuf too, into
		// one PodList; a Transform dropping managedFields (which it does not
		// do by default) leaves them garbage, as here.
		{"what=Pod/wire=protobuf,client-go", protoBody, func(b *testing.B, body []byte) any {
			dec, err := protoClientGoNegotiator().Decoder("application/vnd.kubernetes.protobuf", nil)
			if err != nil {
				b.Fatal(err)
			}
			into := &corev1.PodList{}
			if _, _, err := dec.Decode(body, nil, into); err != nil || len(into.Items) != projectionPage {
				b.Fatal(err, len(into.Items))
			}
			for i := range into.Items {
				into.Items[i].ManagedFields = nil
			}
			return into
		}},
	}
	for _, r := range rows {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(r.body)))
			b.ReportAllocs()
			defer protoCPU(b)()
			for range b.N {
				r.decode(b, r.body)
			}
		})
	}
	for _, r := range rows {
		b.Run("retained/"+r.name, func(b *testing.B) {
			retainedPerObject(b, projectionPage, func() any { return r.decode(b, r.body) })
		})
	}
}

// TestPodSummaryDecodesTheProjectedFields checks the benchmark's premise:
// the projection decoded from a Pod's JSON holds the Pod's metadata and
// projected fields, the same with and without the generated decoder.
func TestPodSummaryDecodesTheProjectedFields(t *testing.T) {
	body := podListBody(t, 3)
	podGVK := corev1.SchemeGroupVersion.WithKind("Pod")
	var pods []*corev1.Pod
	if _, err := must(wire.NewJSON[*corev1.Pod](podGVK)).DecodeList(bytes.NewReader(body), func(p *corev1.Pod) error {
		pods = append(pods, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]wire.Option{nil, {podSummaryDecoder}} {
		var n int
		_, err := must(wire.NewJSON[*projv1.PodSummary](podGVK, opts...)).DecodeList(bytes.NewReader(body), func(s *projv1.PodSummary) error {
			p := pods[n]
			n++
			if s.Name != p.Name || s.Namespace != p.Namespace || len(s.Labels) != len(p.Labels) || len(s.ManagedFields) != len(p.ManagedFields) {
				t.Errorf("%s: metadata differs", p.Name)
			}
			if s.Spec.NodeName != p.Spec.NodeName || s.Status.Phase != p.Status.Phase || s.Status.PodIP != p.Status.PodIP {
				t.Errorf("%s: projected fields %+v %+v, want %q %q %q", p.Name, s.Spec, s.Status, p.Spec.NodeName, p.Status.Phase, p.Status.PodIP)
			}
			if len(p.Status.Conditions) == 0 || !equality.Semantic.DeepEqual(s.Status.Conditions, p.Status.Conditions) {
				t.Errorf("%s: conditions %v, want %v", p.Name, s.Status.Conditions, p.Status.Conditions)
			}
			return nil
		})
		if err != nil || n != len(pods) {
			t.Fatalf("decoded %d of %d: %v", n, len(pods), err)
		}
	}
}
