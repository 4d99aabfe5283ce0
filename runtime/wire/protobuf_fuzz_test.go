package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// The fuzz targets feed the same bytes to ours and to client-go's typed
// client path and require the same outcome: both decode equal objects, or
// both fail (ours with a *DecodeError), never a panic. Their seed corpus
// (testdata/fuzz, plus the f.Add seeds) runs in every `go test`.

// FuzzProtobufWatch decodes a WATCH body of Pods until the first error.
func FuzzProtobufWatch(f *testing.F) {
	body, _ := pbWatchBody(f)
	f.Add(body)
	f.Add(body[:len(body)/2])
	f.Add(pbRawEvent(f, "ADDED", pbUnknownBytes(f, "apps/v1", "Pod", nil)))
	f.Add(pbRawEvent(f, "ERROR", pbUnknownBytes(f, "meta.k8s.io/v1", "Status", nil)))
	f.Add(pbRawEvent(f, "BOOKMARK", pbUnknownBytes(f, "/v1", "Pod", nil)))
	f.Fuzz(func(t *testing.T, body []byte) {
		ours := must(NewProtobuf[*corev1.Pod](pbPodGVK)).NewWatchDecoder(bytes.NewReader(body))
		cg := newPBClientGoWatch(t, bytes.NewReader(body), pbPodGV)
		for i := 0; ; i++ {
			got, err := ours.Next()
			typ, obj, cgErr := cg.next()
			// client-go makes an object of whatever kind the envelope
			// names; anything but the watched type (or a Status in an
			// ERROR event) would fail in the reflector, so it counts as a
			// failure here.
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

// FuzzProtobufList decodes a LIST body of Pods.
func FuzzProtobufList(f *testing.F) {
	body, _ := pbPodListBody(f, 2, true)
	f.Add(body)
	f.Add(body[:len(body)-5])
	f.Add(pbUnknownBytes(f, "", "", nil))
	f.Add(pbUnknownBytes(f, "apps/", "PodList", []byte{0x0a, 0x02, 0x32, 0x00, 0x12, 0x00}))
	f.Add(pbUnknownBytes(f, "a/b/c", "", []byte{0x12, 0x02, 0x0a, 0x00}))
	// Two TypeMetas, merged field by field.
	twoTypeMetas := append(append([]byte(nil), protobufMagic...), 0x0a, 0x09, 0x0a, 0x07, 'a', 'p', 'p', 's', '/', 'v', '1', 0x0a, 0x09, 0x12, 0x07, 'P', 'o', 'd', 'L', 'i', 's', 't', 0x12, 0x00)
	f.Add(twoTypeMetas)
	f.Add(append(append([]byte(nil), protobufMagic...), 0x0a, 0x04, 0x0a, 0x02, 'v', '1', 0x0a, 0x09, 0x12, 0x07, 'P', 'o', 'd', 'L', 'i', 's', 't', 0x12, 0x00))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, lm, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), bytes.NewReader(body))
		var want corev1.PodList
		cgErr := pbClientGoList(body, pbPodGV, &want)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%v is not a DecodeError", err)
			}
			// Where ours is stricter than client-go, on purpose: envelopes
			// no API server writes (errTwoRaws, errTypeMetaAfterRaw,
			// errNoRaw), which ours refuses as soon as it sees them, even
			// after an error client-go would have overridden.
			if cgErr == nil && pbServerShaped(body) {
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
		if lm.ResourceVersion != want.ResourceVersion || lm.Continue != want.Continue ||
			!apiequality.Semantic.DeepEqual(lm.RemainingItemCount, want.RemainingItemCount) {
			t.Fatalf("list metadata %+v differs from client-go's %+v", lm, want.ListMeta)
		}
	})
}

// pbServerShaped reports whether a LIST body's envelope has the shape every
// API server writes: exactly one raw, no TypeMeta after it.
func pbServerShaped(body []byte) bool {
	if !bytes.HasPrefix(body, protobufMagic) {
		return true // refused by both before any item
	}
	p := pbBytes{b: body[len(protobufMagic):]}
	raws := 0
	for !p.done() {
		field, wt, err := p.tag()
		if err != nil {
			return raws == 1
		}
		switch {
		case field == 2:
			raws++
		case field == 1 && raws > 0:
			return false
		}
		if p.skip(wt) != nil {
			return raws == 1
		}
	}
	return raws == 1
}
