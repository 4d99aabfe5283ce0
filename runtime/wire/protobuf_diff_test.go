package wire

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
)

// pbBuiltinKinds returns every listable kind of client-go's scheme whose Go
// type is from k8s.io/api: a kind K of a group-version that also has KList.
func pbBuiltinKinds(t testing.TB) []schema.GroupVersionKind {
	t.Helper()
	known := scheme.Scheme.AllKnownTypes()
	var kinds []schema.GroupVersionKind
	for gvk, typ := range known {
		if gvk.Version == runtime.APIVersionInternal || strings.HasSuffix(gvk.Kind, "List") ||
			!strings.HasPrefix(typ.PkgPath(), "k8s.io/api/") {
			continue
		}
		if _, ok := known[gvk.GroupVersion().WithKind(gvk.Kind+"List")]; ok {
			kinds = append(kinds, gvk)
		}
	}
	slices.SortFunc(kinds, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	if len(kinds) < 100 {
		t.Fatalf("found only %d built-in kinds in client-go's scheme", len(kinds))
	}
	return kinds
}

// pbObjectCodec is the protobuf codec of gvk with T = runtime.Object, so that
// one test runs over every kind: the same envelope code as NewProtobuf's,
// with the object made and decoded through the scheme's Go type.
func pbObjectCodec(t testing.TB, gvk schema.GroupVersionKind) *protobufCodec[runtime.Object] {
	t.Helper()
	typ, ok := scheme.Scheme.AllKnownTypes()[gvk]
	if !ok {
		t.Fatalf("%s not in scheme", gvk)
	}
	if _, ok := reflect.New(typ).Interface().(interface{ Unmarshal([]byte) error }); !ok {
		t.Fatalf("%s: %v has no Unmarshal", gvk, typ)
	}
	return newProtobuf(gvk,
		func() runtime.Object { return reflect.New(typ).Interface().(runtime.Object) },
		func(o runtime.Object, b []byte) error { return o.(interface{ Unmarshal([]byte) error }).Unmarshal(b) },
	)
}

// pbRandomObjects returns n objects of gvk filled by apimachinery's fuzzer
// (the one k8s.io/api's round-trip tests use), TypeMeta cleared.
func pbRandomObjects(t testing.TB, gvk schema.GroupVersionKind, seed int64, n int) []runtime.Object {
	t.Helper()
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), scheme.Codecs).NilChance(0.2).MaxDepth(6)
	objs := make([]runtime.Object, n)
	for i := range objs {
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			t.Fatal(err)
		}
		f.Fill(obj)
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		objs[i] = obj
	}
	return objs
}

// TestProtobufDifferentialAllKinds encodes random objects of every built-in
// kind as the API server does, as a LIST (both collection encodings) and as
// a WATCH stream (ADDED, MODIFIED, DELETED, BOOKMARK and an ERROR), and
// checks that ours decodes exactly what client-go's typed client decodes.
func TestProtobufDifferentialAllKinds(t *testing.T) {
	kinds := pbBuiltinKinds(t)
	seeds := 2
	if testing.Short() {
		seeds = 1
	}
	for _, gvk := range kinds {
		t.Run(gvk.GroupVersion().String()+"/"+gvk.Kind, func(t *testing.T) {
			codec := pbObjectCodec(t, gvk)
			for seed := range int64(seeds) {
				objs := pbRandomObjects(t, gvk, seed, 3)
				pbDiffList(t, codec, gvk, objs, seed)
				pbDiffWatch(t, codec, gvk, objs)
			}
		})
	}
}

func pbDiffList(t *testing.T, codec *protobufCodec[runtime.Object], gvk schema.GroupVersionKind, objs []runtime.Object, seed int64) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	list, err := scheme.Scheme.New(listGVK)
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.SetList(list, objs); err != nil {
		t.Fatal(err)
	}
	var lm metav1.ListMeta
	fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), scheme.Codecs).Fill(&lm)
	reflect.ValueOf(list).Elem().FieldByName("ListMeta").Set(reflect.ValueOf(lm))
	for _, streamingItems := range []bool{false, true} {
		body := pbServerList(t, list, listGVK, streamingItems)
		want, err := scheme.Scheme.New(listGVK)
		if err != nil {
			t.Fatal(err)
		}
		if err := pbClientGoList(body, gvk.GroupVersion(), want); err != nil {
			t.Fatalf("client-go: %v", err)
		}
		var got []runtime.Object
		gotMeta, err := codec.DecodeList(bytes.NewReader(body), func(o runtime.Object) error {
			got = append(got, o)
			return nil
		})
		if err != nil {
			t.Fatalf("ours (streaming items %v): %v", streamingItems, err)
		}
		wantItems, err := meta.ExtractList(want)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(wantItems) {
			t.Fatalf("ours decoded %d items, client-go %d", len(got), len(wantItems))
		}
		for i := range got {
			if !apiequality.Semantic.DeepEqual(got[i], wantItems[i]) {
				t.Errorf("item %d differs from client-go's", i)
			}
		}
		wantMeta, _ := meta.ListAccessor(want)
		if gotMeta.ResourceVersion != wantMeta.GetResourceVersion() || gotMeta.Continue != wantMeta.GetContinue() ||
			!reflect.DeepEqual(gotMeta.RemainingItemCount, wantMeta.GetRemainingItemCount()) {
			t.Errorf("list metadata %+v differs from client-go's", gotMeta)
		}
	}
}

func pbDiffWatch(t *testing.T, codec *protobufCodec[runtime.Object], gvk schema.GroupVersionKind, objs []runtime.Object) {
	var body []byte
	types := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
	for i, o := range objs {
		body = append(body, pbServerEvent(t, types[i%len(types)], pbServerObject(t, o, gvk))...)
	}
	bookmark := objs[0].DeepCopyObject()
	body = append(body, pbServerEvent(t, watch.Bookmark, pbServerObject(t, bookmark, gvk))...)
	status := &metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"}
	body = append(body, pbServerEvent(t, watch.Error, pbServerObject(t, status, schema.GroupVersionKind{Version: "v1", Kind: "Status"}))...)

	cg := newPBClientGoWatch(t, bytes.NewReader(body), gvk.GroupVersion())
	ours := codec.NewWatchDecoder(bytes.NewReader(body))
	for i := 0; ; i++ {
		wantType, wantObj, wantErr := cg.next()
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
		if got.Type == watch.Error {
			if !apiequality.Semantic.DeepEqual(got.Status, wantObj) {
				t.Errorf("event %d: status differs from client-go's", i)
			}
			continue
		}
		if !apiequality.Semantic.DeepEqual(got.Object, wantObj) {
			t.Errorf("event %d: object differs from client-go's", i)
		}
	}
}
