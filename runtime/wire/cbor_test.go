package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	apicbor "k8s.io/apimachinery/pkg/runtime/serializer/cbor"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// cborServerObject encodes obj as an API server with CBORServingAndStorage
// does (apimachinery's CBOR serializer, self-described tag first).
func cborServerObject(t testing.TB, obj runtime.Object, gvk schema.GroupVersionKind) ([]byte, error) {
	obj = obj.DeepCopyObject()
	obj.GetObjectKind().SetGroupVersionKind(gvk)
	var buf bytes.Buffer
	err := apicbor.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &buf)
	return buf.Bytes(), err
}

// cborServerEvent is one event of a CBOR WATCH body (application/cbor-seq):
// the stream serializer's WatchEvent around the object's encoding; the
// framer writes data items back to back.
func cborServerEvent(t testing.TB, typ watch.EventType, object []byte) []byte {
	var buf bytes.Buffer
	if err := apicbor.NewSerializer(scheme.Scheme, scheme.Scheme, apicbor.Transcode(false)).Encode(&metav1.WatchEvent{
		Type: string(typ), Object: runtime.RawExtension{Raw: object},
	}, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// cborClientGo is a typed client's negotiator with ClientsAllowCBOR on
// (rest.CodecFactoryForGeneratedClient adds the CBOR serializer).
func cborClientGo(gv schema.GroupVersion) runtime.ClientNegotiator {
	f := serializer.NewCodecFactory(scheme.Scheme, serializer.WithSerializer(apicbor.NewSerializerInfo))
	return runtime.NewClientNegotiator(f.WithoutConversion(), gv)
}

// cborObjectCodec is the CBOR codec of gvk with T = runtime.Object, to run
// over every kind.
func cborObjectCodec(t testing.TB, gvk schema.GroupVersionKind) *cborCodec[runtime.Object] {
	obj, err := scheme.Scheme.New(gvk)
	if err != nil {
		t.Fatal(err)
	}
	return newCBOR[runtime.Object](gvk, obj)
}

// TestCBORDifferentialAllKinds encodes random objects of every built-in kind
// as an API server with CBOR serving does, as a LIST and as a WATCH stream,
// and checks that ours decodes exactly what client-go decodes. Objects the
// server could not encode (the fuzzer writes bytes no encoder accepts into
// RawExtension and FieldsV1) are left out; at least half must remain.
func TestCBORDifferentialAllKinds(t *testing.T) {
	encoded, total := 0, 0
	for _, gvk := range pbBuiltinKinds(t) {
		t.Run(gvk.GroupVersion().String()+"/"+gvk.Kind, func(t *testing.T) {
			codec := cborObjectCodec(t, gvk)
			var objs []runtime.Object
			var bodies [][]byte
			for _, o := range pbRandomObjects(t, gvk, 1, 4) {
				total++
				b, err := cborServerObject(t, o, gvk)
				if err != nil {
					continue
				}
				encoded++
				objs, bodies = append(objs, o), append(bodies, b)
			}
			cborDiffList(t, codec, gvk, objs)
			cborDiffWatch(t, codec, gvk, bodies)
		})
	}
	if encoded*2 < total {
		t.Fatalf("only %d of %d random objects encoded to CBOR", encoded, total)
	}
	t.Logf("%d of %d random objects encoded to CBOR and compared", encoded, total)
}

func cborDiffList(t *testing.T, codec *cborCodec[runtime.Object], gvk schema.GroupVersionKind, objs []runtime.Object) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	list, err := scheme.Scheme.New(listGVK)
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.SetList(list, objs); err != nil {
		t.Fatal(err)
	}
	var lm metav1.ListMeta
	fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(7), scheme.Codecs).Fill(&lm)
	reflect.ValueOf(list).Elem().FieldByName("ListMeta").Set(reflect.ValueOf(lm))
	body, err := cborServerObject(t, list, listGVK)
	if err != nil {
		t.Fatalf("encode list: %v", err)
	}
	dec, err := cborClientGo(gvk.GroupVersion()).Decoder(mediaTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := scheme.Scheme.New(listGVK)
	if out, _, err := dec.Decode(body, nil, want); err != nil || out != want {
		t.Fatalf("client-go: %v", err)
	}
	var got []runtime.Object
	gotMeta, err := codec.DecodeList(bytes.NewReader(body), func(o runtime.Object) error {
		got = append(got, o)
		return nil
	})
	if err != nil {
		t.Fatalf("ours: %v", err)
	}
	wantItems, _ := meta.ExtractList(want)
	if len(got) != len(wantItems) {
		t.Fatalf("ours decoded %d items, client-go %d", len(got), len(wantItems))
	}
	for i := range got {
		if !apiequality.Semantic.DeepEqual(got[i], wantItems[i]) {
			t.Errorf("item %d differs from client-go's", i)
		}
	}
	wm, _ := meta.ListAccessor(want)
	if gotMeta.ResourceVersion != wm.GetResourceVersion() || gotMeta.Continue != wm.GetContinue() ||
		!reflect.DeepEqual(gotMeta.RemainingItemCount, wm.GetRemainingItemCount()) {
		t.Errorf("list metadata %+v differs from client-go's", gotMeta)
	}
}

func cborDiffWatch(t *testing.T, codec *cborCodec[runtime.Object], gvk schema.GroupVersionKind, objects [][]byte) {
	var body []byte
	types := []watch.EventType{watch.Added, watch.Modified, watch.Deleted, watch.Bookmark}
	for i, o := range objects {
		body = append(body, cborServerEvent(t, types[i%len(types)], o)...)
	}
	st, err := cborServerObject(t, &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}, pbStatusGVK)
	if err != nil {
		t.Fatal(err)
	}
	body = append(body, cborServerEvent(t, watch.Error, st)...)

	objectDecoder, streamSerializer, fr, err := cborClientGo(gvk.GroupVersion()).StreamDecoder(mediaTypeCBOR, nil)
	if err != nil {
		t.Fatal(err)
	}
	cg := restclientwatch.NewDecoder(streaming.NewDecoder(fr.NewFrameReader(io.NopCloser(bytes.NewReader(body))), streamSerializer), objectDecoder)
	ours := codec.NewWatchDecoder(bytes.NewReader(body))
	for i := 0; ; i++ {
		wantType, wantObj, wantErr := cg.Decode()
		got, err := ours.Next()
		if errors.Is(wantErr, io.EOF) {
			if err != io.EOF {
				t.Fatalf("event %d: client-go at the end, ours: %v", i, err)
			}
			return
		}
		if wantErr != nil || err != nil {
			t.Fatalf("event %d: client-go: %v, ours: %v", i, wantErr, err)
		}
		if got.Type != wantType {
			t.Fatalf("event %d: type %s, client-go %s", i, got.Type, wantType)
		}
		var gotObj any = got.Object
		if got.Type == watch.Error {
			gotObj = got.Status
		}
		if !apiequality.Semantic.DeepEqual(gotObj, wantObj) {
			t.Errorf("event %d: object differs from client-go's", i)
		}
	}
}

