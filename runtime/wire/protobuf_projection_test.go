package wire_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/framer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/randfill"

	benchcorev1 "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
	"github.com/informer-gen/informer-gen/runtime/wire"
	flagcorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-flag-only/want/informers/core/v1"
	summarycorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-flag/want/informers/core/v1"
	pbcertsv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-protobuf/want/informers/certificates/v1"
	pbcorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-protobuf/want/informers/core/v1"
	pbprojv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-protobuf/want/projections/core/v1"
	placementcorev1 "github.com/informer-gen/informer-gen/testdata/golden/shared-decoders/want/informers/core/v1"
)

// pbProjectionCase is one generated projection decoder under differential
// test: random objects of its kind, encoded as the API server encodes them,
// decoded by the projection's protobuf codec, must equal the objects decoded
// whole by their generated Unmarshal and then projected.
type pbProjectionCase struct {
	name string
	gvk  schema.GroupVersionKind
	// diff decodes a LIST of objs with the projection's codec and returns
	// what differs from decode-then-project.
	diff func(t *testing.T, objs []runtime.Object, skipManagedFields bool) []string
}

func pbProjCase[P any, PP interface {
	*P
	metav1.Object
}](name string, gvk schema.GroupVersionKind, decode func(*wire.ProtobufDecoder, PP)) pbProjectionCase {
	return pbProjectionCase{name: name, gvk: gvk, diff: func(t *testing.T, objs []runtime.Object, skip bool) []string {
		t.Helper()
		if decode == nil {
			t.Fatalf("%s has no protobuf decoder: generated code is stale (run hack/update-codegen.sh)", name)
		}
		body := pbProjListBody(t, gvk, objs)
		codec := must(wire.NewProtobufProjection[PP](gvk, decode, skipOpt(skip)))
		var got []PP
		if _, err := codec.DecodeList(bytes.NewReader(body), func(p PP) error {
			got = append(got, p)
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(got) != len(objs) {
			t.Fatalf("%s: decoded %d items of %d", name, len(got), len(objs))
		}
		var diffs []string
		for i, obj := range objs {
			want := pbDecodeThenProject[P, PP](t, obj, skip)
			diffs = append(diffs, pbDiff(fmt.Sprintf("item %d", i), reflect.ValueOf(want).Elem(), reflect.ValueOf(got[i]).Elem())...)
		}
		// The same objects as WATCH events.
		dec := codec.NewWatchDecoder(bytes.NewReader(pbProjWatchBody(t, gvk, objs)))
		for i, obj := range objs {
			ev, err := dec.Next()
			if err != nil {
				t.Fatalf("%s: watch event %d: %v", name, i, err)
			}
			want := pbDecodeThenProject[P, PP](t, obj, skip)
			diffs = append(diffs, pbDiff(fmt.Sprintf("event %d", i), reflect.ValueOf(want).Elem(), reflect.ValueOf(ev.Object).Elem())...)
		}
		if _, err := dec.Next(); err != io.EOF {
			t.Fatalf("%s: after the last watch event: %v", name, err)
		}
		return diffs
	}}
}

// pbProjectionCases are the protobuf decoders of every projection of a
// built-in kind in the golden cases and bench/generated.
func pbProjectionCases() []pbProjectionCase {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	return []pbProjectionCase{
		pbProjCase("PodWire", pod, pbcorev1.PodWireType.DecodeProtobuf),
		pbProjCase("SecretWire", corev1.SchemeGroupVersion.WithKind("Secret"), pbcorev1.SecretWireType.DecodeProtobuf),
		pbProjCase("CSRWire", certificatesv1.SchemeGroupVersion.WithKind("CertificateSigningRequest"), pbcertsv1.CSRWireType.DecodeProtobuf),
		pbProjCase("PodSummary", pod, summarycorev1.PodSummaryType.DecodeProtobuf),
		pbProjCase("PodImages", pod, flagcorev1.PodImagesType.DecodeProtobuf),
		pbProjCase("ConfigMapMeta", corev1.SchemeGroupVersion.WithKind("ConfigMap"), flagcorev1.ConfigMapMetaType.DecodeProtobuf),
		pbProjCase("PodPlacement", pod, placementcorev1.PodPlacementType.DecodeProtobuf),
		pbProjCase("bench PodSummary", pod, benchcorev1.PodSummaryType.DecodeProtobuf),
	}
}

// pbProjRandomObjects returns n objects of gvk filled by apimachinery's
// fuzzer (the one k8s.io/api's round-trip tests use), deep enough to reach
// every projected leaf.
func pbProjRandomObjects(t testing.TB, gvk schema.GroupVersionKind, seed int64, n int) []runtime.Object {
	t.Helper()
	f := fuzzer.FuzzerFor(fuzzer.MergeFuzzerFuncs(metafuzzer.Funcs, pbTimeFuncs), rand.NewSource(seed), scheme.Codecs).
		NilChance(0.2).NumElements(0, 3).MaxDepth(9)
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

// pbTimeFuncs fill the metav1.Times apimachinery's fuzzer leaves zero (it
// fills only ObjectMeta's), with nanoseconds, which protobuf keeps.
func pbTimeFuncs(serializer.CodecFactory) []any {
	return []any{func(t *metav1.Time, c randfill.Continue) {
		t.Time = time.Unix(c.Int63n(1<<32), c.Int63n(1e9))
	}}
}

// pbProjListBody encodes objs as a LIST response, as the API server does.
func pbProjListBody(t testing.TB, gvk schema.GroupVersionKind, objs []runtime.Object) []byte {
	t.Helper()
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	list, err := scheme.Scheme.New(listGVK)
	if err != nil {
		t.Fatal(err)
	}
	if err := meta.SetList(list, objs); err != nil {
		t.Fatal(err)
	}
	list.GetObjectKind().SetGroupVersionKind(listGVK)
	var buf bytes.Buffer
	if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(list, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// pbProjWatchBody encodes objs as the events of a WATCH response, as the
// API server does.
func pbProjWatchBody(t testing.TB, gvk schema.GroupVersionKind, objs []runtime.Object) []byte {
	t.Helper()
	var out bytes.Buffer
	frames := framer.NewLengthDelimitedFrameWriter(&out)
	for _, obj := range objs {
		obj = obj.DeepCopyObject()
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		var raw, ev bytes.Buffer
		if err := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme).Encode(obj, &raw); err != nil {
			t.Fatal(err)
		}
		if err := protobuf.NewRawSerializer(scheme.Scheme, scheme.Scheme).Encode(&metav1.WatchEvent{
			Type: string(watch.Modified), Object: runtime.RawExtension{Raw: raw.Bytes()},
		}, &ev); err != nil {
			t.Fatal(err)
		}
		if _, err := frames.Write(ev.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	return out.Bytes()
}

// pbDecodeThenProject is the oracle: obj marshalled, decoded whole by its
// generated Unmarshal, then projected field by field (by Go name) into a P.
func pbDecodeThenProject[P any, PP interface {
	*P
	metav1.Object
}](t testing.TB, obj runtime.Object, skipManagedFields bool) PP {
	t.Helper()
	b, err := obj.(interface{ Marshal() ([]byte, error) }).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	full := reflect.New(reflect.TypeOf(obj).Elem())
	if err := full.Interface().(interface{ Unmarshal([]byte) error }).Unmarshal(b); err != nil {
		t.Fatal(err)
	}
	out := PP(new(P))
	pbProject(full.Elem(), reflect.ValueOf(out).Elem())
	if skipManagedFields {
		out.SetManagedFields(nil)
	}
	return out
}

// pbProject copies the fields of the projection struct dst from src, the
// struct it projects: a field of the same type whole, a generated struct
// (or pointer to or slice of one) field by field.
func pbProject(src, dst reflect.Value) {
	for i := range dst.NumField() {
		name := dst.Type().Field(i).Name
		if name == "TypeMeta" {
			continue // never in the protobuf encoding of an object
		}
		pbProjectValue(src.FieldByName(name), dst.Field(i))
	}
}

func pbProjectValue(sv, dv reflect.Value) {
	if sv.Type() == dv.Type() {
		dv.Set(sv)
		return
	}
	switch dv.Kind() {
	case reflect.Struct:
		pbProject(sv, dv)
	case reflect.Pointer:
		if !sv.IsNil() {
			dv.Set(reflect.New(dv.Type().Elem()))
			pbProject(sv.Elem(), dv.Elem())
		}
	case reflect.Slice:
		if !sv.IsNil() {
			dv.Set(reflect.MakeSlice(dv.Type(), sv.Len(), sv.Len()))
			for i := range sv.Len() {
				pbProject(sv.Index(i), dv.Index(i))
			}
		}
	default:
		panic(fmt.Sprintf("cannot project %v into %v", sv.Type(), dv.Type()))
	}
}

// pbDiff names the fields where got differs from want (reflect.DeepEqual:
// nil and empty differ, as they do for a cache's reader).
func pbDiff(path string, want, got reflect.Value) []string {
	if reflect.DeepEqual(want.Interface(), got.Interface()) {
		return nil
	}
	if want.Kind() == reflect.Struct && want.Type() == got.Type() {
		var out []string
		for i := range want.NumField() {
			if !want.Type().Field(i).IsExported() {
				return []string{fmt.Sprintf("%s: %#v, want %#v", path, got.Interface(), want.Interface())}
			}
			out = append(out, pbDiff(path+"."+want.Type().Field(i).Name, want.Field(i), got.Field(i))...)
		}
		return out
	}
	return []string{fmt.Sprintf("%s: %#v, want %#v", path, got.Interface(), want.Interface())}
}

// TestProtobufProjectionDifferential decodes LISTs and WATCH streams of
// random objects of every projected built-in kind with the projections'
// generated protobuf decoders, managedFields kept and skipped, and checks
// them against decode-then-project.
func TestProtobufProjectionDifferential(t *testing.T) {
	seeds := int64(20)
	if testing.Short() {
		seeds = 4
	}
	for _, c := range pbProjectionCases() {
		t.Run(c.name, func(t *testing.T) {
			for seed := range seeds {
				objs := pbProjRandomObjects(t, c.gvk, seed, 3)
				for _, skip := range []bool{false, true} {
					if d := c.diff(t, objs, skip); len(d) > 0 {
						t.Fatalf("seed %d, skip managedFields %v: the protobuf projection differs from decode-then-project:\n%v", seed, skip, d)
					}
				}
			}
		})
	}
}

// TestProtobufProjectionFillsEveryField checks that the random objects reach
// the projected leaves (a test whose inputs leave them empty proves
// nothing): over the seeds, every leaf of PodWire is set at least once.
func TestProtobufProjectionFillsEveryField(t *testing.T) {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	set := map[string]bool{}
	for seed := range int64(20) {
		for _, obj := range pbProjRandomObjects(t, pod, seed, 3) {
			p := pbDecodeThenProject[pbprojv1.PodWire](t, obj, false)
			pbMarkSet("", reflect.ValueOf(p).Elem(), set)
		}
	}
	var unset []string
	pbMarkAll("", reflect.TypeFor[pbprojv1.PodWire](), func(path string) {
		if !set[path] {
			unset = append(unset, path)
		}
	})
	if len(unset) > 0 {
		t.Fatalf("no random Pod sets %v", unset)
	}
}

// pbMarkSet records the leaf paths of v (a projection struct) that are not
// zero.
func pbMarkSet(path string, v reflect.Value, set map[string]bool) {
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Name == "TypeMeta" || f.Name == "ObjectMeta" {
			continue
		}
		p, fv := path+"."+f.Name, v.Field(i)
		if pbGenerated(f.Type) {
			switch fv.Kind() {
			case reflect.Struct:
				pbMarkSet(p, fv, set)
			case reflect.Pointer:
				if !fv.IsNil() {
					pbMarkSet(p, fv.Elem(), set)
				}
			case reflect.Slice:
				for j := range fv.Len() {
					pbMarkSet(p, fv.Index(j), set)
				}
			}
			continue
		}
		if !fv.IsZero() {
			set[p] = true
		}
	}
}

func pbMarkAll(path string, t reflect.Type, leaf func(string)) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "TypeMeta" || f.Name == "ObjectMeta" {
			continue
		}
		p := path + "." + f.Name
		if pbGenerated(f.Type) {
			et := f.Type
			if et.Kind() == reflect.Pointer || et.Kind() == reflect.Slice {
				et = et.Elem()
			}
			pbMarkAll(p, et, leaf)
			continue
		}
		leaf(p)
	}
}

// pbGenerated reports a generated projection struct (or a pointer to or
// slice of one).
func pbGenerated(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.PkgPath() == reflect.TypeFor[pbprojv1.PodWire]().PkgPath()
}

// pbPodListEnvelope wraps one object's bytes in a Pod LIST body by hand, for
// the fuzz target (the serializer would re-encode them).
func pbPodListEnvelope(item []byte) []byte {
	appendBytes := func(b []byte, field int, v []byte) []byte {
		b = appendVarint(b, uint64(field)<<3|2)
		b = appendVarint(b, uint64(len(v)))
		return append(b, v...)
	}
	tm := appendBytes(appendBytes(nil, 1, []byte("v1")), 2, []byte("PodList"))
	list := appendBytes(nil, 2, item)
	body := []byte("k8s\x00")
	body = appendBytes(body, 1, tm)
	return appendBytes(body, 2, list)
}

func appendVarint(b []byte, v uint64) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// FuzzProtobufProjection feeds arbitrary bytes as a Pod to PodWire's
// generated protobuf decoder: it never panics; whatever Pod's generated
// Unmarshal accepts it decodes, equal to decode-then-project; what it
// rejects is an error naming the field path and offset.
func FuzzProtobufProjection(f *testing.F) {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	for seed := range int64(8) {
		for _, obj := range pbProjRandomObjects(f, pod, seed, 1) {
			b, err := obj.(*corev1.Pod).Marshal()
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			f.Add(b[:len(b)*2/3])
		}
	}
	f.Add([]byte{0x12, 0x03, 0x52, 0x01, 0x41})                   // spec.nodeName "A"
	f.Add([]byte{0x12, 0x04, 0xca, 0x01, 0x01, 0x05})             // spec.priority, wire type 2, packed-looking
	f.Add([]byte{0x12, 0x05, 0x3a, 0x03, 0x0a, 0x05, 0x41})       // nodeSelector entry, key past its end
	f.Add([]byte{0x12, 0x06, 0x22, 0x04, 0x08, 0x01, 0x08, 0x02}) // securityContext.supplementalGroups
	f.Add([]byte{0x0b, 0x0c})                                     // a group
	codec := must(wire.NewProtobufProjection[*pbprojv1.PodWire](pod, pbcorev1.PodWireType.DecodeProtobuf))
	f.Fuzz(func(t *testing.T, b []byte) { _ = pbCheckPodBytes(t, codec, b) })
}

// pbCheckPodBytes decodes b, a Pod's bytes, with PodWire's protobuf decoder
// and with Pod's generated Unmarshal: what the latter accepts the former
// must decode, equal to the projection of the Pod; what the former rejects
// the latter must reject too, and the error names the field.
func pbCheckPodBytes(t *testing.T, codec wire.Codec[*pbprojv1.PodWire], b []byte) (decoded bool) {
	t.Helper()
	var got *pbprojv1.PodWire
	_, err := codec.DecodeList(bytes.NewReader(pbPodListEnvelope(b)), func(p *pbprojv1.PodWire) error {
		got = p
		return nil
	})
	full := &corev1.Pod{}
	fullErr := full.Unmarshal(b)
	if err != nil {
		var fe *wire.ProtobufFieldError
		if !errors.As(err, &fe) {
			t.Fatalf("error %v does not name the field", err)
		}
		if fullErr == nil {
			t.Fatalf("ours: %v; Pod's Unmarshal accepts the bytes %x", err, b)
		}
		return false
	}
	if fullErr != nil {
		return true // the error is in a field the projection skips
	}
	want := &pbprojv1.PodWire{}
	pbProject(reflect.ValueOf(full).Elem(), reflect.ValueOf(want).Elem())
	if d := pbDiff("pod", reflect.ValueOf(want).Elem(), reflect.ValueOf(got).Elem()); len(d) > 0 {
		t.Fatalf("bytes %x differ from decode-then-project: %v", b, d)
	}
	return true
}

// TestProtobufProjectionMutations runs the fuzz target's check over
// random Pods' bytes with random bytes changed, cut or repeated: the fuzz
// target's work, a little of it on every test run.
func TestProtobufProjectionMutations(t *testing.T) {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	codec := must(wire.NewProtobufProjection[*pbprojv1.PodWire](pod, pbcorev1.PodWireType.DecodeProtobuf))
	n := 3000
	if testing.Short() {
		n = 300
	}
	rnd := rand.New(rand.NewSource(1))
	objs := pbProjRandomObjects(t, pod, 99, 20)
	ok := 0
	for i := range n {
		b, err := objs[i%len(objs)].(*corev1.Pod).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		for range 1 + rnd.Intn(3) {
			if len(b) == 0 {
				break
			}
			switch j := rnd.Intn(len(b)); rnd.Intn(4) {
			case 0:
				b[j] = byte(rnd.Intn(256))
			case 1:
				b[j] ^= 1 << rnd.Intn(8)
			case 2:
				b = b[:j]
			case 3:
				k := j + rnd.Intn(len(b)-j)
				b = append(b[:k:k], b[j:]...)
			}
		}
		if pbCheckPodBytes(t, codec, b) {
			ok++
		}
	}
	// Both outcomes, or the mutations test one path only.
	if ok == 0 || ok == n {
		t.Fatalf("%d of %d mutated Pods decoded", ok, n)
	}
	t.Logf("%d of %d mutated Pods decoded", ok, n)
}

// TestProtobufProjectionErrorNamesField: a malformed field the projection
// reads is an error naming its path of field numbers and its offset in the
// object; one it skips is not read.
func TestProtobufProjectionErrorNamesField(t *testing.T) {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	codec := must(wire.NewProtobufProjection(pod, pbcorev1.PodWireType.DecodeProtobuf))
	for _, c := range []struct {
		name     string
		obj      []byte
		wantPath string
		wantOff  int
		wantErr  string
	}{
		{"spec.nodeName as a varint", []byte{0x12, 0x02, 0x50, 0x01}, "protobuf field 2.10", 2, "wrong wire type 0"},
		{"status.phase cut short", []byte{0x1a, 0x03, 0x0a, 0x05, 0x41}, "protobuf field 3.1", 2, "unexpected EOF"},
		{"spec longer than the pod", []byte{0x12, 0x09, 0x50, 0x01}, "protobuf field 2", 0, "unexpected EOF"},
		{"metadata.labels entry cut short", []byte{0x0a, 0x04, 0x5a, 0x02, 0x0a, 0x05}, "protobuf field 1.11", 2, "unexpected EOF"},
		{"metadata.name as a varint, after a label", []byte{0x0a, 0x0b, 0x5a, 0x07, 0x0a, 0x01, 0x6b, 0x12, 0x02, 0x76, 0x31, 0x08, 0x01}, "protobuf field 1.1", 11, "wrong wire type 0"},
		{"a stray end of group", []byte{0x12, 0x01, 0x0c}, "protobuf field 2.1", 2, "end of group"},
		{"field 0", []byte{0x00}, "protobuf", 0, "illegal tag 0"},
	} {
		_, err := codec.DecodeList(bytes.NewReader(pbPodListEnvelope(c.obj)), func(*pbprojv1.PodWire) error { return nil })
		var fe *wire.ProtobufFieldError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a ProtobufFieldError", c.name, err)
			continue
		}
		if fe.Path != c.wantPath || fe.Offset != c.wantOff || !strings.Contains(fe.Err.Error(), c.wantErr) {
			t.Errorf("%s: %q at %d (%v), want %q at %d (%s)", c.name, fe.Path, fe.Offset, fe.Err, c.wantPath, c.wantOff, c.wantErr)
		}
		if (&corev1.Pod{}).Unmarshal(c.obj) == nil {
			t.Errorf("%s: Pod's Unmarshal accepts it", c.name)
		}
	}
	// A malformed field the projection skips (spec.dnsPolicy, 6, as a
	// varint) is not looked at; Pod's Unmarshal rejects it.
	skipped := []byte{0x12, 0x02, 0x30, 0x01}
	if (&corev1.Pod{}).Unmarshal(skipped) == nil {
		t.Fatal("Pod's Unmarshal accepts spec.dnsPolicy as a varint")
	}
	if _, err := codec.DecodeList(bytes.NewReader(pbPodListEnvelope(skipped)), func(*pbprojv1.PodWire) error { return nil }); err != nil {
		t.Errorf("a skipped field failed the decoding: %v", err)
	}
}

// TestCheckedProtobufDecoder: a generated decoder is used only while the
// source types still have the field numbers it was generated from.
func TestCheckedProtobufDecoder(t *testing.T) {
	fn := pbcorev1.PodWireType.DecodeProtobuf
	spec := reflect.TypeFor[corev1.PodSpec]()
	for _, c := range []struct {
		fields string
		want   bool
	}{
		{"NodeName=10,Containers=2", true},
		{"NodeName=11", false},  // renumbered
		{"NodeNames=10", false}, // renamed
		{"NodeName", false},     // malformed
		{"ObjectMeta=1", false}, // not PodSpec's
		{"Containers=2,X=", false},
	} {
		got := wire.CheckedProtobufDecoder(map[reflect.Type]string{spec: c.fields}, fn) != nil
		if got != c.want {
			t.Errorf("%q: decoder kept %v, want %v", c.fields, got, c.want)
		}
	}
}

// skipOpt is SkipManagedFields when skip is true.
func skipOpt(skip bool) wire.Option {
	if skip {
		return wire.SkipManagedFields()
	}
	return wire.Option{}
}

// TestProtobufProjectionSharesMetadata: a projection's metadata is decoded
// as its kind's codec decodes it. Equal labels (seen a second time) are one
// map, unless the codec has DistinctMaps; repeated strings are one string;
// names, UIDs and resourceVersions, unique to each object, are not
// interned (two objects decoded from the same bytes hold distinct copies).
// The projection's own maps (a nodeSelector, an overhead) are shared too.
// A message repeated in one object adds its entries to a copy of the
// shared map, never to the map itself.
func TestProtobufProjectionSharesMetadata(t *testing.T) {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	same := func(x, y any) bool { return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() }
	sameString := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	decode := func(codec wire.Codec[*pbprojv1.PodWire], objs []runtime.Object) []*pbprojv1.PodWire {
		t.Helper()
		var got []*pbprojv1.PodWire
		if _, err := codec.DecodeList(bytes.NewReader(pbProjListBody(t, pod, objs)), func(p *pbprojv1.PodWire) error {
			got = append(got, p)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(objs) {
			t.Fatalf("decoded %d objects of %d", len(got), len(objs))
		}
		return got
	}
	var objs []runtime.Object
	for range 3 {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "same-name", UID: "0b8a3e52-5f0c-4c5e-9d6f-1b2c3d4e5f60", ResourceVersion: "12345",
			Labels:      map[string]string{"app": "a", "tier": "web"},
			Annotations: map[string]string{"note": "x"},
		}, Spec: corev1.PodSpec{
			NodeSelector: map[string]string{"zone": "z1"},
			Overhead:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m")},
		}})
	}
	for _, distinct := range []bool{false, true} {
		var opts []wire.Option
		if distinct {
			opts = append(opts, wire.OptionOf(func(o *codecopts.Options) { o.DistinctMaps = true }))
		}
		for _, skip := range []bool{false, true} {
			codec := must(wire.NewProtobufProjection[*pbprojv1.PodWire](pod, pbcorev1.PodWireType.DecodeProtobuf, append(opts, skipOpt(skip))...))
			got := decode(codec, objs)
			for i, p := range got {
				if want := pbDecodeThenProject[pbprojv1.PodWire](t, objs[i], skip); !reflect.DeepEqual(p, want) {
					t.Fatalf("distinct %v, skip %v: object %d is %+v, want %+v", distinct, skip, i, p, want)
				}
			}
			a, b, c := got[0], got[1], got[2]
			if same(a.Labels, b.Labels) {
				t.Errorf("distinct %v, skip %v: the first two objects share their labels: a map is kept for sharing the second time its bytes are seen", distinct, skip)
			}
			if shared := same(b.Labels, c.Labels) && same(b.Annotations, c.Annotations); shared == distinct {
				t.Errorf("distinct %v, skip %v: equal labels and annotations shared: %v", distinct, skip, shared)
			}
			// The projection's own maps (ProtobufStringMap, ProtobufMessageMap) too.
			if shared := same(b.Spec.NodeSelector, c.Spec.NodeSelector) && same(b.Spec.Overhead, c.Spec.Overhead); shared == distinct {
				t.Errorf("distinct %v, skip %v: equal nodeSelectors and overheads shared: %v", distinct, skip, shared)
			}
			if !sameString(a.Labels["app"], c.Labels["app"]) || !sameString(a.Namespace, c.Namespace) {
				t.Errorf("distinct %v, skip %v: label values or namespaces are not interned", distinct, skip)
			}
			if sameString(a.Name, c.Name) || sameString(string(a.UID), string(c.UID)) || sameString(a.ResourceVersion, c.ResourceVersion) {
				t.Errorf("distinct %v, skip %v: a name, UID or resourceVersion is interned", distinct, skip)
			}

			// One more object whose metadata comes twice, the second time
			// with one more label: merged as Pod's Unmarshal merges, into
			// a copy of the shared labels.
			first, err := objs[0].(*corev1.Pod).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			late, err := (&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"late": "1"}},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"late": "1"}}}).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			var split *pbprojv1.PodWire
			if _, err := codec.DecodeList(bytes.NewReader(pbPodListEnvelope(append(first, late...))), func(p *pbprojv1.PodWire) error {
				split = p
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"app": "a", "tier": "web", "late": "1"}; !reflect.DeepEqual(split.Labels, want) {
				t.Errorf("distinct %v, skip %v: split metadata gives labels %v, want %v", distinct, skip, split.Labels, want)
			}
			if want := map[string]string{"zone": "z1", "late": "1"}; !reflect.DeepEqual(split.Spec.NodeSelector, want) {
				t.Errorf("distinct %v, skip %v: split spec gives nodeSelector %v, want %v", distinct, skip, split.Spec.NodeSelector, want)
			}
			if len(c.Labels) != 2 || len(b.Labels) != 2 || len(c.Spec.NodeSelector) != 1 {
				t.Fatalf("distinct %v, skip %v: a later entry was written into an earlier object's map: %v, %v", distinct, skip, c.Labels, c.Spec.NodeSelector)
			}
		}
	}
}

