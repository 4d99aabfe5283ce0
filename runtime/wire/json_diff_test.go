package wire

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// randomBodies returns a LIST body and a WATCH body for a, made of random
// objects filled by apimachinery's fuzzer with seed, encoded as the API
// server does (encoding/json). List items carry apiVersion/kind on odd seeds
// (the server sets them on CRD items, not on built-in ones); watch objects
// always do.
func randomBodies(t testing.TB, a *apiType, seed int64) (list, watchBody []byte) {
	f := newFiller(seed)
	apiVersion, kind := a.gvk.ToAPIVersionAndKind()
	var items []json.RawMessage
	var events []string
	for i := range 3 {
		obj := a.newObj()
		f.Fill(obj)
		withKind := func(set bool) []byte {
			if set {
				obj.GetObjectKind().SetGroupVersionKind(a.gvk)
			} else {
				obj.GetObjectKind().SetGroupVersionKind(a.gvk.GroupVersion().WithKind(""))
				reflect.ValueOf(obj).Elem().FieldByName("TypeMeta").Set(reflect.ValueOf(metav1.TypeMeta{}))
			}
			b, err := json.Marshal(obj)
			if err != nil {
				t.Skipf("%s seed %d: cannot encode: %v", a.gvk, seed, err)
			}
			return b
		}
		items = append(items, withKind(seed%2 == 1))
		events = append(events, fmt.Sprintf(`{"type":%q,"object":%s}`, []string{"ADDED", "MODIFIED", "DELETED"}[i], withKind(true)))
	}
	events = append(events,
		fmt.Sprintf(`{"type":"BOOKMARK","object":{"apiVersion":%q,"kind":%q,"metadata":{"resourceVersion":"77"}}}`, apiVersion, kind),
		`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}}`)
	l := map[string]any{"apiVersion": apiVersion, "kind": kind + "List", "metadata": map[string]any{"resourceVersion": "12", "continue": "next", "remainingItemCount": 3}, "items": items}
	list, err := json.Marshal(l)
	mustOK(t, err)
	return list, []byte(strings.Join(events, "\n"))
}

// TestJSONMatchesClientGoOnRandomObjects: random objects of every k8s.io/api
// type and of listwatchtest's Widget decode to the same Go values (deep
// equal, nil and empty told apart) through our codec and through client-go's
// decoders, as LIST pages and as WATCH streams.
func TestJSONMatchesClientGoOnRandomObjects(t *testing.T) {
	types := apiTypes()
	if len(types) < 150 {
		t.Fatalf("only %d types found in client-go's scheme", len(types))
	}
	seeds := int64(2)
	if testing.Short() {
		seeds = 1
	}
	for _, a := range types {
		t.Run(a.gvk.String(), func(t *testing.T) {
			for seed := range seeds {
				list, watchBody := randomBodies(t, a, seed)
				for _, a := range a.variants() {
					if a.listElem != nil {
						if d, ourErr, refErr := compareList(a, list); d != "" || ourErr != nil || refErr != nil {
							t.Fatalf("%s seed %d LIST: %s (ours: %v, client-go: %v)", a.name(), seed, d, ourErr, refErr)
						}
					}
					if d, ourErr, refErr := compareWatch(a, watchBody); d != "" || ourErr != nil || refErr != nil {
						t.Fatalf("%s seed %d WATCH: %s (ours: %v, client-go: %v)", a.name(), seed, d, ourErr, refErr)
					}
					if d := compareSkip(a, watchBody); d != "" {
						t.Fatalf("%s seed %d: %s", a.name(), seed, d)
					}
				}
			}
		})
	}
}

// fuzzTypes are the types FuzzJSONMatchesClientGo picks from: all of them.
func fuzzType(which uint16) *apiType {
	types := apiTypes()
	return types[int(which)%len(types)]
}

// FuzzJSONMatchesClientGo decodes arbitrary bytes as a LIST body and as a
// WATCH body of one type both ways: the same objects, the same events up to
// the first error, an error from both or from neither (except where we are
// documented to be stricter), a *DecodeError from us, never a panic; and
// with SkipManagedFields, what the codec returns minus managedFields. The seed
// corpus in testdata/fuzz holds random objects of several types; it runs
// with every `go test`.
func FuzzJSONMatchesClientGo(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, which uint16) {
		for _, a := range fuzzType(which).variants() {
			if a.listElem != nil {
				if d, ourErr, refErr := compareList(a, body); d != "" {
					t.Fatalf("%s LIST: %s (ours: %v, client-go: %v)", a.name(), d, ourErr, refErr)
				}
			}
			if d, ourErr, refErr := compareWatch(a, body); d != "" {
				t.Fatalf("%s WATCH: %s (ours: %v, client-go: %v)", a.name(), d, ourErr, refErr)
			}
			if d := compareSkip(a, body); d != "" {
				t.Fatalf("%s %s", a.name(), d)
			}
		}
	})
}

var updateSeeds = flag.Bool("update-seeds", false, "rewrite testdata/fuzz/FuzzJSONMatchesClientGo from random objects")

// TestWriteFuzzSeeds rewrites the seed corpus with -update-seeds.
func TestWriteFuzzSeeds(t *testing.T) {
	if !*updateSeeds {
		t.Skip("run with -update-seeds to rewrite the seed corpus")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzJSONMatchesClientGo")
	mustOK(t, os.MkdirAll(dir, 0o755))
	for i, a := range apiTypes() {
		name := a.gvk.Kind
		switch {
		case a.gvk.Group == "" && (name == "Pod" || name == "ConfigMap" || name == "Secret" || name == "Service" || name == "Node"):
		case a.gvk.Group == "apps" && name == "Deployment", a.gvk.Group == "batch" && name == "CronJob",
			a.gvk.Group == "test.informer-gen.dev", a.gvk.Group == "gadgets.example.com", a.gvk.Group == "apps" && name == "ControllerRevision",
			a.gvk.Group == "admissionregistration.k8s.io" && a.gvk.Version == "v1" && name == "ValidatingWebhookConfiguration":
		default:
			continue
		}
		list, watchBody := randomBodies(t, a, 1)
		for kind, body := range map[string][]byte{"list": list, "watch": watchBody} {
			file := filepath.Join(dir, fmt.Sprintf("%s-%s-%s", strings.ToLower(a.gvk.GroupKind().String()), a.gvk.Version, kind))
			content := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nuint16(%d)\n", body, i)
			mustOK(t, os.WriteFile(file, []byte(content), 0o644))
		}
	}
}

var _ runtime.Object = (*metav1.Status)(nil)
