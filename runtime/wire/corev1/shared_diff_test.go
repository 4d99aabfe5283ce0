package corev1_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/diff"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/randfill"

	"github.com/informer-gen/informer-gen/internal/apiversion"
	"github.com/informer-gen/informer-gen/runtime/wire"
	wirecorev1 "github.com/informer-gen/informer-gen/runtime/wire/corev1"
)

// holder is the object a test codec decodes: one member, v, of the type
// under test, decoded by a shared decoder (as a generated kind's field is) or
// by the codec's own reflective decoder.
type holder[T any] struct {
	V T `json:"v"`
}

// holderDecoder is the generated decoder of holder[T], written as the
// planner writes one, with fn for v.
func holderDecoder[T any](fn func(*wire.JSONDecoder, *T) error) func(*wire.JSONDecoder, *holder[T]) error {
	return func(d *wire.JSONDecoder, h *holder[T]) error {
		if ok, err := d.BeginObject(); !ok {
			if err != nil {
				return err
			}
			return d.DecodeDefault(h)
		}
		var seen [1]bool
		for {
			name, more, err := d.NextName()
			if err != nil || !more {
				return err
			}
			switch string(name) {
			case "v":
				err = wire.DecodeField(d, &seen[0], &h.V, fn)
			default:
				err = d.SkipValue()
			}
			if err != nil {
				return err
			}
		}
	}
}

// sharedCase is one shared decoder under test: decode decodes a LIST body of
// holders with it (gen) and with the reflective decoder (ref); value decodes
// one JSON value of the type as client-go does (sigs.k8s.io/json), and
// random fills one with the fuzzer.
type sharedCase struct {
	name   string
	decode func(body []byte, gen bool) ([]any, error)
	value  func(data []byte) (any, error)
	random func(f *randfill.Filler) any
}

var gvk = schema.GroupVersionKind{Group: "test.informer-gen.dev", Version: "v1", Kind: "Holder"}

// caseOf builds the case of one shared decoder. Its "gen" codec is what a
// generated decoder calling fn gets: holderDecoder(fn) through
// wire.CheckedDecoder with X.Current, as a generated decode.go registers it.
// Built with a k8s.io/api the decoders were not generated from (see
// TestSharedDecodersCurrent), that is the reflective decoder, and the tests
// below check the fallback a user on that k8s.io/api gets.
func caseOf[T any](name string, fn func(*wire.JSONDecoder, *T) error) sharedCase {
	// A nil decoder (CheckedDecoder's verdict) leaves the codec reflective.
	gen := must(wire.NewJSON[*holder[T]](gvk, wire.GeneratedDecoder(wire.CheckedDecoder(nil, holderDecoder(fn), wirecorev1.X.Current))))
	ref := must(wire.NewJSON[*holder[T]](gvk))
	return sharedCase{
		name: name,
		decode: func(body []byte, useGen bool) ([]any, error) {
			c := ref
			if useGen {
				c = gen
			}
			var out []any
			_, err := c.DecodeList(bytes.NewReader(body), func(h *holder[T]) error {
				out = append(out, h.V)
				return nil
			})
			return out, err
		},
		value: func(data []byte) (any, error) {
			var v T
			err := kjson.UnmarshalCaseSensitivePreserveInts(data, &v)
			return v, err
		},
		random: func(f *randfill.Filler) any {
			var v T
			f.Fill(&v)
			return v
		},
	}
}

// sharedCases are the roots of runtime/wire/corev1 (generator/decode's
// CoreV1Roots), which reach every struct decoder there, and a few of its
// pointer and slice decoders.
var sharedCases = []sharedCase{
	caseOf("PodTemplateSpec", wirecorev1.X.PodTemplateSpec),
	caseOf("PodSpec", wirecorev1.X.PodSpec),
	caseOf("PodStatus", wirecorev1.X.PodStatus),
	caseOf("PersistentVolumeClaim", wirecorev1.X.PersistentVolumeClaim),
	caseOf("PersistentVolumeClaimSpec", wirecorev1.X.PersistentVolumeClaimSpec),
	caseOf("PersistentVolumeClaimTemplate", wirecorev1.X.PersistentVolumeClaimTemplate),
	caseOf("ServiceSpec", wirecorev1.X.ServiceSpec),
	caseOf("ServiceStatus", wirecorev1.X.ServiceStatus),
	caseOf("ServicePort", wirecorev1.X.ServicePort),
	caseOf("ObjectReference", wirecorev1.X.ObjectReference),
	caseOf("TypedLocalObjectReference", wirecorev1.X.TypedLocalObjectReference),
	caseOf("TypedObjectReference", wirecorev1.X.TypedObjectReference),
	caseOf("SecretReference", wirecorev1.X.SecretReference),
	caseOf("Taint", wirecorev1.X.Taint),
	caseOf("Toleration", wirecorev1.X.Toleration),
	caseOf("NodeSelector", wirecorev1.X.NodeSelector),
	caseOf("ResourceRequirements", wirecorev1.X.ResourceRequirements),
	caseOf("EnvVar", wirecorev1.X.EnvVar),
	caseOf("Container", wirecorev1.X.Container),
	caseOf("[]Container", wirecorev1.X.SliceContainer),
	caseOf("*Affinity", wirecorev1.X.PtrAffinity),
	caseOf("ResourceList", wirecorev1.X.ResourceList),
}

