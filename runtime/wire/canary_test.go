package wire_test

import (
	"bytes"
	"encoding/base64"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fxamacker/cbor/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	"github.com/informer-gen/informer-gen/runtime/wire"
	gadgetsv1 "github.com/informer-gen/informer-gen/testdata/golden/json-decoders/input/apis/gadgets/v1"
	gadgetsv1gen "github.com/informer-gen/informer-gen/testdata/golden/json-decoders/want/informers/gadgets/v1"
	summarycorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-flag/want/informers/core/v1"
	summaryprojv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-flag/want/projections/core/v1"
	keyscorev1 "github.com/informer-gen/informer-gen/testdata/golden/projection-keys/want/informers/core/v1"
	keysprojv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-keys/want/projections/core/v1"
	podsv1 "github.com/informer-gen/informer-gen/testdata/golden/shared-decoders/input/apis/pods/v1"
	podsv1gen "github.com/informer-gen/informer-gen/testdata/golden/shared-decoders/want/informers/pods/v1"
)

// The redaction rule (docs/guide.md, "What reaches a log or an error") on
// every codec: objects whose every string holds a canary, and every value a
// decoder parses (timestamps, quantities, int-or-strings, base64 data, numbers,
// booleans) replaced in turn by the canary or by a value of the wrong JSON kind
// holding it, are decoded as LIST bodies and WATCH streams by the reflective
// and the generated JSON decoders, CBOR, protobuf, and the projections' JSON
// and protobuf decoders; no error message may hold the canary. Only the
// object's identity (namespace, name, resourceVersion, apiVersion, kind) may
// be named, so those fields do not carry it.

// canary is the value no error may quote. canaryDigits is a quantity of the
// same length: it is encoded into protobuf bodies and then overwritten with
// the canary in place, which leaves every length prefix right and makes a
// malformed quantity that only a decoder can meet.
const (
	canary       = "cAnArY0hunter2"
	canaryDigits = "98765432109876"
)

// canaryLeaks reports whether msg quotes the canary: whole, in part (a
// decoder that quotes the first bytes of a value), or base64-encoded (a
// []byte field's JSON).
func canaryLeaks(msg string) bool {
	return strings.Contains(msg, canary[1:6]) || strings.Contains(msg, base64.StdEncoding.EncodeToString([]byte(canary))[:8])
}

var (
	quantityType = reflect.TypeFor[resource.Quantity]()
	rawExtType   = reflect.TypeFor[runtime.RawExtension]()
	fieldsV1Type = reflect.TypeFor[metav1.FieldsV1]()
	timeType     = reflect.TypeFor[metav1.Time]()
	microType    = reflect.TypeFor[metav1.MicroTime]()
)

// fillCanary sets every string reachable from v (struct fields, slice
// elements, map values; map keys are names and are left alone) to the
// canary, every []byte to its bytes and every quantity to canaryDigits.
func fillCanary(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			fillCanary(v.Elem())
		}
	case reflect.Struct:
		switch v.Type() {
		case quantityType:
			v.Set(reflect.ValueOf(resource.MustParse(canaryDigits)))
			return
		case rawExtType:
			v.Set(reflect.ValueOf(runtime.RawExtension{Raw: []byte(`{"a":"` + canary + `"}`)}))
			return
		case fieldsV1Type:
			v.Set(reflect.ValueOf(*metav1.NewFieldsV1(`{"f:` + canary + `":{}}`)))
			return
		case timeType, microType:
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillCanary(v.Field(i))
			}
		}
	case reflect.String:
		v.SetString(canary)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			if !v.IsNil() {
				v.SetBytes([]byte(canary))
			}
			return
		}
		for i := range v.Len() {
			fillCanary(v.Index(i))
		}
	case reflect.Map:
		iter := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var set []kv
		for iter.Next() {
			nv := reflect.New(v.Type().Elem()).Elem()
			nv.Set(iter.Value())
			fillCanary(nv)
			set = append(set, kv{iter.Key(), nv})
		}
		for _, e := range set {
			v.SetMapIndex(e.k, e.v)
		}
	}
}

