package wire

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RegisterTestType adds the struct type t, of kind gvk in scheme (with its
// list type), to the differential tests' types. Only for init functions of
// external test files.
func RegisterTestType(scheme *runtime.Scheme, gvk schema.GroupVersionKind, t reflect.Type) {
	extraTypes = append(extraTypes, extraType{scheme, gvk, t})
}

// RegisterGeneratedDecoder makes the differential tests run the struct type
// t also with the GeneratedDecoder option o. Only for init functions of
// external test files.
func RegisterGeneratedDecoder(t reflect.Type, o JSONOption) { generatedDecoders[t] = o }