func newFiller(seed int64) *randfill.Filler {
	return fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), serializer.NewCodecFactory(clientgoscheme.Scheme)).NilChance(0.2).MaxDepth(10)
}

func listBody(values ...[]byte) []byte {
	var items []string
	for _, v := range values {
		items = append(items, `{"v":`+string(v)+`}`)
	}
	return []byte(`{"items":[` + strings.Join(items, ",") + `]}`)
}

// compare decodes body both ways: the same values (deep equal, nil and empty
// told apart), or an error from both.
func compare(c sharedCase, body []byte) string {
	gen, genErr := c.decode(body, true)
	ref, refErr := c.decode(body, false)
	switch {
	case genErr != nil && refErr != nil:
		return ""
	case genErr != nil:
		return "shared decoder failed, reflective did not: " + genErr.Error()
	case refErr != nil:
		return "reflective decoder failed, shared did not: " + refErr.Error()
	case len(gen) != len(ref):
		return fmt.Sprintf("%d values vs %d", len(gen), len(ref))
	}
	for i := range gen {
		if !reflect.DeepEqual(gen[i], ref[i]) {
			return fmt.Sprintf("value %d differs: %s", i, diff.Diff(gen[i], ref[i]))
		}
	}
	return ""
}

// TestSharedDecodersCurrent: built with the k8s.io/api the root go.mod
// requires, the one hack/update-codegen.sh generates against, the shared
// decoders are current. Built with another (hack/test.sh's leg on the next
// minor), they may not be: then Current reports false, so that generated
// code leaves the kinds that call them to the reflective decoder, which the
// differential tests below then check; and the planner, generating against
// that k8s.io/api, writes its own core/v1 decoders instead of calling these.
func TestSharedDecodersCurrent(t *testing.T) {
	if apiversion.Generated("k8s.io/api") {
		if !wirecorev1.X.Current() {
			t.Fatal("runtime/wire/corev1's members differ from the compiled k8s.io/api: run hack/update-codegen.sh")
		}
		return
	}
	t.Logf("k8s.io/api %s, decoders generated from %s: Current() = %v", apiversion.Compiled("k8s.io/api"), apiversion.Required("k8s.io/api"), wirecorev1.X.Current())
	if !wirecorev1.X.Current() && wire.CheckedDecoder(nil, holderDecoder(wirecorev1.X.PodSpec), wirecorev1.X.Current) != nil {
		t.Fatal("Current reports false, but CheckedDecoder kept the generated decoder")
	}
}

// TestSharedMatchesClientGoOnRandomObjects: random values of each shared
// decoder's type, encoded as the API server does (encoding/json), decode to
// what the codec's reflective decoder and client-go's sigs.k8s.io/json
// decode.
func TestSharedMatchesClientGoOnRandomObjects(t *testing.T) {
	seeds := int64(20)
	if testing.Short() {
		seeds = 4
	}
	for _, c := range sharedCases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range seeds {
				f := newFiller(seed)
				var values [][]byte
				for range 3 {
					b, err := json.Marshal(c.random(f))
					if err != nil {
						t.Skipf("seed %d: cannot encode: %v", seed, err)
					}
					values = append(values, b)
				}
				body := listBody(values...)
				if d := compare(c, body); d != "" {
					t.Fatalf("seed %d: %s\nbody: %.2000s", seed, d, body)
				}
				got, err := c.decode(body, true)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				for i, v := range values {
					want, err := c.value(v)
					if err != nil {
						t.Fatalf("seed %d: client-go cannot decode %s: %v", seed, v, err)
					}
					if !reflect.DeepEqual(got[i], want) {
						t.Fatalf("seed %d: value %d differs from client-go's: %s", seed, i, diff.Diff(got[i], want))
					}
				}
			}
		})
	}
}

