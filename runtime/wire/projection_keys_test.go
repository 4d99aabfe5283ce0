package wire_test

import (
	"bytes"
	stdjson "encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/internal/apiversion"
	"github.com/informer-gen/informer-gen/runtime/wire"
	keyscorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-keys/want/informers/core/v1"
	keysprojv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-keys/want/projections/core/v1"
)

// The key-name projections (PATH:keys, wire.MapKeys) of the golden case
// "projection-keys", read from protobuf and from JSON, against
// decode-whole-then-project: the map's keys, sorted, nil for none.

type keysCase struct {
	name string
	gvk  schema.GroupVersionKind
	// protobuf and json decode objs with the projection's codecs and
	// return what differs from decode-then-project.
	protobuf func(t *testing.T, objs []runtime.Object, skip bool) []string
	json     func(t *testing.T, objs []runtime.Object, generated bool) []string
	// keys returns the key names the projection of obj holds, all fields
	// together, for the check that the random objects reach them.
	keys func(t *testing.T, obj runtime.Object) int
}

func newKeysCase[P any, PP interface {
	*P
	metav1.Object
}](name string, gvk schema.GroupVersionKind, pb func(*wire.ProtobufDecoder, PP), js func(*wire.JSONDecoder, PP) error) keysCase {
	return keysCase{name: name, gvk: gvk,
		protobuf: func(t *testing.T, objs []runtime.Object, skip bool) []string {
			t.Helper()
			if pb == nil {
				t.Fatalf("%s has no protobuf decoder: generated code is stale (run hack/update-codegen.sh)", name)
			}
			codec := must(wire.NewProtobufProjection[PP](gvk, pb, skipOpt(skip)))
			var got []PP
			if _, err := codec.DecodeList(bytes.NewReader(pbProjListBody(t, gvk, objs)), func(p PP) error {
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
				want := keysDecodeThenProject[P, PP](t, obj, "protobuf", skip)
				diffs = append(diffs, pbDiff(fmt.Sprintf("item %d", i), reflect.ValueOf(want).Elem(), reflect.ValueOf(got[i]).Elem())...)
			}
			dec := codec.NewWatchDecoder(bytes.NewReader(pbProjWatchBody(t, gvk, objs)))
			for i, obj := range objs {
				ev, err := dec.Next()
				if err != nil {
					t.Fatalf("%s: watch event %d: %v", name, i, err)
				}
				want := keysDecodeThenProject[P, PP](t, obj, "protobuf", skip)
				diffs = append(diffs, pbDiff(fmt.Sprintf("event %d", i), reflect.ValueOf(want).Elem(), reflect.ValueOf(ev.Object).Elem())...)
			}
			if _, err := dec.Next(); err != io.EOF {
				t.Fatalf("%s: after the last watch event: %v", name, err)
			}
			return diffs
		},
		json: func(t *testing.T, objs []runtime.Object, generated bool) []string {
			t.Helper()
			var opts []wire.Option
			if generated {
				if js == nil && !apiversion.Generated("k8s.io/api") {
					// Generated against another k8s.io/api: CheckedDecoder
					// left the projection to the reflective decoder, which
					// the generated == false pass checks.
					return nil
				}
				if js == nil {
					t.Fatalf("%s has no JSON decoder: generated code is stale (run hack/update-codegen.sh)", name)
				}
				opts = append(opts, wire.GeneratedDecoder(js))
			}
			codec := must(wire.NewJSON[PP](gvk, opts...))
			var items [][]byte
			for _, obj := range objs {
				items = append(items, must(stdjson.Marshal(obj)))
			}
			body := fmt.Appendf(nil, `{"apiVersion":%q,"kind":"%sList","metadata":{"resourceVersion":"1"},"items":[%s]}`,
				gvk.GroupVersion().String(), gvk.Kind, bytes.Join(items, []byte(",")))
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
				want := keysDecodeThenProject[P, PP](t, obj, "json", false)
				diffs = append(diffs, pbDiff(fmt.Sprintf("item %d", i), reflect.ValueOf(want).Elem(), reflect.ValueOf(got[i]).Elem())...)
			}
			return diffs
		},
		keys: func(t *testing.T, obj runtime.Object) int {
			p := keysDecodeThenProject[P, PP](t, obj, "protobuf", false)
			n := 0
			keysEach(reflect.ValueOf(p).Elem(), func(k wire.MapKeys) { n += len(k) })
			return n
		},
	}
}

