package bench_test

import (
	"bytes"
	"io"
	goruntime "runtime"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	apicbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/framer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/informer-gen/informer-gen/runtime/wire"
)

// The protobuf decode benchmarks decode the same bytes, written as the API
// server writes them, three ways:
//
//   - impl=ours: wire.NewProtobuf, the codec listwatch uses for built-in
//     types;
//   - impl=client-go: what a typed clientset does (rest.Request.Watch's
//     newStreamWatcher: the negotiated length-delimited framer,
//     streaming.NewDecoder over the raw serializer for the WatchEvent, the
//     protobuf serializer for its object; for a LIST, rest.Result.Into's
//     Decode into a PodList);
//   - impl=ours,floor: no envelope at all, only the generated Pod.Unmarshal
//     of each object's bytes into a fresh Pod — what any protobuf decoder
//     of these objects costs at least. benchratio prints it as a variant
//     row against client-go; ours over the floor is the ratio of the two
//     rows.
//
// Run with: go test -run '^$' -bench 'DecodeProto' -benchmem -count 5 ./bench | go run ./hack/benchratio

// protoWatchEvents is how many events one watch body holds: a decoder is
// made per body, so its setup is spread over this many events, as on a
// long-lived watch.
const protoWatchEvents = 1000

var protoPodGVK = corev1.SchemeGroupVersion.WithKind("Pod")

// protoSink keeps the floor's objects escaping to the heap.
var protoSink *corev1.Pod

// protoPodBytes returns pod i as the API server's protobuf serializer
// writes it (magic and runtime.Unknown) and the Pod message alone.
func protoPodBytes(b *testing.B, i int) (object, inner []byte) {
	p := newBenchPod(i)
	inner, err := p.Marshal()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(p, &buf); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes(), inner
}

// protoWatchBody is a WATCH body of n MODIFIED events of bench pods, framed
// as the API server's watchEncoder frames them, and the Pod messages.
func protoWatchBody(b *testing.B, n int) ([]byte, [][]byte) {
	var out bytes.Buffer
	fw := framer.NewLengthDelimitedFrameWriter(&out)
	raw := protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme)
	var inners [][]byte
	for i := range n {
		obj, inner := protoPodBytes(b, i)
		inners = append(inners, inner)
		var ev bytes.Buffer
		if err := raw.Encode(&metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: obj}}, &ev); err != nil {
			b.Fatal(err)
		}
		if _, err := fw.Write(ev.Bytes()); err != nil {
			b.Fatal(err)
		}
	}
	return out.Bytes(), inners
}

// protoCPU starts counting the process's CPU time (user and system, all
// threads, so the garbage collector's work is in it); the returned func
// reports it per op as cpu-ns/op. On a shared, loaded machine it varies
// far less than ns/op, which counts the time other processes ran.
func protoCPU(b *testing.B) func() {
	goruntime.GC() // start clean: no collection owed by the previous row
	start := protoCPUTime(b)
	b.ResetTimer()
	return func() {
		b.StopTimer()
		b.ReportMetric(float64(protoCPUTime(b)-start)/float64(b.N), "cpu-ns/op")
	}
}

func protoCPUTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func protoClientGoNegotiator() runtime.ClientNegotiator {
	return runtime.NewClientNegotiator(scheme.Codecs.WithoutConversion(), corev1.SchemeGroupVersion)
}

// BenchmarkDecodeProtoWatchEvent decodes one Pod watch event per op.
func BenchmarkDecodeProtoWatchEvent(b *testing.B) {
	body, inners := protoWatchBody(b, protoWatchEvents)
	b.Run("impl=ours", func(b *testing.B) {
		codec := must(wire.NewProtobuf[*corev1.Pod](protoPodGVK))
		b.SetBytes(int64(len(body) / protoWatchEvents))
		b.ReportAllocs()
		defer protoCPU(b)()
		var d wire.WatchDecoder[*corev1.Pod]
		for i := range b.N {
			if i%protoWatchEvents == 0 {
				d = codec.NewWatchDecoder(bytes.NewReader(body))
			}
			ev, err := d.Next()
			if err != nil || ev.Object == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		objectDecoder, streamSerializer, fr, err := protoClientGoNegotiator().StreamDecoder("application/vnd.kubernetes.protobuf", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body) / protoWatchEvents))
		b.ReportAllocs()
		defer protoCPU(b)()
		var d *restclientwatch.Decoder
		for i := range b.N {
			if i%protoWatchEvents == 0 {
				frames := fr.NewFrameReader(io.NopCloser(bytes.NewReader(body)))
				d = restclientwatch.NewDecoder(streaming.NewDecoder(frames, streamSerializer), objectDecoder)
			}
			_, obj, err := d.Decode()
			if err != nil {
				b.Fatal(err)
			}
			if _, ok := obj.(*corev1.Pod); !ok {
				b.Fatalf("decoded a %T", obj)
			}
		}
	})
	b.Run("impl=ours,floor", func(b *testing.B) {
		b.SetBytes(int64(len(body) / protoWatchEvents))
		b.ReportAllocs()
		defer protoCPU(b)()
		for i := range b.N {
			p := new(corev1.Pod)
			if err := p.Unmarshal(inners[i%len(inners)]); err != nil {
				b.Fatal(err)
			}
			protoSink = p // on the heap, as a decoded object handed on is
		}
	})
}

