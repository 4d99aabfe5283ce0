package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
)

var (
	pbPodGVK    = corev1.SchemeGroupVersion.WithKind("Pod")
	pbPodGV     = corev1.SchemeGroupVersion
	pbStatusGVK = schema.GroupVersionKind{Version: "v1", Kind: "Status"}
)

func pbTestPod(i int) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: fmt.Sprintf("pod-%d", i), ResourceVersion: fmt.Sprint(100 + i),
			Labels:            map[string]string{"app": "web"},
			CreationTimestamp: metav1.Unix(1700000000, 0),
		},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "img:1"}}},
	}
}

func pbPodListBody(t testing.TB, n int, streamingItems bool) ([]byte, []*corev1.Pod) {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "555", Continue: "next-token", RemainingItemCount: new(int64(7))}}
	var pods []*corev1.Pod
	for i := range n {
		list.Items = append(list.Items, *pbTestPod(i))
		pods = append(pods, pbTestPod(i))
	}
	return pbServerList(t, list, pbPodGV.WithKind("PodList"), streamingItems), pods
}

func pbCollect[T any](codec Codec[T], body io.Reader) ([]T, metav1.ListMeta, error) {
	var items []T
	lm, err := codec.DecodeList(body, func(t T) error {
		items = append(items, t)
		return nil
	})
	return items, lm, err
}

func TestProtobufPodList(t *testing.T) {
	untyped, err := NewProtobuf[runtime.Object](pbPodGVK, OptionOf(func(o *codecopts.Options) { o.ObjectType = reflect.TypeFor[*corev1.Pod]() }))
	if err != nil {
		t.Fatal(err)
	}
	for name, codec := range map[string]Codec[*corev1.Pod]{"typed": must(NewProtobuf[*corev1.Pod](pbPodGVK)), "as runtime.Object": asPods(untyped)} {
		t.Run(name, func(t *testing.T) {
			if codec.MediaType() != "application/vnd.kubernetes.protobuf" {
				t.Errorf("MediaType %q", codec.MediaType())
			}
			body, want := pbPodListBody(t, 3, true)
			got, lm, err := pbCollect(codec, bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if !apiequality.Semantic.DeepEqual(got, want) {
				t.Errorf("items differ:\n got %v\nwant %v", got, want)
			}
			if lm.ResourceVersion != "555" || lm.Continue != "next-token" || lm.RemainingItemCount == nil || *lm.RemainingItemCount != 7 {
				t.Errorf("list meta %+v", lm)
			}
			if got[0].APIVersion != "" || got[0].Kind != "" {
				t.Errorf("TypeMeta %+v, want it empty as client-go leaves it", got[0].TypeMeta)
			}
		})
	}
}

func TestProtobufEmptyList(t *testing.T) {
	body, _ := pbPodListBody(t, 0, false)
	got, lm, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), bytes.NewReader(body))
	if err != nil || len(got) != 0 || lm.ResourceVersion != "555" {
		t.Fatalf("got %d items, %+v, %v", len(got), lm, err)
	}
}

func TestNewProtobufRefusesTypesWithoutProtobuf(t *testing.T) {
	type crd struct {
		metav1.TypeMeta   `json:",inline"`
		metav1.ObjectMeta `json:"metadata"`
	}
	if _, err := NewProtobuf[*crd](pbPodGVK); err == nil {
		t.Error("a CRD-like type got a protobuf codec")
	}
	if _, err := NewProtobuf[*unstructured.Unstructured](pbPodGVK); err == nil {
		t.Error("Unstructured got a protobuf codec")
	}
	if _, err := NewProtobuf[runtime.Object](pbPodGVK); err == nil {
		t.Error("an interface type got a protobuf codec")
	}
}