func keysCases() []keysCase {
	v1 := corev1.SchemeGroupVersion
	return []keysCase{
		newKeysCase("SecretKeys", v1.WithKind("Secret"), keyscorev1.SecretKeysType.DecodeProtobuf, keyscorev1.SecretKeysType.DecodeJSON),
		newKeysCase("ConfigMapKeys", v1.WithKind("ConfigMap"), keyscorev1.ConfigMapKeysType.DecodeProtobuf, keyscorev1.ConfigMapKeysType.DecodeJSON),
		newKeysCase("NodeResources", v1.WithKind("Node"), keyscorev1.NodeResourcesType.DecodeProtobuf, keyscorev1.NodeResourcesType.DecodeJSON),
		newKeysCase("PodSelectorKeys", v1.WithKind("Pod"), keyscorev1.PodSelectorKeysType.DecodeProtobuf, keyscorev1.PodSelectorKeysType.DecodeJSON),
	}
}

// keysDecodeThenProject is the oracle: obj encoded (protobuf: its generated
// Marshal; json: encoding/json, as the server writes it), decoded whole
// (its Unmarshal; encoding/json), then projected field by field, a MapKeys
// field from the map of the same Go name less "Keys".
func keysDecodeThenProject[P any, PP interface {
	*P
	metav1.Object
}](t testing.TB, obj runtime.Object, codec string, skipManagedFields bool) PP {
	t.Helper()
	full := reflect.New(reflect.TypeOf(obj).Elem())
	switch codec {
	case "protobuf":
		b, err := obj.(interface{ Marshal() ([]byte, error) }).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := full.Interface().(interface{ Unmarshal([]byte) error }).Unmarshal(b); err != nil {
			t.Fatal(err)
		}
	default:
		if err := stdjson.Unmarshal(must(stdjson.Marshal(obj)), full.Interface()); err != nil {
			t.Fatal(err)
		}
	}
	out := PP(new(P))
	keysProject(full.Elem(), reflect.ValueOf(out).Elem(), codec == "json")
	if skipManagedFields {
		out.SetManagedFields(nil)
	}
	return out
}

var mapKeysType = reflect.TypeFor[wire.MapKeys]()

func keysProject(src, dst reflect.Value, typeMeta bool) {
	for i := range dst.NumField() {
		name := dst.Type().Field(i).Name
		if name == "TypeMeta" && !typeMeta {
			continue // never in the protobuf encoding of an object
		}
		dv := dst.Field(i)
		if dv.Type() == mapKeysType {
			sv := src.FieldByName(strings.TrimSuffix(name, "Keys"))
			var keys wire.MapKeys
			for _, k := range sv.MapKeys() {
				keys = append(keys, k.String())
			}
			slices.Sort(keys)
			dv.Set(reflect.ValueOf(keys))
			continue
		}
		sv := src.FieldByName(name)
		switch {
		case sv.Type() == dv.Type():
			dv.Set(sv)
		case dv.Kind() == reflect.Struct:
			keysProject(sv, dv, typeMeta)
		case dv.Kind() == reflect.Pointer:
			if !sv.IsNil() {
				dv.Set(reflect.New(dv.Type().Elem()))
				keysProject(sv.Elem(), dv.Elem(), typeMeta)
			}
		default:
			panic(fmt.Sprintf("cannot project %v into %v", sv.Type(), dv.Type()))
		}
	}
}

// keysEach calls f with every MapKeys field of v, a projection struct.
func keysEach(v reflect.Value, f func(wire.MapKeys)) {
	for i := range v.NumField() {
		fv := v.Field(i)
		switch {
		case fv.Type() == mapKeysType:
			f(fv.Interface().(wire.MapKeys))
		case fv.Kind() == reflect.Struct && fv.Type().PkgPath() == reflect.TypeFor[keysprojv1.SecretKeys]().PkgPath():
			keysEach(fv, f)
		}
	}
}

// TestProjectionKeysDifferential decodes LISTs (and, in protobuf, WATCH
// streams) of random objects with the key-name projections' generated
// decoders, protobuf (managedFields kept and skipped) and JSON (generated
// and the codec's reflective decoder, which calls MapKeys' own method), and
// checks them against decode-then-project.
func TestProjectionKeysDifferential(t *testing.T) {
	seeds := int64(20)
	if testing.Short() {
		seeds = 4
	}
	for _, c := range keysCases() {
		t.Run(c.name, func(t *testing.T) {
			keys := 0
			for seed := range seeds {
				objs := pbProjRandomObjects(t, c.gvk, seed, 3)
				for _, obj := range objs {
					keys += c.keys(t, obj)
				}
				for _, skip := range []bool{false, true} {
					if d := c.protobuf(t, objs, skip); len(d) > 0 {
						t.Fatalf("seed %d, skip managedFields %v: the protobuf projection differs from decode-then-project:\n%v", seed, skip, d)
					}
				}
				for _, generated := range []bool{true, false} {
					if d := c.json(t, objs, generated); len(d) > 0 {
						t.Fatalf("seed %d, generated JSON decoder %v: the JSON projection differs from decode-then-project:\n%v", seed, generated, d)
					}
				}
			}
			if keys == 0 {
				t.Fatalf("no random object has a key in a projected map: the test proves nothing")
			}
		})
	}
}