// TestProtobufProjectionSharesMessages checks the repeated message fields of
// projections (ProtobufMessages): decoded whole with the table decoder, each
// in a slice made once with its length (no spare capacity), with repeated
// strings interned, and shared between objects whose runs had the same
// bytes (kept the second time, as maps are), unless the codec has
// DistinctMaps; a later element of the field in the same object goes to a
// copy, never into the shared slice.
func TestProtobufProjectionSharesMessages(t *testing.T) {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	same := func(x, y any) bool { return reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer() }
	sameString := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	ts := metav1.Unix(1700000000, 0)
	conds := []corev1.PodCondition{
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: ts},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: ts},
		{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: "ContainersNotReady", LastTransitionTime: ts},
	}
	var objs []runtime.Object
	for i := range 3 {
		objs = append(objs, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("p%d", i)},
			Spec:       corev1.PodSpec{Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}},
			Status:     corev1.PodStatus{Conditions: conds},
		})
	}
	for _, distinct := range []bool{false, true} {
		var opts []wire.Option
		if distinct {
			opts = append(opts, wire.OptionOf(func(o *codecopts.Options) { o.DistinctMaps = true }))
		}
		codec := must(wire.NewProtobufProjection[*pbprojv1.PodWire](pod, pbcorev1.PodWireType.DecodeProtobuf, opts...))
		var got []*pbprojv1.PodWire
		if _, err := codec.DecodeList(bytes.NewReader(pbProjListBody(t, pod, objs)), func(p *pbprojv1.PodWire) error {
			got = append(got, p)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for i, p := range got {
			if want := pbDecodeThenProject[pbprojv1.PodWire](t, objs[i], false); !reflect.DeepEqual(p, want) {
				t.Fatalf("distinct %v: object %d is %+v, want %+v", distinct, i, p, want)
			}
			if c := p.Status.Conditions; cap(c) != len(c) {
				t.Errorf("distinct %v: object %d's conditions have capacity %d for %d", distinct, i, cap(c), len(c))
			}
		}
		a, b, c := got[0], got[1], got[2]
		if same(a.Status.Conditions, b.Status.Conditions) {
			t.Errorf("distinct %v: the first two objects share their conditions: a run is kept for sharing the second time its bytes are seen", distinct)
		}
		if shared := same(b.Status.Conditions, c.Status.Conditions) && same(b.Spec.Tolerations, c.Spec.Tolerations); shared == distinct {
			t.Errorf("distinct %v: equal conditions and tolerations shared: %v", distinct, shared)
		}
		if !sameString(string(a.Status.Conditions[2].Type), string(c.Status.Conditions[2].Type)) ||
			!sameString(a.Status.Conditions[2].Reason, c.Status.Conditions[2].Reason) {
			t.Errorf("distinct %v: the conditions' strings are not interned", distinct)
		}

		// An object whose conditions come in two runs (the status twice):
		// the second run is appended to a copy of the shared first.
		first, err := objs[0].(*corev1.Pod).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		late, err := (&corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: "Late"}}}}).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var split *pbprojv1.PodWire
		if _, err := codec.DecodeList(bytes.NewReader(pbPodListEnvelope(append(first, late...))), func(p *pbprojv1.PodWire) error {
			split = p
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if want := append(slices.Clone(conds), corev1.PodCondition{Type: "Late"}); !reflect.DeepEqual(split.Status.Conditions, want) {
			t.Errorf("distinct %v: split status gives conditions %+v, want %+v", distinct, split.Status.Conditions, want)
		}
		if !reflect.DeepEqual(c.Status.Conditions, conds) {
			t.Fatalf("distinct %v: a later condition was written into an earlier object's conditions: %+v", distinct, c.Status.Conditions)
		}
	}
}