// TestProtobufListStreams shows that an item reaches each before the rest of
// the body has arrived.
func TestProtobufListStreams(t *testing.T) {
	body, _ := pbPodListBody(t, 2, true)
	second := bytes.LastIndex(body, []byte("pod-1")) // inside the second item
	pr, pw := io.Pipe()
	firstSeen := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := must(NewProtobuf[*corev1.Pod](pbPodGVK)).DecodeList(pr, func(p *corev1.Pod) error {
			select {
			case firstSeen <- p.Name:
			default:
			}
			return nil
		})
		done <- err
	}()
	if _, err := pw.Write(body[:second]); err != nil {
		t.Fatal(err)
	}
	if name := <-firstSeen; name != "pod-0" {
		t.Fatalf("first item %q", name)
	}
	if _, err := pw.Write(body[second:]); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestProtobufListEachErrorReturnedAsIs(t *testing.T) {
	body, _ := pbPodListBody(t, 3, true)
	stop := errors.New("stop")
	calls := 0
	_, err := must(NewProtobuf[*corev1.Pod](pbPodGVK)).DecodeList(bytes.NewReader(body), func(*corev1.Pod) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Fatalf("err %v after %d calls, want the error of each after 1", err, calls)
	}
}

type pbFailingReader struct {
	r   io.Reader
	err error
}

func (f *pbFailingReader) Read(p []byte) (int, error) {
	n, err := f.r.Read(p)
	if err == io.EOF {
		return n, f.err
	}
	return n, err
}

func TestProtobufBodyErrorIsNotADecodeError(t *testing.T) {
	reset := errors.New("connection reset")
	body, _ := pbPodListBody(t, 3, true)
	_, _, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), &pbFailingReader{bytes.NewReader(body[:len(body)/2]), reset})
	var de *DecodeError
	if !errors.Is(err, reset) || errors.As(err, &de) {
		t.Errorf("list: %v, want the body's error", err)
	}
	stream := append(pbServerEvent(t, watch.Added, pbServerObject(t, pbTestPod(0), pbPodGVK)), pbServerEvent(t, watch.Added, pbServerObject(t, pbTestPod(1), pbPodGVK))...)
	w := must(NewProtobuf[*corev1.Pod](pbPodGVK)).NewWatchDecoder(&pbFailingReader{bytes.NewReader(stream[:len(stream)-10]), reset})
	if _, err := w.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Next(); !errors.Is(err, reset) || errors.As(err, &de) {
		t.Errorf("watch: %v, want the body's error", err)
	}
}

func pbWatchBody(t testing.TB) ([]byte, []Event[*corev1.Pod]) {
	var body []byte
	var want []Event[*corev1.Pod]
	for i, typ := range []watch.EventType{watch.Added, watch.Modified, watch.Bookmark, watch.Deleted} {
		p := pbTestPod(i)
		body = append(body, pbServerEvent(t, typ, pbServerObject(t, p, pbPodGVK))...)
		want = append(want, Event[*corev1.Pod]{Type: typ, Object: p})
	}
	st := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired}
	body = append(body, pbServerEvent(t, watch.Error, pbServerObject(t, st, pbStatusGVK))...)
	want = append(want, Event[*corev1.Pod]{Type: watch.Error, Status: st})
	return body, want
}

func TestProtobufWatch(t *testing.T) {
	body, want := pbWatchBody(t)
	w := must(NewProtobuf[*corev1.Pod](pbPodGVK)).NewWatchDecoder(bytes.NewReader(body))
	for i := range want {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !apiequality.Semantic.DeepEqual(ev, want[i]) {
			t.Errorf("event %d: %+v, want %+v", i, ev, want[i])
		}
	}
	for range 2 {
		if _, err := w.Next(); err != io.EOF {
			t.Fatalf("at the end: %v, want io.EOF", err)
		}
	}
}

// TestProtobufWatchTruncated cuts a watch body at every byte: the events
// before the cut decode, then a cut between frames is io.EOF and any other
// cut a DecodeError that ends the stream.
func TestProtobufWatchTruncated(t *testing.T) {
	body, want := pbWatchBody(t)
	var ends []int // offsets where a frame ends
	for off := 0; off < len(body); {
		off += 4 + int(binary.BigEndian.Uint32(body[off:]))
		ends = append(ends, off)
	}
	for cut := range len(body) {
		w := must(NewProtobuf[*corev1.Pod](pbPodGVK)).NewWatchDecoder(bytes.NewReader(body[:cut]))
		complete := 0
		for complete < len(ends) && ends[complete] <= cut {
			complete++
		}
		for i := range complete {
			ev, err := w.Next()
			if err != nil || !apiequality.Semantic.DeepEqual(ev, want[i]) {
				t.Fatalf("cut %d: event %d: %v", cut, i, err)
			}
		}
		_, err := w.Next()
		atBoundary := cut == 0 || complete > 0 && ends[complete-1] == cut
		var de *DecodeError
		switch {
		case atBoundary && err != io.EOF:
			t.Fatalf("cut %d between frames: %v, want io.EOF", cut, err)
		case !atBoundary && (!errors.As(err, &de) || de.Recoverable || !errors.Is(err, io.ErrUnexpectedEOF)):
			t.Fatalf("cut %d inside a frame: %v, want an unrecoverable DecodeError", cut, err)
		}
		if _, again := w.Next(); again != err {
			t.Fatalf("cut %d: Next after %v: %v", cut, err, again)
		}
	}
}

