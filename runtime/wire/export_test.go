package wire

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/informer-gen/informer-gen/runtime/internal/codecopts"
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
func RegisterGeneratedDecoder(t reflect.Type, o Option) { generatedDecoders[t] = o }

// newTestJSONCodec returns the JSON codec of objects of type *elem handed
// out as T (elem's pointer, or an interface it implements), panicking on a
// constructor error: the differential tests' codecs.
func newTestJSONCodec[T any](elem reflect.Type, gvk schema.GroupVersionKind, opts ...Option) *jsonCodec[T] {
	opts = append([]Option{OptionOf(func(o *codecopts.Options) { o.ObjectType = reflect.PointerTo(elem) })}, opts...)
	c, err := NewJSON[T](gvk, opts...)
	if err != nil {
		panic(err)
	}
	return c.(*jsonCodec[T])
}

// must returns a codec a test built, panicking if the constructor failed.
func must[C any](c C, err error) C {
	if err != nil {
		panic(err)
	}
	return c
}

// ProtobufFieldError is protobufFieldError, for the external tests.
type ProtobufFieldError = protobufFieldError

// OptionOf is an Option that sets what set sets, for the tests of the
// settings only the runtime sets (codecopts.Wrap).
func OptionOf(set func(*codecopts.Options)) Option { return Option{set} }
