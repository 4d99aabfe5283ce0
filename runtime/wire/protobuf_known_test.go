package wire

import (
	"bytes"
	"io"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/known"
)

// pbKnown is a relist's cache for the known-object tests: it knows pod-1 at
// its resourceVersion and pod-2 at an older one, and records the lookups.
type pbKnown struct {
	pods    map[string]*corev1.Pod
	lookups []string
}

func newPBKnown() *pbKnown {
	stale := pbTestPod(2)
	stale.ResourceVersion = "1"
	return &pbKnown{pods: map[string]*corev1.Pod{"ns/pod-1": pbTestPod(1), "ns/pod-2": stale}}
}

func (k *pbKnown) lookup(ns, name, rv []byte) (*corev1.Pod, bool) {
	key := string(ns) + "/" + string(name)
	k.lookups = append(k.lookups, key+"@"+string(rv))
	p, ok := k.pods[key]
	if !ok || p.ResourceVersion != string(rv) {
		return nil, false
	}
	return p, true
}

// checkEvents reads one event from w for each of wantCached: event i holds
// pbTestPod(i), and is k's cached object exactly when wantCached[i].
func (k *pbKnown) checkEvents(t *testing.T, w WatchDecoder[*corev1.Pod], wantCached ...bool) {
	t.Helper()
	for i, wantCached := range wantCached {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !apiequality.Semantic.DeepEqual(ev.Object, pbTestPod(i)) {
			t.Errorf("event %d: object %v, want %v", i, ev.Object, pbTestPod(i))
		}
		if cached := ev.Object == k.pods[ev.Object.Namespace+"/"+ev.Object.Name]; cached != wantCached {
			t.Errorf("event %d (%s): the cached object %v, want %v", i, ev.Type, cached, wantCached)
		}
	}
}

// A relist's LIST hands on the cached object for an item at the same
// resourceVersion, and decodes the others (a newer resourceVersion, a key
// the cache does not hold) as DecodeList does.
func TestProtobufDecodeListKnown(t *testing.T) {
	codec := must(NewProtobuf[*corev1.Pod](pbPodGVK)).(*protobufCodec[*corev1.Pod])
	body, want := pbPodListBody(t, 3, true)
	k := newPBKnown()
	var got []*corev1.Pod
	lm, err := codec.DecodeListKnown(bytes.NewReader(body), k.lookup, func(p *corev1.Pod) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if lm.ResourceVersion != "555" {
		t.Errorf("list resourceVersion %q", lm.ResourceVersion)
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Fatalf("items differ:\n got %v\nwant %v", got, want)
	}
	if got[1] != k.pods["ns/pod-1"] {
		t.Errorf("pod-1, cached at the list's resourceVersion, was decoded again")
	}
	if got[2] == k.pods["ns/pod-2"] {
		t.Errorf("pod-2, cached at an older resourceVersion, was not decoded")
	}
	wantLookups := []string{"ns/pod-0@100", "ns/pod-1@101", "ns/pod-2@102"}
	if !apiequality.Semantic.DeepEqual(k.lookups, wantLookups) {
		t.Errorf("lookups %q, want %q", k.lookups, wantLookups)
	}

	// Without a Lookup, DecodeListKnown is DecodeList.
	got = got[:0]
	if _, err := codec.DecodeListKnown(bytes.NewReader(body), nil, func(p *corev1.Pod) error {
		got = append(got, p)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("items without a Lookup differ:\n got %v\nwant %v", got, want)
	}
}

// A WatchList's events: ADDED and MODIFIED objects the cache holds at their
// resourceVersion are the cached ones; a DELETED one is always decoded (the
// object as it was deleted is the event's news, not the cache's).
func TestProtobufWatchKnown(t *testing.T) {
	codec := must(NewProtobuf[*corev1.Pod](pbPodGVK)).(*protobufCodec[*corev1.Pod])
	k := newPBKnown()
	k.pods["ns/pod-3"] = pbTestPod(3)
	var body []byte
	for i, typ := range []watch.EventType{watch.Added, watch.Modified, watch.Modified, watch.Deleted} {
		body = append(body, pbServerEvent(t, typ, pbServerObject(t, pbTestPod(i), pbPodGVK))...)
	}
	w := codec.NewWatchDecoderKnown(bytes.NewReader(body), known.Lookup[*corev1.Pod](k.lookup))
	k.checkEvents(t, w, false, true, false, false)
	if _, err := w.Next(); err != io.EOF {
		t.Fatalf("at the end: %v, want io.EOF", err)
	}
	if len(k.lookups) != 3 {
		t.Errorf("lookups %q: want one for each ADDED or MODIFIED event", k.lookups)
	}
}