// canaryObject returns a random object of the subject's type with the canary
// in every string but its identity, as the API server would send it.
func canaryObject(s *canarySubject, seed int64) runtime.Object {
	f := fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), serializer.NewCodecFactory(scheme.Scheme)).NilChance(0.1).MaxDepth(5).NumElements(1, 1)
	obj := s.newObj()
	f.Fill(obj)
	fillCanary(reflect.ValueOf(obj))
	m := obj.(metav1.Object)
	m.SetNamespace("ns")
	m.SetName("a")
	m.SetResourceVersion("9")
	m.SetDeletionTimestamp(nil) // a real timestamp either way: the mutations make it malformed
	obj.GetObjectKind().SetGroupVersionKind(s.gvk)
	return obj
}

// canaryCodec is one codec of a subject, by the bodies it reads.
type canaryCodec struct {
	name string
	// media is the encoding: "json", "cbor" or "protobuf".
	media string
	list  func(body []byte) error
	watch func(body []byte) []error
}

func canaryCodecOf[T any](name, media string, c wire.Codec[T]) canaryCodec {
	return canaryCodec{name: name, media: media,
		list: func(body []byte) error {
			_, err := c.DecodeList(bytes.NewReader(body), func(T) error { return nil })
			return err
		},
		watch: func(body []byte) []error {
			d := c.NewWatchDecoder(bytes.NewReader(body))
			var errs []error
			for range 16 {
				_, err := d.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					errs = append(errs, err)
					if de, ok := errors.AsType[*wire.DecodeError](err); !ok || !de.Recoverable {
						break
					}
				}
			}
			return errs
		}}
}

// canarySubject is a kind and the codecs that read it.
type canarySubject struct {
	name   string
	gvk    schema.GroupVersionKind
	newObj func() runtime.Object
	codecs []canaryCodec
}

