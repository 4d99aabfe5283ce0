package wire_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	corev1gen "github.com/informer-gen/informer-gen/bench/generated/informers/core/v1"
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
	if podsv1gen.RunnerType.DecodeJSON == nil {
		panic("generated decoders are stale: run hack/update-codegen.sh")
	}
	wire.RegisterGeneratedDecoder(reflect.TypeFor[podsv1.Runner](), wire.GeneratedDecoder(podsv1gen.RunnerType.DecodeJSON))

	reg := func(t reflect.Type, o wire.Option) { wire.RegisterGeneratedDecoder(t, o) }
	if corev1gen.PodType.DecodeJSON == nil || gadgetsv1gen.GadgetType.DecodeJSON == nil {
		// CheckedDecoder found the types changed: the tests below would
		// test the reflective decoder twice.
		panic("generated decoders are stale: run hack/update-codegen.sh")
	}
	reg(reflect.TypeFor[corev1.ComponentStatus](), wire.GeneratedDecoder(corev1gen.ComponentStatusType.DecodeJSON))
	reg(reflect.TypeFor[corev1.ConfigMap](), wire.GeneratedDecoder(corev1gen.ConfigMapType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Endpoints](), wire.GeneratedDecoder(corev1gen.EndpointsType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Event](), wire.GeneratedDecoder(corev1gen.EventType.DecodeJSON))
	reg(reflect.TypeFor[corev1.LimitRange](), wire.GeneratedDecoder(corev1gen.LimitRangeType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Namespace](), wire.GeneratedDecoder(corev1gen.NamespaceType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Node](), wire.GeneratedDecoder(corev1gen.NodeType.DecodeJSON))
	reg(reflect.TypeFor[corev1.PersistentVolume](), wire.GeneratedDecoder(corev1gen.PersistentVolumeType.DecodeJSON))
	reg(reflect.TypeFor[corev1.PersistentVolumeClaim](), wire.GeneratedDecoder(corev1gen.PersistentVolumeClaimType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Pod](), wire.GeneratedDecoder(corev1gen.PodType.DecodeJSON))
	reg(reflect.TypeFor[corev1.PodTemplate](), wire.GeneratedDecoder(corev1gen.PodTemplateType.DecodeJSON))
	reg(reflect.TypeFor[corev1.ReplicationController](), wire.GeneratedDecoder(corev1gen.ReplicationControllerType.DecodeJSON))
	reg(reflect.TypeFor[corev1.ResourceQuota](), wire.GeneratedDecoder(corev1gen.ResourceQuotaType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Secret](), wire.GeneratedDecoder(corev1gen.SecretType.DecodeJSON))
	reg(reflect.TypeFor[corev1.Service](), wire.GeneratedDecoder(corev1gen.ServiceType.DecodeJSON))
	reg(reflect.TypeFor[corev1.ServiceAccount](), wire.GeneratedDecoder(corev1gen.ServiceAccountType.DecodeJSON))
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
