package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	restclientwatch "k8s.io/client-go/rest/watch"
)

// FuzzCBORWatch decodes a CBOR WATCH body of Pods with ours and with
// client-go until the first error: the same events, or both fail (ours with
// a *DecodeError), never a panic.
func FuzzCBORWatch(f *testing.F) {
	pb, err := cborServerObject(f, pbTestPod(0), pbPodGVK)
	if err != nil {
		f.Fatal(err)
	}
	st, err := cborServerObject(f, &metav1.Status{Code: 410}, pbStatusGVK)
	if err != nil {
		f.Fatal(err)
	}
	body := append(cborServerEvent(f, watch.Added, pb), cborServerEvent(f, watch.Error, st)...)
	f.Add(body)
	f.Add(body[:len(body)-3])
	f.Fuzz(func(t *testing.T, body []byte) {
		codec, err := NewCBOR[*corev1.Pod](pbPodGVK)
		if err != nil {
			t.Fatal(err)
		}
		ours := codec.NewWatchDecoder(bytes.NewReader(body))
		objectDecoder, streamSerializer, fr, err := cborClientGo(pbPodGV).StreamDecoder(mediaTypeCBOR, nil)
		if err != nil {
			t.Fatal(err)
		}
		cg := restclientwatch.NewDecoder(streaming.NewDecoder(fr.NewFrameReader(io.NopCloser(bytes.NewReader(body))), streamSerializer), objectDecoder)
		for i := 0; ; i++ {
			got, err := ours.Next()
			typ, obj, cgErr := cg.Decode()
			cgOK := cgErr == nil
			if cgOK {
				_, isStatus := obj.(*metav1.Status)
				_, isPod := obj.(*corev1.Pod)
				cgOK = typ == watch.Error && isStatus || typ != watch.Error && isPod
			}
			switch {
			case err == io.EOF:
				if cgErr != io.EOF {
					t.Fatalf("event %d: ours at the end, client-go: %v", i, cgErr)
				}
				return
			case err != nil:
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("event %d: %v is not a DecodeError", i, err)
				}
				if cgOK {
					t.Fatalf("event %d: ours: %v; client-go decoded a %s", i, err, typ)
				}
				return
			case !cgOK:
				t.Fatalf("event %d: ours decoded a %s; client-go: %v (%T)", i, got.Type, cgErr, obj)
			case got.Type != typ:
				t.Fatalf("event %d: type %s, client-go %s", i, got.Type, typ)
			case typ == watch.Error && !apiequality.Semantic.DeepEqual(got.Status, obj):
				t.Fatalf("event %d: status differs from client-go's", i)
			case typ != watch.Error && !apiequality.Semantic.DeepEqual(got.Object, obj):
				t.Fatalf("event %d: object differs from client-go's", i)
			}
		}
	})
}

// FuzzCBORList decodes a CBOR LIST body of Pods with ours and client-go.
func FuzzCBORList(f *testing.F) {
	body, err := cborServerObject(f, &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "5"}, Items: []corev1.Pod{*pbTestPod(0), *pbTestPod(1)}}, pbPodGV.WithKind("PodList"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Fuzz(func(t *testing.T, body []byte) {
		codec, err := NewCBOR[*corev1.Pod](pbPodGVK)
		if err != nil {
			t.Fatal(err)
		}
		got, lm, err := pbCollect(codec, bytes.NewReader(body))
		var want corev1.PodList
		dec, derr := cborClientGo(pbPodGV).Decoder(mediaTypeCBOR, nil)
		if derr != nil {
			t.Fatal(derr)
		}
		out, _, cgErr := dec.Decode(body, nil, &want)
		if cgErr == nil && out != &want {
			cgErr = errors.New("decoded another object")
		}
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%v is not a DecodeError", err)
			}
			if cgErr == nil {
				t.Fatalf("ours: %v; client-go decoded %d items", err, len(want.Items))
			}
			return
		}
		if cgErr != nil {
			t.Fatalf("ours decoded %d items; client-go: %v", len(got), cgErr)
		}
		if len(got) != len(want.Items) {
			t.Fatalf("ours decoded %d items, client-go %d", len(got), len(want.Items))
		}
		for i := range got {
			if !apiequality.Semantic.DeepEqual(got[i], &want.Items[i]) {
				t.Fatalf("item %d differs from client-go's", i)
			}
		}
		if lm.ResourceVersion != want.ResourceVersion || lm.Continue != want.Continue {
			t.Fatalf("list metadata %+v differs from client-go's", lm)
		}
	})
}
