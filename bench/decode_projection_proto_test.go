package bench_test

import (
	"bytes"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	projv1 "github.com/informer-gen/informer-gen/bench/generated/projections/core/v1"
	"github.com/informer-gen/informer-gen/runtime/wire"
)

// What reading a projection of a built-in kind from protobuf costs, in
// memory: one LIST of 1,000 bench Pods (~2.3 KB each as JSON, managedFields
// included) decoded into bench/generated's PodSummary (.spec.nodeName,
// .status.phase, .status.podIP, .status.conditions) from protobuf with its
// generated protobuf decoder, from JSON with its generated JSON decoder, and
// by decoding each Pod whole from protobuf, then projecting it (what a
// client without a projection decoder would do). managedFields are dropped
// in every row, as the informer drops them. Run the rows alternated:
//
//	go test ./bench -run '^$' -bench 'BenchmarkDecodeProjectionProtobuf$' -count 6

const projectionProtoItems = 1000

func BenchmarkDecodeProjectionProtobuf(b *testing.B) {
	podGVK := corev1.SchemeGroupVersion.WithKind("Pod")
	jsonBody := podListBody(b, projectionProtoItems)
	protoBody := podProtoListBody(b, projectionProtoItems)
	if corev1gen.PodSummaryType.DecodeProtobuf == nil {
		b.Fatal("PodSummary has no protobuf decoder: bench/generated is stale (run hack/update-codegen.sh)")
	}
	rows := []struct {
		name   string
		body   []byte
		decode func(b *testing.B, body []byte) int
	}{
		{"what=PodSummary/wire=protobuf,generated", protoBody, func(b *testing.B, body []byte) int {
			codec := must(wire.NewProtobufProjection(podGVK, corev1gen.PodSummaryType.DecodeProtobuf, wire.SkipManagedFields()))
			return len(decodeAll(b, codec, body))
		}},
		{"what=PodSummary/wire=json,generated", jsonBody, func(b *testing.B, body []byte) int {
			codec := must(wire.NewJSON[*projv1.PodSummary](podGVK, wire.SkipManagedFields(), podSummaryDecoder))
			return len(decodeAll(b, codec, body))
		}},
		{"what=Pod-then-PodSummary/wire=protobuf", protoBody, func(b *testing.B, body []byte) int {
			codec := must(wire.NewProtobuf[*corev1.Pod](podGVK))
			items := make([]*projv1.PodSummary, 0, projectionProtoItems)
			if _, err := codec.DecodeList(bytes.NewReader(body), func(p *corev1.Pod) error {
				items = append(items, projectPodSummary(p))
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			return len(items)
		}},
	}
	for _, r := range rows {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(r.body)))
			b.ReportAllocs()
			defer protoCPU(b)()
			for range b.N {
				if n := r.decode(b, r.body); n != projectionProtoItems {
					b.Fatalf("%d items", n)
				}
			}
		})
	}
}

// decodeAll decodes a LIST body with codec into a fresh slice.
func decodeAll[T any](b testing.TB, codec wire.Codec[T], body []byte) []T {
	items := make([]T, 0, projectionProtoItems)
	if _, err := codec.DecodeList(bytes.NewReader(body), func(o T) error {
		items = append(items, o)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return items
}

// projectPodSummary is decode-then-project's second step: the Pod's metadata
// (managedFields dropped) and PodSummary's fields.
func projectPodSummary(p *corev1.Pod) *projv1.PodSummary {
	s := &projv1.PodSummary{ObjectMeta: p.ObjectMeta}
	s.ManagedFields = nil
	s.Spec.NodeName = p.Spec.NodeName
	s.Status.Phase, s.Status.PodIP, s.Status.Conditions = p.Status.Phase, p.Status.PodIP, p.Status.Conditions
	return s
}

// podProtoListBody returns a LIST of n bench Pods as the API server encodes
// it in protobuf.
func podProtoListBody(b testing.TB, n int) []byte {
	list := &corev1.PodList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "123456", Continue: "token"},
	}
	for i := range n {
		p := newBenchPod(i)
		p.TypeMeta = metav1.TypeMeta{}
		list.Items = append(list.Items, *p)
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}

// TestPodSummaryFromProtobufEqualsJSON checks the benchmark's premise: the
// three rows build equal PodSummaries from the same Pods.
func TestPodSummaryFromProtobufEqualsJSON(t *testing.T) {
	podGVK := corev1.SchemeGroupVersion.WithKind("Pod")
	fromPB := decodeAll(t, must(wire.NewProtobufProjection(podGVK, corev1gen.PodSummaryType.DecodeProtobuf, wire.SkipManagedFields())), podProtoListBody(t, 20))
	fromJSON := decodeAll(t, must(wire.NewJSON[*projv1.PodSummary](podGVK, wire.SkipManagedFields(), podSummaryDecoder)), podListBody(t, 20))
	full := decodeAll(t, must(wire.NewProtobuf[*corev1.Pod](podGVK)), podProtoListBody(t, 20))
	if len(fromPB) != 20 || len(fromJSON) != 20 || len(full) != 20 {
		t.Fatalf("decoded %d, %d, %d", len(fromPB), len(fromJSON), len(full))
	}
	for i := range fromPB {
		projected := projectPodSummary(full[i])
		json := fromJSON[i]
		json.TypeMeta = metav1.TypeMeta{} // JSON items carry none either; the codec fills nothing
		if !reflect.DeepEqual(fromPB[i], projected) {
			t.Errorf("pod %d: from protobuf %+v, decode-then-project %+v", i, fromPB[i], projected)
		}
		if fromPB[i].Spec.NodeName == "" || len(fromPB[i].Status.Conditions) == 0 || fromPB[i].Name != json.Name ||
			fromPB[i].Spec != json.Spec || len(fromPB[i].Labels) != len(json.Labels) {
			t.Errorf("pod %d: from protobuf %+v, from JSON %+v", i, fromPB[i], json)
		}
	}
}