// TestProtobufListTruncated cuts a list body at every byte: always a
// DecodeError, after a prefix of the items.
func TestProtobufListTruncated(t *testing.T) {
	body, want := pbPodListBody(t, 3, true)
	// The envelope ends with an empty contentEncoding and contentType,
	// after the items: a cut between those fields leaves a whole list.
	rawEnd := len(body) - 4
	if !bytes.Equal(body[rawEnd:], []byte{0x1a, 0, 0x22, 0}) {
		t.Fatalf("envelope ends with %x", body[rawEnd:])
	}
	for cut := range len(body) {
		got, _, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), bytes.NewReader(body[:cut]))
		if err == nil && (cut == rawEnd || cut == rawEnd+2) && len(got) == len(want) {
			continue
		}
		var de *DecodeError
		if !errors.As(err, &de) || de.Recoverable {
			t.Fatalf("cut %d: %v, want a DecodeError", cut, err)
		}
		if !apiequality.Semantic.DeepEqual(got, want[:len(got)]) {
			t.Fatalf("cut %d: items are not a prefix of the list", cut)
		}
	}
}

// pbUnknownBytes writes the magic and a runtime.Unknown around raw, as a
// broken or hostile server might.
func pbUnknownBytes(t testing.TB, apiVersion, kind string, raw []byte) []byte {
	u := runtime.Unknown{TypeMeta: runtime.TypeMeta{APIVersion: apiVersion, Kind: kind}, Raw: raw}
	b, err := u.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return append(append([]byte(nil), protobufMagic...), b...)
}

func pbFrame(b []byte) []byte {
	return append([]byte{byte(len(b) >> 24), byte(len(b) >> 16), byte(len(b) >> 8), byte(len(b))}, b...)
}

