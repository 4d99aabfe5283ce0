package generatedtest

import (
	"bytes"
	"encoding/json"
	"maps"
	"math/rand"
	"reflect"
	"slices"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/informer-gen/informer-gen/runtime/informer"
	"github.com/informer-gen/informer-gen/runtime/runtimetest"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
	appsv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/input/apis/apps/v1"
	informersv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/want/informers/apps/v1"
	listersv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/want/listers/apps/v1"
	projv1 "github.com/informer-gen/informer-gen/testdata/golden/projections/want/projections/apps/v1"
)

// The projections of the golden "projections" case, copied by hand from
// the full objects: what each projection must hold, field by field.

func widgetSummaryOf(w *appsv1.Widget) *projv1.WidgetSummary {
	p := &projv1.WidgetSummary{TypeMeta: w.TypeMeta, ObjectMeta: w.ObjectMeta}
	p.Spec.Replicas = w.Spec.Replicas
	if w.Spec.Template != nil {
		p.Spec.Template = &projv1.WidgetSummarySpecTemplate{Image: w.Spec.Template.Image}
	}
	p.Status.AvailableReplicas = w.Status.AvailableReplicas
	p.Status.Conditions = w.Status.Conditions
	return p
}

func widgetStatusViewOf(w *appsv1.Widget) *projv1.WidgetStatusView {
	p := &projv1.WidgetStatusView{TypeMeta: w.TypeMeta, ObjectMeta: w.ObjectMeta, Status: w.Status}
	p.Spec.Selector = w.Spec.Selector
	if w.Spec.Template != nil {
		p.Spec.Template = &projv1.WidgetStatusViewSpecTemplate{Labels: w.Spec.Template.Labels}
	}
	if w.Spec.Containers != nil {
		p.Spec.Containers = []projv1.WidgetStatusViewSpecContainer{}
		for _, c := range w.Spec.Containers {
			p.Spec.Containers = append(p.Spec.Containers, projv1.WidgetStatusViewSpecContainer{Image: c.Image})
		}
	}
	p.Spec.Paused = w.Spec.Paused
	return p
}

func zoneCapacityOf(z *appsv1.Zone) *projv1.ZoneCapacity {
	p := &projv1.ZoneCapacity{TypeMeta: z.TypeMeta, ObjectMeta: z.ObjectMeta}
	p.Spec.Capacity, p.Spec.Tags, p.Spec.Weight, p.Spec.Limits = z.Spec.Capacity, z.Spec.Tags, z.Spec.Weight, z.Spec.Limits
	return p
}

// decodeOne decodes body, one object, as the only item of a LIST with the
// codec.
func decodeOne[T any](t *testing.T, codec wire.Codec[T], body []byte, listKind string) T {
	t.Helper()
	list := []byte(`{"apiVersion":"apps.example.com/v1","kind":"` + listKind + `","metadata":{"resourceVersion":"1"},"items":[` + string(body) + `]}`)
	var got []T
	if _, err := codec.DecodeList(bytes.NewReader(list), func(o T) error { got = append(got, o); return nil }); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	if len(got) != 1 {
		t.Fatalf("decoded %d items, want 1", len(got))
	}
	return got[0]
}

// checkProjection is the differential test of one projection P of kind K:
// random K objects are JSON-encoded, decoded into K (the codec's reflective
// decoder) and copied by hand into P (want), and decoded straight into P
// with the codec, once with P's generated decoder and once without: both
// must equal want. Each decoded P's DeepCopy must equal it and share no
// memory with it.
func checkProjection[K store.Object[K], P store.Object[P]](t *testing.T, kind string, newK func() K, decodeJSON func(*wire.JSONDecoder, P) error, of func(K) P,
	kindIndexers store.Indexers[K], indexers store.Indexers[P], wantIndexes ...string) {
	t.Helper()
	if decodeJSON == nil {
		t.Fatalf("%s: the generated decoder is nil (its JSON members differ from the compiled type)", kind)
	}
	gvk := appsv1.SchemeGroupVersion.WithKind(kind)
	full := must(wire.NewJSON[K](gvk))
	codecs := map[string]wire.Codec[P]{
		"generated decoder":  must(wire.NewJSON[P](gvk, wire.GeneratedDecoder(decodeJSON))),
		"reflective decoder": must(wire.NewJSON[P](gvk)),
	}
	if got := slices.Sorted(maps.Keys(indexers)); !slices.Equal(got, wantIndexes) {
		t.Errorf("%s's inherited indexes are %v, want %v", kind, got, wantIndexes)
	}
	scheme := runtime.NewScheme()
	if err := appsv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	for seed := range int64(300) {
		obj := newK()
		fuzzer.FuzzerFor(metafuzzer.Funcs, rand.NewSource(seed), serializer.NewCodecFactory(scheme)).
			NilChance(0.2).MaxDepth(6).Fill(obj)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		body, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		fullObj := decodeOne(t, full, body, kind+"List")
		want := of(fullObj)
		for name, codec := range codecs {
			got := decodeOne(t, codec, body, kind+"List")
			if !apiequality.Semantic.DeepEqual(got, want) {
				t.Fatalf("seed %d, %s: the projection differs from the object's fields copied by hand:\n%s", seed, name, diff.Diff(want, got))
			}
			checkDeepCopy(t, got)
			// An inherited index gives the projection the values the
			// kind's index gives the full object.
			for ix, fn := range indexers {
				pv, perr := fn(got)
				kv, kerr := kindIndexers[ix](fullObj)
				if perr != nil || kerr != nil || !slices.Equal(pv, kv) {
					t.Fatalf("seed %d: index %s gives the projection %q (%v), the %s %q (%v)", seed, ix, pv, perr, kind, kv, kerr)
				}
			}
		}
	}
}