// TestProtobufMapKeyEntries feeds hand-made map entries, in the forms the
// generated Unmarshal accepts (unsorted, a key twice, an entry without key
// or value, fields after the map's), to SecretKeys' protobuf decoder.
func TestProtobufMapKeyEntries(t *testing.T) {
	entry := func(fields ...[]byte) []byte { return bytes.Join(fields, nil) }
	field := func(n int, v string) []byte {
		b := appendVarint(nil, uint64(n)<<3|2)
		b = appendVarint(b, uint64(len(v)))
		return append(b, v...)
	}
	data := func(e []byte) []byte { return field(2, string(e)) }
	secret := bytes.Join([][]byte{
		field(1, string(field(1, "s"))), // metadata.name
		data(entry(field(1, "tls.key"), field(2, "K"))),
		data(entry(field(1, "ca.crt"), field(2, "C"))),
		data(entry(field(2, "no key"))),
		data(entry(field(1, "tls.key"), field(2, "again"))),
		data(entry(field(1, "no value"))),
		field(3, "kubernetes.io/tls"), // type, after the map
		data(entry(field(1, "late"), field(2, "L"))),
	}, nil)
	var full corev1.Secret
	if err := full.Unmarshal(secret); err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(maps.Keys(full.Data))
	if len(want) != 5 {
		t.Fatalf("the generated Unmarshal read keys %q; the input is not what this test means", want)
	}
	d := decodeSecretKeys(t, secret)
	if !slices.Equal(d.DataKeys, wire.MapKeys(want)) || d.Type != full.Type || d.Name != "s" {
		t.Fatalf("decoded %+v, want keys %q, type %s", d, want, full.Type)
	}
	if cap(d.DataKeys) != len(d.DataKeys)+1 { // 6 entries counted, 5 distinct keys
		t.Errorf("keys %q have capacity %d: the first entry should have counted 6 entries", d.DataKeys, cap(d.DataKeys))
	}
	// Truncated: an error naming the field, never a panic.
	for n := range len(secret) {
		if _, err := decodeSecretKeysErr(secret[:n]); err == nil && full.Unmarshal(secret[:n]) != nil {
			t.Errorf("%d bytes: decoded what the generated Unmarshal rejects", n)
		}
	}
}