func pbRawEvent(t testing.TB, typ string, object []byte) []byte {
	b, err := (&metav1.WatchEvent{Type: typ, Object: runtime.RawExtension{Raw: object}}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return pbFrame(b)
}

type pbZeros struct{}

func (pbZeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestProtobufWatchRecoverable puts a malformed event of every kind between
// good ones: each is a recoverable DecodeError, and the next event decodes.
func TestProtobufWatchRecoverable(t *testing.T) {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "creds", ResourceVersion: "42"},
		Data:       map[string][]byte{"password": []byte("hunter2-do-not-log")},
	}
	secretBytes, err := secret.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	good := func(i int) []byte { return pbServerEvent(t, watch.Added, pbServerObject(t, pbTestPod(i), pbPodGVK)) }
	cases := []struct {
		name    string
		frame   []byte
		key, rv string
		oversz  bool
	}{
		{name: "object does not unmarshal", frame: pbRawEvent(t, "ADDED", pbUnknownBytes(t, "v1", "Pod", append(secretBytes, 0xff))), key: "ns/creds", rv: "42"},
		{name: "another kind", frame: pbServerEvent(t, watch.Modified, pbServerObject(t, secret, corev1.SchemeGroupVersion.WithKind("Secret"))), key: "ns/creds", rv: "42"},
		{name: "another group", frame: pbRawEvent(t, "ADDED", pbUnknownBytes(t, "apps/v1", "Pod", secretBytes)), key: "ns/creds", rv: "42"},
		{name: "no apiVersion", frame: pbRawEvent(t, "ADDED", pbUnknownBytes(t, "", "Pod", secretBytes)), key: "ns/creds", rv: "42"},
		{name: "unknown event type", frame: pbRawEvent(t, "hunter2-do-not-log", pbUnknownBytes(t, "v1", "Pod", secretBytes))},
		{name: "ERROR without a Status", frame: pbRawEvent(t, "ERROR", pbUnknownBytes(t, "v1", "Pod", secretBytes))},
		{name: "ADDED with a Status", frame: pbServerEvent(t, watch.Added, pbServerObject(t, &metav1.Status{}, pbStatusGVK))},
		{name: "object without magic", frame: pbRawEvent(t, "ADDED", secretBytes)},
		{name: "object just the magic", frame: pbRawEvent(t, "ADDED", protobufMagic)},
		{name: "no object", frame: pbRawEvent(t, "ADDED", nil)},
		{name: "empty frame", frame: pbFrame(nil)},
		{name: "garbage frame", frame: pbFrame([]byte{0xff, 0xff, 0xff})},
		{name: "event envelope truncated inside", frame: pbFrame(pbRawEvent(t, "ADDED", pbUnknownBytes(t, "v1", "Pod", secretBytes))[4:30])},
		{name: "frame over 16 MiB", oversz: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var parts []io.Reader
			parts = append(parts, bytes.NewReader(good(0)))
			if tc.oversz {
				parts = append(parts, bytes.NewReader([]byte{0x01, 0x00, 0x00, 0x01}), io.LimitReader(pbZeros{}, 1<<24+1))
			} else {
				parts = append(parts, bytes.NewReader(tc.frame))
			}
			parts = append(parts, bytes.NewReader(good(1)))
			w := must(NewProtobuf[*corev1.Pod](pbPodGVK)).NewWatchDecoder(io.MultiReader(parts...))
			if ev, err := w.Next(); err != nil || ev.Object.Name != "pod-0" {
				t.Fatalf("first event: %v", err)
			}
			_, err := w.Next()
			var de *DecodeError
			if !errors.As(err, &de) || !de.Recoverable {
				t.Fatalf("malformed event: %v, want a recoverable DecodeError", err)
			}
			if de.Key != tc.key || de.ResourceVersion != tc.rv {
				t.Errorf("key %q rv %q, want %q %q", de.Key, de.ResourceVersion, tc.key, tc.rv)
			}
			if de.Offset < int64(len(good(0))) {
				t.Errorf("offset %d is before the malformed frame", de.Offset)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error message shows object contents: %v", err)
			}
			if ev, err := w.Next(); err != nil || ev.Object.Name != "pod-1" {
				t.Fatalf("event after the malformed one: %v", err)
			}
			if _, err := w.Next(); err != io.EOF {
				t.Fatalf("at the end: %v", err)
			}
		})
	}
}

// TestProtobufListMalformed covers list bodies a broken or hostile server
// might send: each is a DecodeError, none panics or allocates its claimed
// size.
func TestProtobufListMalformed(t *testing.T) {
	pod := pbTestPod(0)
	pod.Namespace, pod.Name, pod.ResourceVersion = "", "creds", "42"
	pod.Annotations = map[string]string{"password": "hunter2-do-not-log"}
	sb, err := pod.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	item := func(b []byte) []byte { return append(append([]byte{0x12}, pbVarint(uint64(len(b)))...), b...) }
	cases := map[string]struct {
		body    []byte
		key, rv string
	}{
		"empty":                       {body: nil},
		"only the magic":              {body: protobufMagic},
		"json":                        {body: []byte(`{"kind":"PodList","apiVersion":"v1","items":[]}`)},
		"another kind":                {body: pbUnknownBytes(t, "v1", "SecretList", item(sb))},
		"another group":               {body: pbUnknownBytes(t, "apps/v1", "PodList", item(sb))},
		"item kind not a list":        {body: pbUnknownBytes(t, "v1", "Pod", item(sb))},
		"bad item":                    {body: pbUnknownBytes(t, "v1", "PodList", item(append(sb, 0xff))), key: "creds", rv: "42"},
		"item length beyond the list": {body: pbUnknownBytes(t, "v1", "PodList", append([]byte{0x12, 0xff, 0xff, 0xff, 0xff, 0x0f}, sb...))},
		"item length 2^63":            {body: pbUnknownBytes(t, "v1", "PodList", append([]byte{0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, sb...))},
		"raw length 2^40":             {body: append(append(append([]byte(nil), protobufMagic...), 0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20), item(sb)...)},
		"varint overflow":             {body: append(append([]byte(nil), protobufMagic...), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01)},
		"end group":                   {body: append(append([]byte(nil), protobufMagic...), 0x0c)},
		"raw twice":                   {body: append(pbUnknownBytes(t, "v1", "PodList", item(sb)), 0x12, 0x00)},
		"type after the items":        {body: append(append(append([]byte(nil), protobufMagic...), 0x12, 0x00), 0x0a, 0x00)},
		"no items field":              {body: pbUnknownBytes(t, "v1", "PodList", nil)},
		// The second TypeMeta names only the kind: the group of the first stays.
		"two type metas merged": {body: append(append(append([]byte(nil), protobufMagic...), 0x0a, 0x09, 0x0a, 0x07, 'a', 'p', 'p', 's', '/', 'v', '1', 0x0a, 0x09, 0x12, 0x07, 'P', 'o', 'd', 'L', 'i', 's', 't'), item(sb)...)},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), bytes.NewReader(tc.body))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("%v, want a DecodeError", err)
			}
			if de.Key != tc.key || de.ResourceVersion != tc.rv {
				t.Errorf("key %q rv %q, want %q %q", de.Key, de.ResourceVersion, tc.key, tc.rv)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error message shows object contents: %v", err)
			}
		})
	}
}