func canarySubjects() []*canarySubject {
	pod := corev1.SchemeGroupVersion.WithKind("Pod")
	secret := corev1.SchemeGroupVersion.WithKind("Secret")
	gadget := gadgetsv1.SchemeGroupVersion.WithKind("Gadget")
	runner := podsv1.SchemeGroupVersion.WithKind("Runner")
	return []*canarySubject{
		{name: "Pod", gvk: pod, newObj: func() runtime.Object { return new(corev1.Pod) }, codecs: []canaryCodec{
			canaryCodecOf("reflective JSON", "json", must(wire.NewJSON[*corev1.Pod](pod))),
			canaryCodecOf("generated JSON", "json", must(wire.NewJSON[*corev1.Pod](pod, wire.GeneratedDecoder(corev1gen.PodType.DecodeJSON)))),
			canaryCodecOf("CBOR", "cbor", must(wire.NewCBOR[*corev1.Pod](pod))),
			canaryCodecOf("protobuf", "protobuf", must(wire.NewProtobuf[*corev1.Pod](pod))),
			canaryCodecOf("projection PodSummary, protobuf", "protobuf", must(wire.NewProtobufProjection[*summaryprojv1.PodSummary](pod, summarycorev1.PodSummaryType.DecodeProtobuf))),
			canaryCodecOf("projection PodSummary, JSON", "json", must(wire.NewJSON[*summaryprojv1.PodSummary](pod, wire.GeneratedDecoder(summarycorev1.PodSummaryType.DecodeJSON)))),
			canaryCodecOf("projection PodSelectorKeys (PATH:keys), protobuf", "protobuf", must(wire.NewProtobufProjection[*keysprojv1.PodSelectorKeys](pod, keyscorev1.PodSelectorKeysType.DecodeProtobuf))),
			canaryCodecOf("projection PodSelectorKeys (PATH:keys), JSON", "json", must(wire.NewJSON[*keysprojv1.PodSelectorKeys](pod, wire.GeneratedDecoder(keyscorev1.PodSelectorKeysType.DecodeJSON)))),
		}},
		{name: "Secret", gvk: secret, newObj: func() runtime.Object { return new(corev1.Secret) }, codecs: []canaryCodec{
			canaryCodecOf("reflective JSON", "json", must(wire.NewJSON[*corev1.Secret](secret))),
			canaryCodecOf("generated JSON", "json", must(wire.NewJSON[*corev1.Secret](secret, wire.GeneratedDecoder(corev1gen.SecretType.DecodeJSON)))),
			canaryCodecOf("CBOR", "cbor", must(wire.NewCBOR[*corev1.Secret](secret))),
			canaryCodecOf("protobuf", "protobuf", must(wire.NewProtobuf[*corev1.Secret](secret))),
			canaryCodecOf("projection SecretKeys (PATH:keys), protobuf", "protobuf", must(wire.NewProtobufProjection[*keysprojv1.SecretKeys](secret, keyscorev1.SecretKeysType.DecodeProtobuf))),
			canaryCodecOf("projection SecretKeys (PATH:keys), JSON", "json", must(wire.NewJSON[*keysprojv1.SecretKeys](secret, wire.GeneratedDecoder(keyscorev1.SecretKeysType.DecodeJSON)))),
		}},
		{name: "Gadget", gvk: gadget, newObj: func() runtime.Object { return new(gadgetsv1.Gadget) }, codecs: []canaryCodec{
			canaryCodecOf("reflective JSON", "json", must(wire.NewJSON[*gadgetsv1.Gadget](gadget))),
			canaryCodecOf("generated JSON", "json", must(wire.NewJSON[*gadgetsv1.Gadget](gadget, wire.GeneratedDecoder(gadgetsv1gen.GadgetType.DecodeJSON)))),
		}},
		{name: "Runner", gvk: runner, newObj: func() runtime.Object { return new(podsv1.Runner) }, codecs: []canaryCodec{
			canaryCodecOf("reflective JSON", "json", must(wire.NewJSON[*podsv1.Runner](runner))),
			canaryCodecOf("generated JSON", "json", must(wire.NewJSON[*podsv1.Runner](runner, wire.GeneratedDecoder(podsv1gen.RunnerType.DecodeJSON)))),
		}},
	}
}

// jsonTree is obj's JSON as generic values (numbers kept as json.Number).
func jsonTree(t testing.TB, obj runtime.Object) map[string]any {
	b, err := stdjson.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	d := stdjson.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree map[string]any
	if err := d.Decode(&tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

// canaryPath is the place of one leaf of a JSON tree.
type canaryPath []any // string member names, int indexes

// leaves returns the path of every leaf value of tree (strings, numbers,
// booleans, nulls) but the object's identity, in a stable order.
func leaves(tree any, at canaryPath, out *[]canaryPath) {
	switch v := tree.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			if len(at) == 0 && (k == "apiVersion" || k == "kind") ||
				len(at) == 1 && at[0] == "metadata" && (k == "name" || k == "namespace" || k == "resourceVersion") {
				continue
			}
			leaves(v[k], append(slices.Clip(at), k), out)
		}
	case []any:
		for i, e := range v {
			leaves(e, append(slices.Clip(at), i), out)
		}
	default:
		*out = append(*out, at)
	}
}

// replaced returns a deep copy of tree with the value at p replaced by with.
func replaced(tree any, p canaryPath, with any) any {
	if len(p) == 0 {
		return with
	}
	switch v := tree.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = e
		}
		c[p[0].(string)] = replaced(v[p[0].(string)], p[1:], with)
		return c
	case []any:
		c := slices.Clone(v)
		c[p[0].(int)] = replaced(v[p[0].(int)], p[1:], with)
		return c
	}
	panic("path through a leaf")
}

// canaryMutations are the values a leaf is replaced with: the canary as a
// string (a malformed timestamp, quantity, number, boolean, base64 data, an
// unknown enum value), and values of the wrong JSON kind that hold it.
func canaryMutations() []any {
	return []any{canary, map[string]any{canary: canary}, []any{canary}}
}