func TestCBORPod(t *testing.T) {
	codec, err := NewCBOR[*corev1.Pod](pbPodGVK)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewCBOR[runtime.Object](pbPodGVK); err == nil {
		t.Error("an interface type got a CBOR codec")
	}
	if _, err := NewCBOR[*struct{ A int }](pbPodGVK); err == nil {
		t.Error("a type that is no runtime.Object got a CBOR codec")
	}
	if codec.MediaType() != "application/cbor" {
		t.Errorf("MediaType %q", codec.MediaType())
	}
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9"}, Items: []corev1.Pod{*pbTestPod(0), *pbTestPod(1)}}
	body, err := cborServerObject(t, list, pbPodGV.WithKind("PodList"))
	if err != nil {
		t.Fatal(err)
	}
	got, lm, err := pbCollect(codec, bytes.NewReader(body))
	if err != nil || lm.ResourceVersion != "9" || len(got) != 2 || !apiequality.Semantic.DeepEqual(got[1], pbTestPod(1)) {
		t.Fatalf("list: %v, %+v, %d items", err, lm, len(got))
	}
	other, err := cborServerObject(t, &corev1.SecretList{}, pbPodGV.WithKind("SecretList"))
	if err != nil {
		t.Fatal(err)
	}
	var de *DecodeError
	if _, _, err := pbCollect(codec, bytes.NewReader(other)); !errors.As(err, &de) {
		t.Errorf("a SecretList: %v, want a DecodeError", err)
	}

	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"k": []byte("hunter2-do-not-log")}}
	sb, err := cborServerObject(t, secret, pbPodGV.WithKind("Secret"))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := cborServerObject(t, pbTestPod(2), pbPodGVK)
	if err != nil {
		t.Fatal(err)
	}
	stream := append(cborServerEvent(t, watch.Added, sb), cborServerEvent(t, watch.Modified, pb)...)
	stream = append(stream, cborServerEvent(t, "BOGUS", pb)...)
	stream = append(stream, 0xbf) // an indefinite map cut short
	w := codec.NewWatchDecoder(bytes.NewReader(stream))
	if _, err := w.Next(); !errors.As(err, &de) || !de.Recoverable || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("a Secret in a Pod watch: %v, want a recoverable DecodeError without contents", err)
	}
	if ev, err := w.Next(); err != nil || ev.Type != watch.Modified || !apiequality.Semantic.DeepEqual(ev.Object, pbTestPod(2)) {
		t.Fatalf("next event: %+v, %v", ev, err)
	}
	if _, err := w.Next(); !errors.As(err, &de) || !de.Recoverable {
		t.Fatalf("unknown event type: %v", err)
	}
	if _, err := w.Next(); !errors.As(err, &de) || de.Recoverable {
		t.Fatalf("truncated frame: %v, want an unrecoverable DecodeError", err)
	}
}

// TestCBORWatchObjectsDoNotAliasTheFrameBuffer keeps every decoded object
// and checks them at the end: frames are decoded into one reused buffer.
func TestCBORWatchObjectsDoNotAliasTheFrameBuffer(t *testing.T) {
	codec, err := NewCBOR[*corev1.Pod](pbPodGVK)
	if err != nil {
		t.Fatal(err)
	}
	var stream []byte
	var want []*corev1.Pod
	for i := range 50 {
		p := pbTestPod(i)
		b, err := cborServerObject(t, p, pbPodGVK)
		if err != nil {
			t.Fatal(err)
		}
		stream = append(stream, cborServerEvent(t, watch.Added, b)...)
		want = append(want, p)
	}
	w := codec.NewWatchDecoder(bytes.NewReader(stream))
	var got []*corev1.Pod
	for {
		ev, err := w.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Object)
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Error("objects changed after they were decoded")
	}
}