// TestSharedMatchesReflectiveOnMutatedObjects: random values with unknown
// members, nulls, values of another JSON kind, duplicate members, and bodies
// cut short or with a byte changed decode the same way (or fail) both ways.
func TestSharedMatchesReflectiveOnMutatedObjects(t *testing.T) {
	seeds := int64(30)
	if testing.Short() {
		seeds = 6
	}
	for _, c := range sharedCases {
		t.Run(c.name, func(t *testing.T) {
			decoded := 0
			defer func() {
				// Without other JSON kinds the mutations are valid input:
				// most bodies must decode, or the test compares errors only.
				if !t.Failed() && !t.Skipped() && decoded < int(seeds)/4 {
					t.Errorf("only %d of %d mutated bodies decoded", decoded, seeds)
				}
			}()
			for seed := range seeds {
				b, err := json.Marshal(c.random(newFiller(seed)))
				if err != nil {
					t.Skipf("seed %d: cannot encode: %v", seed, err)
				}
				var tree any
				dec := json.NewDecoder(bytes.NewReader(b))
				dec.UseNumber()
				if err := dec.Decode(&tree); err != nil {
					t.Fatal(err)
				}
				rng := rand.New(rand.NewSource(seed))
				var w bytes.Buffer
				writeMutated(&w, tree, rng, seed%2 == 1)
				body := listBody(w.Bytes())
				if d := compare(c, body); d != "" {
					t.Fatalf("seed %d mutated: %s\nbody: %.2000s", seed, d, body)
				}
				if _, err := c.decode(body, true); err == nil {
					decoded++
				}
				for range 4 {
					cut := body[:rng.Intn(len(body))]
					if d := compare(c, cut); d != "" {
						t.Fatalf("seed %d cut at %d: %s", seed, len(cut), d)
					}
					flipped := slices.Clone(body)
					const junk = `{}[]:,"\ n0x`
					flipped[rng.Intn(len(flipped))] = junk[rng.Intn(len(junk))]
					if d := compare(c, flipped); d != "" {
						t.Fatalf("seed %d byte changed: %s\nbody: %.2000s", seed, d, flipped)
					}
				}
			}
		})
	}
}

// TestSharedHostileValues: hand-written values that take each hand-over to
// the reflective decoder.
func TestSharedHostileValues(t *testing.T) {
	values := []string{
		`null`, `{}`, `[]`, `"x"`, `1`, `{"unknown":{"deep":[1,{"x":null}]}}`,
		`{"containers":null,"initContainers":[null],"volumes":[{"name":"v","name":"w"}]}`,
		`{"containers":[{"name":"a","ports":[{"containerPort":"80"}]}]}`,
		`{"containers":[{"resources":{"limits":{"cpu":5}}}]}`,
		`{"containers":[{"resources":{"limits":{"cpu":"bogus"}}}]}`,
		`{"containers":[{"livenessProbe":{"httpGet":{"port":"http"}}},{"livenessProbe":{"httpGet":{"port":80}}}]}`,
		`{"nodeSelector":{"a":"b"},"nodeSelector":{"c":"d"}}`,
		`{"tolerations":[{"tolerationSeconds":1.5}]}`,
		`{"priority":2147483648}`,
		`{"metadata":{"name":"a","labels":{"x":null}},"spec":{"containers":[]}}`,
		`{"spec":{"containers":[{"name":"caf\u00e9 \ud800"}]}}`,
		"{\"spec\":{\"containers\":[{\"na\xffme\":\"x\"}]}}",
		`{"Containers":[{"Name":"wrong case"}]}`,
		`{"name":"n","namespace":"ns","uid":"u","fieldPath":"f","fieldPath":null}`,
		`{"effect":"NoSchedule","timeAdded":"2020-01-02T03:04:05Z"}`,
		`{"timeAdded":"not a time"}`,
		`{"requests":{"storage":"1Gi"},"requests":{"cpu":"1"}}`,
		`{"ports":[{"port":80,"targetPort":"http"},{"targetPort":8080}]}`,
	}
	for _, c := range sharedCases {
		for _, v := range values {
			if d := compare(c, listBody([]byte(v))); d != "" {
				t.Errorf("%s %s: %s", c.name, v, d)
			}
		}
	}
}

// writeMutated writes the JSON tree v (from encoding/json with UseNumber)
// with random changes: an unknown member added to an object, a value
// replaced by null or (otherKinds) by a value of another JSON kind, a member
// written twice.
func writeMutated(w *bytes.Buffer, v any, rng *rand.Rand, otherKinds bool) {
	switch r := rng.Intn(40); {
	case r == 0:
		w.WriteString("null")
		return
	case r == 1 && otherKinds:
		w.WriteString([]string{`"x"`, `1.5`, `[]`, `{}`, `true`, `-1`, `"2020-01-02T03:04:05Z"`}[rng.Intn(7)])
		return
	}
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		w.WriteByte('{')
		first := true
		member := func(k string, val any) {
			if !first {
				w.WriteByte(',')
			}
			first = false
			w.WriteString(strconv.Quote(k))
			w.WriteByte(':')
			writeMutated(w, val, rng, otherKinds)
		}
		if rng.Intn(4) == 0 {
			member("unknownMember", map[string]any{"a": []any{json.Number("1"), nil, "s"}})
		}
		for _, k := range keys {
			member(k, v[k])
			if rng.Intn(15) == 0 {
				member(k, v[k]) // a duplicate: merged by the reflective decoder
			}
		}
		w.WriteByte('}')
	case []any:
		w.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				w.WriteByte(',')
			}
			writeMutated(w, e, rng, otherKinds)
		}
		w.WriteByte(']')
	default:
		b, _ := json.Marshal(v)
		w.Write(b)
	}
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}