// jsonBodies returns tree as a JSON LIST body and a JSON WATCH body.
func jsonBodies(t testing.TB, gvk schema.GroupVersionKind, tree any) (list, watch []byte) {
	item, err := stdjson.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	list = fmt.Appendf(nil, `{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"10"},"items":[%s]}`, apiVersion, kind+"List", item)
	watch = fmt.Appendf(nil, `{"type":"ADDED","object":%s}`+"\n"+`{"type":"MODIFIED","object":%s}`, item, item)
	return list, watch
}

// cborValue is v, a JSON tree, with numbers as CBOR integers or floats and
// the []byte fields (the canary's base64) as byte strings.
func cborValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		c := make(map[string]any, len(v))
		for k, e := range v {
			c[k] = cborValue(e)
		}
		return c
	case []any:
		c := make([]any, len(v))
		for i, e := range v {
			c[i] = cborValue(e)
		}
		return c
	case string:
		if v == base64.StdEncoding.EncodeToString([]byte(canary)) {
			return []byte(v) // a []byte field: a byte string (apimachinery decodes it as base64, as JSON)
		}
	case stdjson.Number:
		if n, err := v.Int64(); err == nil {
			return n
		}
		f, _ := v.Float64()
		return f
	}
	return v
}

// cborBodies returns tree as a CBOR LIST body and a CBOR WATCH body (as an
// API server with CBOR encodes them: self-described, one data item per
// event).
func cborBodies(t testing.TB, gvk schema.GroupVersionKind, tree any) (list, watch []byte) {
	selfDescribed := []byte{0xd9, 0xd9, 0xf7}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	item := cborValue(tree)
	l, err := cbor.Marshal(map[string]any{"apiVersion": apiVersion, "kind": kind + "List", "metadata": map[string]any{"resourceVersion": "10"}, "items": []any{item}})
	if err != nil {
		t.Fatal(err)
	}
	list = append(slices.Clip(selfDescribed), l...)
	for _, typ := range []string{"ADDED", "MODIFIED"} {
		obj, err := cbor.Marshal(item)
		if err != nil {
			t.Fatal(err)
		}
		ev, err := cbor.Marshal(map[string]any{"type": typ, "object": cbor.RawMessage(append(slices.Clip(selfDescribed), obj...))})
		if err != nil {
			t.Fatal(err)
		}
		watch = append(watch, selfDescribed...)
		watch = append(watch, ev...)
	}
	return list, watch
}

// protobufBodies returns obj as a protobuf LIST body and WATCH body, with
// every quantity (canaryDigits) overwritten by the canary.
func protobufBodies(t testing.TB, gvk schema.GroupVersionKind, obj runtime.Object) (list, watch []byte) {
	list = pbProjListBody(t, gvk, []runtime.Object{obj})
	watch = pbProjWatchBody(t, gvk, []runtime.Object{obj, obj})
	return bytes.ReplaceAll(list, []byte(canaryDigits), []byte(canary)), bytes.ReplaceAll(watch, []byte(canaryDigits), []byte(canary))
}

// canaryRun decodes the bodies with c and reports every message that quotes
// the canary; errs counts the errors seen.
func canaryRun(c canaryCodec, list, watch []byte) (leaks []string, errs int) {
	check := func(what string, err error) {
		if err == nil {
			return
		}
		errs++
		if canaryLeaks(err.Error()) {
			leaks = append(leaks, fmt.Sprintf("%s %s: %v", c.name, what, err))
		}
	}
	check("LIST", c.list(list))
	for _, err := range c.watch(watch) {
		check("WATCH", err)
	}
	return leaks, errs
}

