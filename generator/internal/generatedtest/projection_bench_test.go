package generatedtest

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"runtime"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	apiruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
	appsv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/input/apis/apps/v1"
	informersv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/want/informers/apps/v1"
	projv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/want/projections/apps/v1"
)

// widgetList is the JSON LIST body of n fuzzed Widgets (deterministic).
func widgetList(b *testing.B, n int) []byte {
	scheme := apiruntime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		b.Fatal(err)
	}
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(1), serializer.NewCodecFactory(scheme)).NilChance(0.1).MaxDepth(6)
	var items [][]byte
	for range n {
		w := new(appsv1.Widget)
		f.Fill(w)
		w.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Widget"))
		body, err := json.Marshal(w)
		if err != nil {
			b.Fatal(err)
		}
		items = append(items, body)
	}
	return []byte(`{"apiVersion":"apps.example.com/v1","kind":"WidgetList","metadata":{"resourceVersion":"1"},"items":[` +
		string(bytes.Join(items, []byte(","))) + `]}`)
}

// benchmarkDecodeList decodes body into T with codec b.N times, keeping the
// objects of the last round, and reports the heap they retain per object.
func benchmarkDecodeList[T store.Object[T]](b *testing.B, codec wire.Codec[T], body []byte, n int) {
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	var kept []T
	for b.Loop() {
		kept = kept[:0]
		if _, err := codec.DecodeList(bytes.NewReader(body), func(o T) error { kept = append(kept, o); return nil }); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if len(kept) != n {
		b.Fatalf("decoded %d objects, want %d", len(kept), n)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(before.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc))/float64(n), "retained-B/obj")
}

// BenchmarkProjectionDecode compares decoding a LIST of 500 fuzzed Widgets
// (with managedFields skipped, as the factory does by default) into Widget
// and into its projections, each with its generated decoder: CPU, garbage
// and the heap the decoded objects retain. Indicative only on a shared
// machine; run it alone:
//
//	go test ./generator/internal/generatedtest -run '^$' -bench ProjectionDecode -count 6
func BenchmarkProjectionDecode(b *testing.B) {
	const n = 500
	body := widgetList(b, n)
	gvk := appsv1.SchemeGroupVersion.WithKind("Widget")
	b.Run("Widget", func(b *testing.B) {
		benchmarkDecodeList(b, must(wire.NewJSON[*appsv1.Widget](gvk, wire.SkipManagedFields(), wire.GeneratedDecoder(informersv1.WidgetType.DecodeJSON))), body, n)
	})
	b.Run("WidgetStatusView", func(b *testing.B) {
		benchmarkDecodeList(b, must(wire.NewJSON[*projv1.WidgetStatusView](gvk, wire.SkipManagedFields(), wire.GeneratedDecoder(informersv1.WidgetStatusViewType.DecodeJSON))), body, n)
	})
	b.Run("WidgetSummary", func(b *testing.B) {
		benchmarkDecodeList(b, must(wire.NewJSON[*projv1.WidgetSummary](gvk, wire.SkipManagedFields(), wire.GeneratedDecoder(informersv1.WidgetSummaryType.DecodeJSON))), body, n)
	})
}