func decodeSecretKeys(t *testing.T, obj []byte) *keysprojv1.SecretKeys {
	t.Helper()
	p, err := decodeSecretKeysErr(obj)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func decodeSecretKeysErr(obj []byte) (*keysprojv1.SecretKeys, error) {
	gvk := corev1.SchemeGroupVersion.WithKind("Secret")
	codec := must(wire.NewProtobufProjection[*keysprojv1.SecretKeys](gvk, keyscorev1.SecretKeysType.DecodeProtobuf))
	appendBytes := func(b []byte, field int, v []byte) []byte {
		b = appendVarint(b, uint64(field)<<3|2)
		b = appendVarint(b, uint64(len(v)))
		return append(b, v...)
	}
	tm := appendBytes(appendBytes(nil, 1, []byte("v1")), 2, []byte("SecretList"))
	body := append([]byte("k8s\x00"), appendBytes(nil, 1, tm)...)
	body = appendBytes(body, 2, appendBytes(nil, 2, obj))
	var got *keysprojv1.SecretKeys
	_, err := codec.DecodeList(bytes.NewReader(body), func(p *keysprojv1.SecretKeys) error { got = p; return nil })
	return got, err
}

// TestMapKeysJSON reads the JSON forms of a map (and MapKeys' own encoding)
// with the codec's decoders and with encoding/json.
func TestMapKeysJSON(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       wire.MapKeys
		err        bool
	}{
		{name: "absent", data: ``, want: nil},
		{name: "null", data: `,"data":null`, want: nil},
		{name: "empty", data: `,"data":{}`, want: nil},
		{name: "unsorted, a name twice", data: `,"data":{"b":"Yg==","a":null,"b":"eA=="}`, want: wire.MapKeys{"a", "b"}},
		{name: "escapes and non-ASCII", data: `,"data":{"tls\u002ecrt":"","ключ":""}`, want: wire.MapKeys{"tls.crt", "ключ"}},
		{name: "values skipped unchecked", data: `,"data":{"n":5,"o":{"x":[1,2]}}`, want: wire.MapKeys{"n", "o"}},
		{name: "the member twice merges", data: `,"data":{"b":""},"data":{"a":"","b":""}`, want: wire.MapKeys{"a", "b"}},
		{name: "null after a map clears", data: `,"data":{"b":""},"data":null`, want: nil},
		{name: "its own encoding", data: `,"data":["b","a"]`, want: wire.MapKeys{"a", "b"}},
		{name: "a string", data: `,"data":"x"`, err: true},
		{name: "an array of numbers", data: `,"data":[1]`, err: true},
		{name: "bad syntax in a value", data: `,"data":{"a":tru}`, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			obj := `{"metadata":{"name":"s"},"type":"Opaque"` + c.data + `}`
			for _, generated := range []bool{true, false} {
				var opts []wire.Option
				if generated {
					opts = append(opts, wire.GeneratedDecoder(keyscorev1.SecretKeysType.DecodeJSON))
				}
				codec := must(wire.NewJSON[*keysprojv1.SecretKeys](corev1.SchemeGroupVersion.WithKind("Secret"), opts...))
				var got *keysprojv1.SecretKeys
				_, err := codec.DecodeList(strings.NewReader(`{"kind":"SecretList","apiVersion":"v1","metadata":{},"items":[`+obj+`]}`),
					func(p *keysprojv1.SecretKeys) error { got = p; return nil })
				if c.err {
					if err == nil {
						t.Errorf("generated %v: decoded %+v, want an error", generated, got)
					}
					continue
				}
				if err != nil {
					t.Fatalf("generated %v: %v", generated, err)
				}
				if !reflect.DeepEqual(got.DataKeys, c.want) || got.Type != "Opaque" {
					t.Errorf("generated %v: keys %#v type %q, want %#v", generated, got.DataKeys, got.Type, c.want)
				}
			}
			var std keysprojv1.SecretKeys
			err := stdjson.Unmarshal([]byte(obj), &std)
			if c.err != (err != nil) || !c.err && !reflect.DeepEqual(std.DataKeys, c.want) {
				t.Errorf("encoding/json: keys %#v, error %v; want %#v (error %v)", std.DataKeys, err, c.want, c.err)
			}
		})
	}
	// A projection encoded with encoding/json and read back is equal.
	p := keysprojv1.SecretKeys{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Type: "Opaque", DataKeys: wire.MapKeys{"ca.crt", "tls.crt"}}
	var back keysprojv1.SecretKeys
	if err := stdjson.Unmarshal(must(stdjson.Marshal(&p)), &back); err != nil || !reflect.DeepEqual(back, p) {
		t.Errorf("round trip: %+v (%v), want %+v", back, err, p)
	}
}

// TestMapKeysShareNames checks that two objects' keys share one string per
// name, and DeepCopy copies the slice, not the names' bytes.
func TestMapKeysShareNames(t *testing.T) {
	a := decodeSecretKeys(t, secretWithKeys("tls.crt"))
	b := decodeSecretKeys(t, secretWithKeys("tls.crt"))
	if unsafeStringData(a.DataKeys[0]) != unsafeStringData(b.DataKeys[0]) {
		t.Errorf("two Secrets' \"tls.crt\" are two copies")
	}
	c := a.DeepCopy()
	c.DataKeys[0] = "x"
	if a.DataKeys[0] != "tls.crt" || !a.DataKeys.Has("tls.crt") || a.DataKeys.Has("x") {
		t.Errorf("DeepCopy shares the keys slice: %q", a.DataKeys)
	}
}

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

func secretWithKeys(keys ...string) []byte {
	var s corev1.Secret
	s.Name = "s"
	s.Data = map[string][]byte{}
	for _, k := range keys {
		s.Data[k] = []byte("v")
	}
	return must(s.Marshal())
}

// FuzzProtobufMapKeys feeds arbitrary bytes as a Secret to SecretKeys'
// generated protobuf decoder: it never panics, and whatever Secret's
// generated Unmarshal accepts it decodes to the same type and key names.
func FuzzProtobufMapKeys(f *testing.F) {
	for seed := range int64(8) {
		for _, obj := range pbProjRandomObjects(f, corev1.SchemeGroupVersion.WithKind("Secret"), seed, 1) {
			f.Add(must(obj.(*corev1.Secret).Marshal()))
		}
	}
	f.Add(secretWithKeys("tls.crt", "ca.crt"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := decodeSecretKeysErr(b)
		var full corev1.Secret
		if full.Unmarshal(b) != nil {
			return // the projection may accept what it skips unchecked
		}
		if err != nil {
			t.Fatalf("the generated Unmarshal accepts what the projection rejects: %v", err)
		}
		want := slices.Sorted(maps.Keys(full.Data))
		if len(want) == 0 {
			want = nil
		}
		if !slices.Equal(got.DataKeys, wire.MapKeys(want)) || got.Type != full.Type {
			t.Fatalf("decoded keys %q type %q, want %q, %q", got.DataKeys, got.Type, want, full.Type)
		}
	})
}