// checkDeepCopy checks that obj.DeepCopy() equals obj and that changing
// every value reachable from the copy leaves obj as it was.
func checkDeepCopy[P store.Object[P]](t *testing.T, obj P) {
	t.Helper()
	before, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	c := obj.DeepCopy()
	if !apiequality.Semantic.DeepEqual(c, obj) {
		t.Fatalf("DeepCopy differs from the original:\n%s", diff.Diff(obj, c))
	}
	if o, ok := obj.DeepCopyObject().(P); !ok || !apiequality.Semantic.DeepEqual(o, obj) {
		t.Fatalf("DeepCopyObject = %#v, want a copy of the original", obj.DeepCopyObject())
	}
	mutate(reflect.ValueOf(c))
	after, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Fatalf("mutating the DeepCopy changed the original:\nbefore %s\nafter  %s", before, after)
	}
}

// mutate changes every settable string, number and bool reachable from v,
// through pointers, structs, slices and maps (map values are replaced).
func mutate(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			mutate(v.Index(i))
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
		if v.Type().Key().Kind() == reflect.String && !v.IsNil() {
			v.SetMapIndex(reflect.ValueOf("mutated").Convert(v.Type().Key()), reflect.Zero(v.Type().Elem()))
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(v.String() + "-mutated")
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if v.CanSet() {
			v.SetInt(v.Int() + 1)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if v.CanSet() {
			v.SetUint(v.Uint() + 1)
		}
	case reflect.Bool:
		if v.CanSet() {
			v.SetBool(!v.Bool())
		}
	}
}

func TestProjectionsDecodeExactlyTheirFields(t *testing.T) {
	t.Run("WidgetSummary", func(t *testing.T) {
		checkProjection[*appsv1.Widget, *projv1.WidgetSummary](t, "Widget", func() *appsv1.Widget { return new(appsv1.Widget) },
			informersv1.WidgetSummaryType.DecodeJSON, widgetSummaryOf,
			listersv1.WidgetIndexers(), listersv1.WidgetSummaryIndexers(), "GenerateName", "Image")
	})
	t.Run("WidgetStatusView", func(t *testing.T) {
		checkProjection[*appsv1.Widget, *projv1.WidgetStatusView](t, "Widget", func() *appsv1.Widget { return new(appsv1.Widget) },
			informersv1.WidgetStatusViewType.DecodeJSON, widgetStatusViewOf,
			listersv1.WidgetIndexers(), listersv1.WidgetStatusViewIndexers(), "GenerateName", "Phase")
	})
	t.Run("ZoneCapacity", func(t *testing.T) {
		checkProjection[*appsv1.Zone, *projv1.ZoneCapacity](t, "Zone", func() *appsv1.Zone { return new(appsv1.Zone) },
			informersv1.ZoneCapacityType.DecodeJSON, zoneCapacityOf,
			listersv1.ZoneIndexers(), listersv1.ZoneCapacityIndexers())
	})
}

// TestProjectionInformerAndLister runs a projection's generated informer
// over the fake source and reads it through its namespaced lister, and
// checks its Type describes the kind's resource as a projection.
func TestProjectionInformerAndLister(t *testing.T) {
	typ := informersv1.WidgetSummaryType
	if typ.Projection != "WidgetSummary" || typ.Kind != "Widget" || typ.Resource != appsv1.SchemeGroupVersion.WithResource("widgets") || !typ.Namespaced {
		t.Errorf("WidgetSummaryType = %+v", typ)
	}
	if _, ok := informersv1.Resources[typ.Resource]; !ok {
		t.Errorf("Resources has no entry for %v: it must keep meaning the kind", typ.Resource)
	}
	if z := informersv1.ZoneCapacityType; z.Namespaced || z.Kind != "Zone" {
		t.Errorf("ZoneCapacityType = %+v, want cluster-scoped projection of Zone", z)
	}
	synctest.Test(t, func(t *testing.T) {
		two := int32(2)
		summary := func(ns, name string, replicas *int32) *projv1.WidgetSummary {
			return &projv1.WidgetSummary{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: projv1.WidgetSummarySpec{Replicas: replicas}}
		}
		a := summary("ns1", "a", &two)
		a.Spec.Template = &projv1.WidgetSummarySpecTemplate{Image: "img"}
		src := runtimetest.NewSource(runtimetest.SourceOptions{Resource: listersv1.WidgetResource},
			a, summary("ns2", "b", nil))
		inf := informersv1.NewWidgetSummaryInformer(src, informer.Options[*projv1.WidgetSummary]{})
		runSynced(t, inf)
		lister := listersv1.NewWidgetSummaryLister(inf.Indexer())
		got, err := lister.WidgetSummaries("ns1").Get("a")
		if err != nil || got.Spec.Replicas == nil || *got.Spec.Replicas != 2 {
			t.Fatalf("WidgetSummaries(ns1).Get(a) = %+v, %v", got, err)
		}
		if _, err := lister.WidgetSummaries("ns1").Get("b"); err == nil {
			t.Error("WidgetSummaries(ns1).Get(b) found b of ns2")
		}
		if all, err := lister.List(labels.Everything()); err != nil || len(all) != 2 {
			t.Errorf("List = %d objects, %v; want 2", len(all), err)
		}
		if got, err := lister.ByImage("img"); err != nil || len(got) != 1 || got[0].Name != "a" {
			t.Errorf("ByImage(img) = %v, %v; want a (the index WidgetSummary inherits from Widget)", got, err)
		}
		if got, err := lister.WidgetSummaries("ns2").ByImage("img"); err != nil || len(got) != 0 {
			t.Errorf("WidgetSummaries(ns2).ByImage(img) = %v, %v; want none", got, err)
		}
	})
}