func pbVarint(v uint64) []byte {
	var b []byte
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// TestProtobufListItemsDoNotAliasTheBuffer decodes a list larger than the
// read buffer, so that its bytes are reused, and checks every item at the
// end: an item that kept a reference into the buffer would have changed.
func TestProtobufListItemsDoNotAliasTheBuffer(t *testing.T) {
	body, want := pbPodListBody(t, 1200, true) // ~170 KB, over pbBufferSize
	if len(body) < 2*pbBufferSize {
		t.Fatalf("body of %d bytes does not wrap the read buffer", len(body))
	}
	got, _, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Error("items changed after they were decoded")
	}
}

// TestProtobufLargeObjects decodes objects larger than the read buffer (from
// the scratch buffer) and larger than the scratch buffer kept, between
// small ones, in a LIST and in a WATCH.
func TestProtobufLargeObjects(t *testing.T) {
	var pods []*corev1.Pod
	for i, size := range []int{10, 100 << 10, 10, 2 << 20, 10, 200 << 10} {
		p := pbTestPod(i)
		p.Annotations = map[string]string{"blob": strings.Repeat("x", size)}
		pods = append(pods, p)
	}
	list := &corev1.PodList{}
	var stream []byte
	for _, p := range pods {
		list.Items = append(list.Items, *p)
		stream = append(stream, pbServerEvent(t, watch.Modified, pbServerObject(t, p, pbPodGVK))...)
	}
	got, _, err := pbCollect(must(NewProtobuf[*corev1.Pod](pbPodGVK)), bytes.NewReader(pbServerList(t, list, pbPodGV.WithKind("PodList"), true)))
	if err != nil || !apiequality.Semantic.DeepEqual(got, pods) {
		t.Fatalf("list: %v, or items differ", err)
	}
	w := must(NewProtobuf[*corev1.Pod](pbPodGVK)).NewWatchDecoder(bytes.NewReader(stream))
	for i, want := range pods {
		ev, err := w.Next()
		if err != nil || !apiequality.Semantic.DeepEqual(ev.Object, want) {
			t.Fatalf("event %d: %v, or object differs", i, err)
		}
	}
	if _, err := w.Next(); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
}

// asPods is the codec c with the objects it hands out asserted to *corev1.Pod.
func asPods(c Codec[runtime.Object]) Codec[*corev1.Pod] { return podCodec{c} }

type podCodec struct{ c Codec[runtime.Object] }

func (p podCodec) MediaType() string { return p.c.MediaType() }
func (p podCodec) DecodeList(body io.Reader, each func(*corev1.Pod) error) (metav1.ListMeta, error) {
	return p.c.DecodeList(body, func(o runtime.Object) error { return each(o.(*corev1.Pod)) })
}
func (p podCodec) NewWatchDecoder(body io.Reader) WatchDecoder[*corev1.Pod] {
	return podWatch{p.c.NewWatchDecoder(body)}
}

type podWatch struct{ w WatchDecoder[runtime.Object] }

func (w podWatch) Next() (Event[*corev1.Pod], error) {
	ev, err := w.w.Next()
	out := Event[*corev1.Pod]{Type: ev.Type, Status: ev.Status}
	if ev.Object != nil {
		out.Object = ev.Object.(*corev1.Pod)
	}
	return out, err
}
