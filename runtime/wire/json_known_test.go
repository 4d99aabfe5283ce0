package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

func jsonKnownPods() (*pbKnown, *jsonCodec[*corev1.Pod]) {
	return newPBKnown(), must(NewJSON[*corev1.Pod](pbPodGVK)).(*jsonCodec[*corev1.Pod])
}

// As TestProtobufDecodeListKnown, for JSON: the item's metadata is read
// before it is decoded, wherever it stands among the item's members; an
// item whose kind is not the codec's, or whose name is escaped, is decoded
// (and so checked) as always.
func TestJSONDecodeListKnown(t *testing.T) {
	k, codec := jsonKnownPods()
	k.pods["ns/pod-3"] = pbTestPod(3)
	k.pods["ns/pod-4"] = pbTestPod(4)
	items := []string{}
	for i := range 3 {
		b, err := json.Marshal(pbTestPod(i))
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, string(b))
	}
	// pod-3: metadata before apiVersion and kind; pod-4: its name escaped.
	items = append(items,
		`{"metadata":{"resourceVersion":"103","namespace":"ns","name":"pod-3"},"apiVersion":"v1","kind":"Pod"}`,
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod\u002d4","namespace":"ns","resourceVersion":"104"}}`)
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"555"},"items":[%s,%s,%s,%s,%s]}`,
		items[0], items[1], items[2], items[3], items[4])
	var got []*corev1.Pod
	lm, err := codec.DecodeListKnown(bytes.NewReader([]byte(body)), k.lookup, func(p *corev1.Pod) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lm.ResourceVersion != "555" || len(got) != 5 {
		t.Fatalf("list resourceVersion %q, %d items", lm.ResourceVersion, len(got))
	}
	for i, p := range got[:3] {
		if !apiequality.Semantic.DeepEqual(p, pbTestPod(i)) {
			t.Errorf("item %d: %v, want %v", i, p, pbTestPod(i))
		}
	}
	for i, wantCached := range []bool{false, true, false, true, false} {
		if cached := got[i] == k.pods[got[i].Namespace+"/"+got[i].Name]; cached != wantCached {
			t.Errorf("item %d (%s): the cached object %v, want %v", i, got[i].Name, cached, wantCached)
		}
	}
	if got[4].Name != "pod-4" {
		t.Errorf("escaped name decoded as %q", got[4].Name)
	}

	// An item of another kind is decoded, and refused as DecodeList refuses it.
	bad := `{"apiVersion":"v1","kind":"PodList","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"pod-1","namespace":"ns","resourceVersion":"101"}}]}`
	if _, err := codec.DecodeListKnown(bytes.NewReader([]byte(bad)), k.lookup, func(*corev1.Pod) error { return nil }); err == nil {
		t.Error("a Secret item at a cached Pod's key and resourceVersion was accepted")
	}
}

// As TestProtobufWatchKnown, for JSON. A watch event's object must name its
// kind: one that does not is decoded, and refused, as always.
func TestJSONWatchKnown(t *testing.T) {
	k, codec := jsonKnownPods()
	k.pods["ns/pod-3"] = pbTestPod(3)
	var body bytes.Buffer
	for i, typ := range []string{"ADDED", "MODIFIED", "MODIFIED", "DELETED"} {
		p := pbTestPod(i)
		p.APIVersion, p.Kind = "v1", "Pod"
		obj, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&body, `{"type":%q,"object":%s}`, typ, obj)
	}
	body.WriteString(`{"type":"MODIFIED","object":{"metadata":{"name":"pod-1","namespace":"ns","resourceVersion":"101"}}}`)
	w := codec.NewWatchDecoderKnown(&body, known.Lookup[*corev1.Pod](k.lookup))
	k.checkEvents(t, w, false, true, false, false)
	if _, err := w.Next(); err == nil {
		t.Error("an event object without apiVersion and kind, at a cached key and resourceVersion, was accepted")
	}
	if _, err := w.Next(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
}
