package generatedtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"k8s.io/apimachinery/pkg/api/apitesting/fuzzer"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metafuzzer "k8s.io/apimachinery/pkg/apis/meta/fuzzer"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/diff"
	"sigs.k8s.io/randfill"

	"github.com/informer-gen/informer-gen/runtime/factory"
	"github.com/informer-gen/informer-gen/runtime/store"
	"github.com/informer-gen/informer-gen/runtime/wire"
	shapesv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-shapes/input/apis/shapes/v1"
	shapesinformers "github.com/informer-gen/informer-gen/testdata/golden/projection-shapes/want/informers/shapes/v1"
	shapesproj "github.com/informer-gen/informer-gen/testdata/golden/projection-shapes/want/projections/shapes/v1"
)

// The projections of the golden "projection-shapes" case (the layouts of
// gateway-api, cluster-api and core/v1), copied by hand from the full
// objects.

func routeSummaryOf(r *shapesv1.Route) *shapesproj.RouteSummary {
	p := &shapesproj.RouteSummary{TypeMeta: r.TypeMeta, ObjectMeta: r.ObjectMeta, Status: r.Status}
	p.Spec.ParentRefs = r.Spec.ParentRefs // through the inlined CommonRouteSpec
	p.Spec.Hostnames = r.Spec.Hostnames
	if r.Spec.RouteTimeouts != nil { // through the inlined *RouteTimeouts: nil gives nil
		p.Spec.Timeout = r.Spec.Timeout
	}
	return p
}

func workloadImagesOf(w *shapesv1.Workload) *shapesproj.WorkloadImages {
	p := &shapesproj.WorkloadImages{TypeMeta: w.TypeMeta, ObjectMeta: w.ObjectMeta}
	if w.Spec.Containers != nil {
		p.Spec.Containers = []shapesproj.WorkloadImagesSpecContainers{}
		for _, c := range w.Spec.Containers {
			p.Spec.Containers = append(p.Spec.Containers, shapesproj.WorkloadImagesSpecContainers{Image: c.Image, Resources: c.Resources})
		}
	}
	if w.Spec.InitContainers != nil {
		p.Spec.InitContainers = []shapesproj.WorkloadImagesSpecInitContainers{}
		for _, c := range w.Spec.InitContainers {
			p.Spec.InitContainers = append(p.Spec.InitContainers, shapesproj.WorkloadImagesSpecInitContainers{Image: c.Image})
		}
	}
	return p
}

func workloadRefsOf(w *shapesv1.Workload) *shapesproj.WorkloadRefs {
	p := &shapesproj.WorkloadRefs{TypeMeta: w.TypeMeta, ObjectMeta: w.ObjectMeta}
	if w.Spec.Template != nil {
		p.Spec.Template = &shapesproj.WorkloadRefsSpecTemplate{Image: w.Spec.Template.Image}
	}
	p.Spec.Port = w.Spec.Port
	p.Spec.Options.Mode = w.Spec.Options.Mode
	p.Status.NodeRef, p.Status.StartedAt, p.Status.Capacity, p.Status.Config =
		w.Status.NodeRef, w.Status.StartedAt, w.Status.Capacity, w.Status.Config
	return p
}

func workloadMetaOf(w *shapesv1.Workload) *shapesproj.WorkloadMeta {
	return &shapesproj.WorkloadMeta{TypeMeta: w.TypeMeta, ObjectMeta: w.ObjectMeta}
}

// shapesFuzzFuncs fill the leaves whose random bytes would not be valid:
// a Quantity in canonical form, a RawExtension holding a JSON object.
func shapesFuzzFuncs(codecs serializer.CodecFactory) []any {
	return append(metafuzzer.Funcs(codecs),
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(c.Int63n(1000), resource.DecimalSI)
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = fmt.Appendf(nil, `{"k":%d}`, c.Intn(100))
		})
}