// BenchmarkDecodeProtoListPage decodes one LIST page of 500 Pods per op,
// each item into a *Pod the caller keeps.
func BenchmarkDecodeProtoListPage(b *testing.B) {
	const n = 500
	list := &corev1.PodList{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PodList"},
		ListMeta: metav1.ListMeta{ResourceVersion: "123456", Continue: "token"},
	}
	var inners [][]byte
	for i := range n {
		p := newBenchPod(i)
		list.Items = append(list.Items, *p)
		inner, err := p.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		inners = append(inners, inner)
	}
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &buf); err != nil {
		b.Fatal(err)
	}
	body := buf.Bytes()
	b.Run("pods=500/impl=ours", func(b *testing.B) {
		codec := must(wire.NewProtobuf[*corev1.Pod](protoPodGVK))
		items := make([]*corev1.Pod, 0, n)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer protoCPU(b)()
		for range b.N {
			items = items[:0]
			if _, err := codec.DecodeList(bytes.NewReader(body), func(p *corev1.Pod) error {
				items = append(items, p)
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			if len(items) != n {
				b.Fatalf("%d items", len(items))
			}
		}
	})
	b.Run("pods=500/impl=client-go", func(b *testing.B) {
		dec, err := protoClientGoNegotiator().Decoder("application/vnd.kubernetes.protobuf", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer protoCPU(b)()
		for range b.N {
			into := &corev1.PodList{}
			if _, _, err := dec.Decode(body, nil, into); err != nil || len(into.Items) != n {
				b.Fatal(err, len(into.Items))
			}
		}
	})
	b.Run("pods=500/impl=ours,floor", func(b *testing.B) {
		items := make([]*corev1.Pod, 0, n)
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		defer protoCPU(b)()
		for range b.N {
			items = items[:0]
			for _, inner := range inners {
				p := new(corev1.Pod)
				if err := p.Unmarshal(inner); err != nil {
					b.Fatal(err)
				}
				items = append(items, p)
			}
		}
	})
}

// BenchmarkDecodeCBORWatchEvent decodes one Pod watch event per op in CBOR
// (application/cbor-seq, as an API server with CBORServingAndStorage writes
// it). Ours decodes the object with apimachinery's CBOR serializer too, so
// this row shows what the envelope and framing around it cost, not a faster
// object decoder.
func BenchmarkDecodeCBORWatchEvent(b *testing.B) {
	enc := apicbor.NewSerializer(scheme.Scheme, scheme.Scheme)
	events := apicbor.NewSerializer(scheme.Scheme, scheme.Scheme, apicbor.Transcode(false))
	var body bytes.Buffer
	for i := range protoWatchEvents {
		var obj bytes.Buffer
		if err := enc.Encode(newBenchPod(i), &obj); err != nil {
			b.Fatal(err)
		}
		if err := events.Encode(&metav1.WatchEvent{Type: string(watch.Modified), Object: runtime.RawExtension{Raw: obj.Bytes()}}, &body); err != nil {
			b.Fatal(err)
		}
	}
	data := body.Bytes()
	b.Run("impl=ours", func(b *testing.B) {
		codec, err := wire.NewCBOR[*corev1.Pod](protoPodGVK)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data) / protoWatchEvents))
		b.ReportAllocs()
		defer protoCPU(b)()
		var d wire.WatchDecoder[*corev1.Pod]
		for i := range b.N {
			if i%protoWatchEvents == 0 {
				d = codec.NewWatchDecoder(bytes.NewReader(data))
			}
			if ev, err := d.Next(); err != nil || ev.Object == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=client-go", func(b *testing.B) {
		f := serializer.NewCodecFactory(scheme.Scheme, serializer.WithSerializer(apicbor.NewSerializerInfo))
		objectDecoder, streamSerializer, fr, err := runtime.NewClientNegotiator(f.WithoutConversion(), corev1.SchemeGroupVersion).StreamDecoder("application/cbor", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data) / protoWatchEvents))
		b.ReportAllocs()
		defer protoCPU(b)()
		var d *restclientwatch.Decoder
		for i := range b.N {
			if i%protoWatchEvents == 0 {
				d = restclientwatch.NewDecoder(streaming.NewDecoder(fr.NewFrameReader(io.NopCloser(bytes.NewReader(data))), streamSerializer), objectDecoder)
			}
			if _, obj, err := d.Decode(); err != nil {
				b.Fatal(err)
			} else if _, ok := obj.(*corev1.Pod); !ok {
				b.Fatalf("decoded a %T", obj)
			}
		}
	})
}
