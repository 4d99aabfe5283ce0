package generatedtest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/informer-gen/informer-gen/runtime/wire"
	meshv1 "github.com/informer-gen/informer-gen/testdata/golden/projection-locks/input/apis/mesh/v1"
	meshinformers "github.com/informer-gen/informer-gen/testdata/golden/projection-locks/want/informers/mesh/v1"
	meshproj "github.com/informer-gen/informer-gen/testdata/golden/projection-locks/want/projections/mesh/v1"
)

// A projection of a spec that holds a lock (a protobuf message, as in
// Istio's API) decodes it, and its DeepCopy copies it through the spec's
// own DeepCopyInto: the copy shares no slice with the original.
func TestProjectionOfALockHoldingSpec(t *testing.T) {
	gvk := meshv1.SchemeGroupVersion.WithKind("Route")
	list := `{"apiVersion":"mesh.example.com/v1","kind":"RouteList","metadata":{},"items":[` +
		`{"apiVersion":"mesh.example.com/v1","kind":"Route","metadata":{"name":"r","namespace":"ns"},` +
		`"spec":{"hosts":["a.example.com","b.example.com"],"gateways":["gw"]},"status":{"observedGeneration":3}}]}`
	for name, codec := range map[string]wire.Codec[*meshproj.RouteSpecView]{
		"generated decoder":  must(wire.NewJSON[*meshproj.RouteSpecView](gvk, wire.GeneratedDecoder(meshinformers.RouteSpecViewType.DecodeJSON))),
		"reflective decoder": must(wire.NewJSON[*meshproj.RouteSpecView](gvk)),
	} {
		var got []*meshproj.RouteSpecView
		if _, err := codec.DecodeList(bytes.NewReader([]byte(list)), func(o *meshproj.RouteSpecView) error { got = append(got, o); return nil }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := got[0]
		if p.Name != "r" || !slices.Equal(p.Spec.Hosts, []string{"a.example.com", "b.example.com"}) || !slices.Equal(p.Spec.Gateways, []string{"gw"}) || p.Status.ObservedGeneration != 3 {
			t.Fatalf("%s: decoded %+v", name, p)
		}
		c := p.DeepCopy()
		c.Spec.Hosts[0], c.Name, c.Status.ObservedGeneration = "changed", "changed", 9
		if p.Spec.Hosts[0] != "a.example.com" || p.Name != "r" || p.Status.ObservedGeneration != 3 {
			t.Fatalf("%s: changing the DeepCopy changed the original: %+v", name, p)
		}
		if !slices.Equal(c.Spec.Gateways, p.Spec.Gateways) {
			t.Fatalf("%s: DeepCopy lost the gateways: %v", name, c.Spec.Gateways)
		}
	}
}
