package wire

import (
	"bytes"
	"math/rand"
	"reflect"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	corev1 "k8s.io/api/core/v1"
)

// pbDropManagedFields returns a copy of obj without managedFields: what an
// informer caches after decoding obj in full.
func pbDropManagedFields(t testing.TB, obj runtime.Object) runtime.Object {
	t.Helper()
	c := obj.DeepCopyObject()
	a, err := meta.Accessor(c)
	if err != nil {
		t.Fatal(err)
	}
	a.SetManagedFields(nil)
	return c
}

// TestProtobufSkipManagedFieldsAllKinds decodes random objects of every
// built-in kind (managedFields filled by the fuzzer) with the codec's
// SkipManagedFields, as a LIST and as WATCH events, and checks that it gives
// what the full codec gives with managedFields dropped afterwards.
func TestProtobufSkipManagedFieldsAllKinds(t *testing.T) {
	for _, gvk := range pbBuiltinKinds(t) {
		t.Run(gvk.GroupVersion().String()+"/"+gvk.Kind, func(t *testing.T) {
			full := pbObjectCodec(t, gvk)
			// pbObjectCodec makes runtime.Objects; SkipManagedFields finds
			// ObjectMeta through the Go type of what newT returns.
			skip := full.withoutManagedFields()
			if !skip.skipsManagedFields {
				t.Fatalf("%s: SkipManagedFields did not give a skipping codec", gvk)
			}
			objs := pbRandomObjects(t, gvk, 7, 4)
			sawManagedFields := false
			for _, o := range objs {
				a, _ := meta.Accessor(o)
				sawManagedFields = sawManagedFields || len(a.GetManagedFields()) > 0
			}
			if !sawManagedFields {
				a, _ := meta.Accessor(objs[0])
				a.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{}}`)}})
			}
			listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
			list, err := scheme.Scheme.New(listGVK)
			if err != nil {
				t.Fatal(err)
			}
			if err := meta.SetList(list, objs); err != nil {
				t.Fatal(err)
			}
			body := pbServerList(t, list, listGVK, true)
			var want, got []runtime.Object
			if _, err := full.DecodeList(bytes.NewReader(body), func(o runtime.Object) error { want = append(want, o); return nil }); err != nil {
				t.Fatal(err)
			}
			if _, err := skip.DecodeList(bytes.NewReader(body), func(o runtime.Object) error { got = append(got, o); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d items, want %d", len(got), len(want))
			}
			for i := range got {
				if !apiequality.Semantic.DeepEqual(got[i], pbDropManagedFields(t, want[i])) {
					t.Errorf("LIST item %d differs from the full decode without managedFields", i)
				}
			}
			var wbody []byte
			for _, o := range objs {
				wbody = append(wbody, pbServerEvent(t, "ADDED", pbServerObject(t, o, gvk))...)
			}
			w := skip.NewWatchDecoder(bytes.NewReader(wbody))
			for i, o := range objs {
				ev, err := w.Next()
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				if !apiequality.Semantic.DeepEqual(ev.Object, pbDropManagedFields(t, o)) {
					t.Errorf("WATCH event %d differs from the object without managedFields", i)
				}
			}
		})
	}
}

// TestProtobufSkipManagedFieldsMalformed corrupts a Pod's bytes (a byte
// changed, or the bytes cut short) many times over and checks the skipping
// decode against the full one: where the full decode succeeds, the
// skipping one succeeds with the same object less its managedFields; where
// the skipping one fails, so does the full one (it may succeed where the
// full one fails only for bytes inside a managedFields entry, which it does
// not read).
func TestProtobufSkipManagedFieldsMalformed(t *testing.T) {
	c, err := NewProtobuf[*corev1.Pod](corev1.SchemeGroupVersion.WithKind("Pod"))
	if err != nil {
		t.Fatal(err)
	}
	full := c.(*protobufCodec[*corev1.Pod])
	skip := full.withoutManagedFields()
	pod := pbTestPod(1)
	pod.ManagedFields = []metav1.ManagedFieldsEntry{
		{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:metadata":{"f:labels":{}}}`)},
		{Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(`{"f:status":{}}`), Subresource: "status"},
	}
	good, err := pod.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if got, stripped := pbWithoutManagedFields(good, nil); !stripped || len(got) >= len(good) {
		t.Fatalf("pbWithoutManagedFields: stripped %v, %d bytes of %d", stripped, len(got), len(good))
	}
	rng := rand.New(rand.NewSource(1))
	check := func(b []byte, what string) {
		t.Helper()
		want, got := &corev1.Pod{}, &corev1.Pod{}
		wantErr, gotErr := full.unmarshal(want, b), skip.unmarshal(got, b)
		switch {
		case wantErr == nil && gotErr != nil:
			if pbMetadataMapEntryOverruns(b) {
				// The generated Unmarshal reads a map entry's value up to
				// the end of the metadata, not of the entry: it decoded
				// bytes of the entries that follow (managedFields here)
				// as the value, where skipping them leaves too few.
				return
			}
			t.Fatalf("%s: the full decode succeeds, the skipping one fails: %v\n% x", what, gotErr, b)
		case wantErr == nil:
			want.ManagedFields = nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: the skipping decode differs from the full one without managedFields", what)
			}
		}
	}
	check(good, "the Pod")
	for n := range len(good) {
		check(good[:n], "cut short")
	}
	for range 20000 {
		b := bytes.Clone(good)
		b[rng.Intn(len(b))] = byte(rng.Intn(256))
		if rng.Intn(4) == 0 {
			b[rng.Intn(len(b))] = byte(rng.Intn(256))
		}
		check(b, "corrupted")
	}
}

// pbMetadataMapEntryOverruns reports whether a labels or annotations entry
// of obj's metadata holds a field that reaches past the entry's end.
func pbMetadataMapEntryOverruns(obj []byte) bool {
	overruns := false
	pbEachMetadata(obj, func(meta []byte) bool {
		m := pbBytes{b: meta}
		for !m.done() {
			f, fwt, err := m.tag()
			if err != nil {
				return true
			}
			if (f != 11 && f != 12) || fwt != wireBytes {
				if m.skip(fwt) != nil {
					return true
				}
				continue
			}
			entry, err := m.bytes()
			if err != nil {
				return true
			}
			e := pbBytes{b: entry}
			for !e.done() {
				_, ewt, err := e.tag()
				if err != nil || e.skip(ewt) != nil {
					overruns = true
					return true
				}
			}
		}
		return false
	})
	return overruns
}

// TestProtobufSkipManagedFieldsNeedsObjectMeta: a type whose field 1 is not
// metav1.ObjectMeta keeps the codec as it is.
func TestProtobufSkipManagedFieldsNeedsObjectMeta(t *testing.T) {
	c := newProtobuf(schema.GroupVersionKind{Version: "v1", Kind: "Status"},
		func() *metav1.Status { return new(metav1.Status) }, (*metav1.Status).Unmarshal)
	if got := c.withoutManagedFields(); got != c {
		t.Fatal("SkipManagedFields changed the codec of a type without ObjectMeta")
	}
	if !pbMetadataIsField1(reflect.TypeFor[*corev1.Secret]()) || pbMetadataIsField1(reflect.TypeFor[corev1.Secret]()) {
		t.Fatal("pbMetadataIsField1")
	}
}