// TestCanaryDecodeErrors runs every codec of every subject over the canary
// object as it is (it must decode without an error: the canary alone is
// valid content) and with each of its leaves replaced by each mutation.
func TestCanaryDecodeErrors(t *testing.T) {
	for _, s := range canarySubjects() {
		t.Run(s.name, func(t *testing.T) {
			obj := canaryObject(s, 1)
			tree := jsonTree(t, obj)
			var paths []canaryPath
			leaves(tree, nil, &paths)
			if len(paths) < 20 {
				t.Fatalf("only %d leaves in the canary object", len(paths))
			}
			for _, c := range s.codecs {
				t.Run(c.name, func(t *testing.T) {
					var list, watch []byte
					switch c.media {
					case "json":
						list, watch = jsonBodies(t, s.gvk, tree)
					case "cbor":
						list, watch = cborBodies(t, s.gvk, tree)
					case "protobuf":
						list, watch = protobufBodies(t, s.gvk, obj)
					}
					if c.media == "protobuf" {
						// Protobuf bodies carry no JSON to mutate: the
						// object itself has the malformed quantities.
						leaks, errs := canaryRun(c, list, watch)
						if c.name == "protobuf" && errs == 0 && hasQuantity(obj) {
							t.Errorf("no error from quantities %q", canary)
						}
						for _, l := range leaks {
							t.Errorf("canary quoted: %s", l)
						}
						return
					}
					if err := c.list(list); err != nil {
						t.Fatalf("the canary object did not decode: %v", err)
					}
					var leaks []string
					var errs int
					for _, p := range paths {
						for _, m := range canaryMutations() {
							mutated := replaced(tree, p, m)
							switch c.media {
							case "json":
								list, watch = jsonBodies(t, s.gvk, mutated)
							case "cbor":
								list, watch = cborBodies(t, s.gvk, mutated)
							}
							l, n := canaryRun(c, list, watch)
							errs += n
							for _, l := range l {
								leaks = append(leaks, fmt.Sprintf("%s = %v: %s", pointer(p), m, l))
							}
						}
					}
					if errs == 0 {
						t.Fatalf("no mutation of %d leaves made an error", len(paths))
					}
					for i, l := range leaks {
						if i == 10 {
							t.Errorf("… and %d more", len(leaks)-i)
							break
						}
						t.Errorf("canary quoted: %s", l)
					}
				})
			}
		})
	}
}

// hasQuantity reports whether obj holds a quantity (so its protobuf body has
// a malformed one).
func hasQuantity(obj runtime.Object) bool {
	b, _ := stdjson.Marshal(obj)
	return bytes.Contains(b, []byte(canaryDigits))
}

func pointer(p canaryPath) string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		switch s := s.(type) {
		case string:
			b.WriteString(s)
		case int:
			b.WriteString(strconv.Itoa(s))
		}
	}
	return b.String()
}

// FuzzCanaryDecodeErrors places the canary at a random leaf of a random
// object (seed, which leaf, which mutation, which subject) and decodes it with
// every codec of the subject: no error may quote it. The seed corpus (f.Add
// below) runs with every go test.
func FuzzCanaryDecodeErrors(f *testing.F) {
	for i := range 8 {
		f.Add(int64(i), uint16(i*37), uint8(i), uint8(i))
	}
	subjects := canarySubjects()
	f.Fuzz(func(t *testing.T, seed int64, leaf uint16, mutation, subject uint8) {
		s := subjects[int(subject)%len(subjects)]
		obj := canaryObject(s, seed)
		tree := jsonTree(t, obj)
		var paths []canaryPath
		leaves(tree, nil, &paths)
		ms := canaryMutations()
		mutated := replaced(tree, paths[int(leaf)%len(paths)], ms[int(mutation)%len(ms)])
		for _, c := range s.codecs {
			var list, watch []byte
			switch c.media {
			case "json":
				list, watch = jsonBodies(t, s.gvk, mutated)
			case "cbor":
				list, watch = cborBodies(t, s.gvk, mutated)
			case "protobuf":
				list, watch = protobufBodies(t, s.gvk, obj)
			}
			leaks, _ := canaryRun(c, list, watch)
			for _, l := range leaks {
				t.Errorf("canary quoted: %s", l)
			}
		}
	})
}