// checkShapesProjection is checkProjection for the projection-shapes case:
// random K objects, JSON-encoded, decoded into K and copied by hand (want),
// and decoded straight into P with and without P's generated decoder.
func checkShapesProjection[K store.Object[K], P store.Object[P]](t *testing.T, kind string, newK func() K, typ factory.Type[P], of func(K) P) {
	t.Helper()
	if typ.DecodeJSON == nil {
		t.Fatalf("%s: the generated decoder is nil", typ.Projection)
	}
	gvk := shapesv1.SchemeGroupVersion.WithKind(kind)
	full := must(wire.NewJSON[K](gvk))
	codecs := map[string]wire.Codec[P]{
		"generated decoder":  must(wire.NewJSON[P](gvk, wire.GeneratedDecoder(typ.DecodeJSON))),
		"reflective decoder": must(wire.NewJSON[P](gvk)),
	}
	scheme := runtime.NewScheme()
	if err := shapesv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	decode := func(t *testing.T, body []byte, add func(*bytes.Reader) error) {
		t.Helper()
		list := `{"apiVersion":"shapes.example.com/v1","kind":"` + kind + `List","metadata":{"resourceVersion":"1"},"items":[` + string(body) + `]}`
		if err := add(bytes.NewReader([]byte(list))); err != nil {
			t.Fatalf("decoding: %v", err)
		}
	}
	for seed := range int64(300) {
		obj := newK()
		fuzzer.FuzzerFor(shapesFuzzFuncs, rand.NewSource(seed), serializer.NewCodecFactory(scheme)).
			NilChance(0.2).MaxDepth(6).Fill(obj)
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		body, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		var fulls []K
		decode(t, body, func(r *bytes.Reader) error {
			_, err := full.DecodeList(r, func(o K) error { fulls = append(fulls, o); return nil })
			return err
		})
		want := of(fulls[0])
		for name, codec := range codecs {
			var got []P
			decode(t, body, func(r *bytes.Reader) error {
				_, err := codec.DecodeList(r, func(o P) error { got = append(got, o); return nil })
				return err
			})
			if len(got) != 1 || !apiequality.Semantic.DeepEqual(got[0], want) {
				t.Fatalf("seed %d, %s: the projection differs from the object's fields copied by hand:\n%s", seed, name, diff.Diff(want, got))
			}
			checkDeepCopy(t, got[0])
		}
	}
}

func TestProjectionShapesDecodeTheProjectedFields(t *testing.T) {
	newRoute := func() *shapesv1.Route { return new(shapesv1.Route) }
	newWorkload := func() *shapesv1.Workload { return new(shapesv1.Workload) }
	t.Run("RouteSummary", func(t *testing.T) {
		checkShapesProjection(t, "Route", newRoute, shapesinformers.RouteSummaryType, routeSummaryOf)
	})
	t.Run("WorkloadImages", func(t *testing.T) {
		checkShapesProjection(t, "Workload", newWorkload, shapesinformers.WorkloadImagesType, workloadImagesOf)
	})
	t.Run("WorkloadRefs", func(t *testing.T) {
		checkShapesProjection(t, "Workload", newWorkload, shapesinformers.WorkloadRefsType, workloadRefsOf)
	})
	t.Run("WorkloadMeta", func(t *testing.T) {
		checkShapesProjection(t, "Workload", newWorkload, shapesinformers.WorkloadMetaType, workloadMetaOf)
	})
}

// A nil embedded *RouteTimeouts and a nil *Template give nil in the
// projection; slices keep their count and order.
func TestProjectionShapesNilParentsAndOrder(t *testing.T) {
	body := []byte(`{"apiVersion":"shapes.example.com/v1","kind":"Workload","metadata":{"name":"w"},` +
		`"spec":{"containers":[{"name":"a","image":"i1"},{"name":"b"},{"name":"c","image":"i3"}],"port":"http","Options":{"mode":"m"}}}`)
	gvk := shapesv1.SchemeGroupVersion.WithKind("Workload")
	codec := must(wire.NewJSON[*shapesproj.WorkloadImages](gvk, wire.GeneratedDecoder(shapesinformers.WorkloadImagesType.DecodeJSON)))
	var got []*shapesproj.WorkloadImages
	list := `{"apiVersion":"shapes.example.com/v1","kind":"WorkloadList","metadata":{},"items":[` + string(body) + `]}`
	if _, err := codec.DecodeList(bytes.NewReader([]byte(list)), func(o *shapesproj.WorkloadImages) error { got = append(got, o); return nil }); err != nil {
		t.Fatal(err)
	}
	var images []string
	for _, c := range got[0].Spec.Containers {
		images = append(images, c.Image)
	}
	if fmt.Sprint(images) != "[i1  i3]" || got[0].Spec.InitContainers != nil {
		t.Errorf("containers' images = %q, initContainers %v; want [i1 \"\" i3] and nil", images, got[0].Spec.InitContainers)
	}
	refs := must(wire.NewJSON[*shapesproj.WorkloadRefs](gvk, wire.GeneratedDecoder(shapesinformers.WorkloadRefsType.DecodeJSON)))
	var r []*shapesproj.WorkloadRefs
	if _, err := refs.DecodeList(bytes.NewReader([]byte(list)), func(o *shapesproj.WorkloadRefs) error { r = append(r, o); return nil }); err != nil {
		t.Fatal(err)
	}
	if r[0].Spec.Template != nil || r[0].Spec.Port.StrVal != "http" || r[0].Spec.Options.Mode != "m" {
		t.Errorf("WorkloadRefs.Spec = %+v, want no template, port \"http\", mode \"m\" (the member \"Options\", not inlined)", r[0].Spec)
	}
}
