package wire_test

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
	"github.com/informer-gen/informer-gen/internal/apiversion"
	"github.com/informer-gen/informer-gen/runtime/wire"
	gadgetsv1 "github.com/informer-gen/informer-gen/testdata/golden/json-decoders/input/apis/gadgets/v1"
	gadgetsv1gen "github.com/informer-gen/informer-gen/testdata/golden/json-decoders/want/informers/gadgets/v1"
	podsv1 "github.com/informer-gen/informer-gen/testdata/golden/shared-decoders/input/apis/pods/v1"
	podsv1gen "github.com/informer-gen/informer-gen/testdata/golden/shared-decoders/want/informers/pods/v1"
)

// The generated decoders of every core/v1 kind (bench/generated, informer-gen
// --json-decoders all on k8s.io/api/core/v1) join the differential tests:
// random objects, the fuzz target and its seeds, the hostile inputs of
// json_generated_cases_test.go.
func init() {
	// A custom resource with fields of every kind the decoder planner tells
	// apart (method types, recursion, nested slices and maps, structs left to
	// the default decoder): the golden case json-decoders.
	gadgets := runtime.NewScheme()
	if err := gadgetsv1.AddToScheme(gadgets); err != nil {
		panic(err)
	}
	wire.RegisterTestType(gadgets, gadgetsv1.SchemeGroupVersion.WithKind("Gadget"), reflect.TypeFor[gadgetsv1.Gadget]())
	wire.RegisterGeneratedDecoder(reflect.TypeFor[gadgetsv1.Gadget](), wire.GeneratedDecoder(gadgetsv1gen.GadgetType.DecodeJSON))

	// A custom resource embedding core/v1's PodTemplateSpec and
	// PersistentVolumeClaims, whose generated decoder calls
	// runtime/wire/corev1's shared decoders: the golden case shared-decoders.
	runners := runtime.NewScheme()
	if err := podsv1.AddToScheme(runners); err != nil {
		panic(err)
	}
	wire.RegisterTestType(runners, podsv1.SchemeGroupVersion.WithKind("Runner"), reflect.TypeFor[podsv1.Runner]())
	if gadgetsv1gen.GadgetType.DecodeJSON == nil {
		// CheckedDecoder found apimachinery's types changed: the tests
		// below would test the reflective decoder twice.
		panic("generated decoders are stale: run hack/update-codegen.sh")
	}

	// The decoders below were generated against the k8s.io/api the root
	// go.mod requires. Built with another (hack/test.sh's leg on the next
	// minor) a kind whose types gained members has no generated decoder
	// (CheckedDecoder returned nil, so the reflective decoder decodes it, as
	// it does in a user's program built so, and the differential tests run
	// that one); built with that one, a missing decoder means the checked-in
	// trees are stale.
	registerGenerated(podsv1gen.RunnerType.DecodeJSON)
	registerGenerated(corev1gen.ComponentStatusType.DecodeJSON)
	registerGenerated(corev1gen.ConfigMapType.DecodeJSON)
	registerGenerated(corev1gen.EndpointsType.DecodeJSON)
	registerGenerated(corev1gen.EventType.DecodeJSON)
	registerGenerated(corev1gen.LimitRangeType.DecodeJSON)
	registerGenerated(corev1gen.NamespaceType.DecodeJSON)
	registerGenerated(corev1gen.NodeType.DecodeJSON)
	registerGenerated(corev1gen.PersistentVolumeType.DecodeJSON)
	registerGenerated(corev1gen.PersistentVolumeClaimType.DecodeJSON)
	registerGenerated(corev1gen.PodType.DecodeJSON)
	registerGenerated(corev1gen.PodTemplateType.DecodeJSON)
	registerGenerated(corev1gen.ReplicationControllerType.DecodeJSON)
	registerGenerated(corev1gen.ResourceQuotaType.DecodeJSON)
	registerGenerated(corev1gen.SecretType.DecodeJSON)
	registerGenerated(corev1gen.ServiceType.DecodeJSON)
	registerGenerated(corev1gen.ServiceAccountType.DecodeJSON)
}

// An error of a type's own UnmarshalJSON reads the same through a generated
// decoder (wire.DecodeMethod, which decodes the value again alone for the
// error) as through the reflective one: with the JSON pointer of the value
// in the body, not in the value alone.
func TestGeneratedDecoderMethodErrorsNameTheirPlace(t *testing.T) {
	gvk := gadgetsv1.SchemeGroupVersion.WithKind("Gadget")
	body := `{"apiVersion":"gadgets.example.com/v1","kind":"GadgetList","metadata":{"resourceVersion":"3"},"items":[` +
		`{"metadata":{"name":"a","resourceVersion":"2"},"spec":{"size":"1Gi"}},` +
		`{"metadata":{"name":"b","resourceVersion":"3"},"spec":{"size":"not a quantity"}}]}`
	var msgs []string
	for _, opts := range [][]wire.Option{nil, {wire.GeneratedDecoder(gadgetsv1gen.GadgetType.DecodeJSON)}} {
		c, err := wire.NewJSON[*gadgetsv1.Gadget](gvk, opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.DecodeList(strings.NewReader(body), func(*gadgetsv1.Gadget) error { return nil })
		if err == nil {
			t.Fatal("a LIST with a bad quantity decoded")
		}
		msgs = append(msgs, err.Error())
	}
	if !strings.Contains(msgs[0], "/items/1/spec/size") {
		t.Errorf("reflective decoder's error %q names no place", msgs[0])
	}
	if msgs[0] != msgs[1] {
		t.Errorf("errors differ:\nreflective: %s\ngenerated:  %s", msgs[0], msgs[1])
	}
}

// registerGenerated registers fn, a generated kind's decoder, with the
// differential tests. A nil fn is CheckedDecoder's verdict that the kind's
// types changed since it was generated: built with go.mod's k8s.io/api that
// means the checked-in trees are stale; built with another, the kind is
// left to the reflective decoder, which the differential tests run anyway.
func registerGenerated[P any](fn func(*wire.JSONDecoder, P) error) {
	t := reflect.TypeFor[P]().Elem()
	if fn != nil {
		wire.RegisterGeneratedDecoder(t, wire.GeneratedDecoder(fn))
		return
	}
	if apiversion.Generated("k8s.io/api") {
		panic("the generated decoder of " + t.String() + " is stale: run hack/update-codegen.sh")
	}
}
