// Package wire turns the bodies of LIST and WATCH responses into typed
// objects: the one place in the runtime where bytes become objects.
//
// A Codec knows the media type it asks the server for and T's
// group-version-kind, so it decodes every LIST item and every WATCH event once,
// straight into a fresh T, without apimachinery's generic decode path (a
// framer, a pass to find apiVersion/kind, a validity pre-scan and a reflective
// decode). listwatch uses a Codec to read the responses of its requests; a
// faster decoder (or a generated one) replaces an implementation here and
// nothing above it. Three codecs: NewJSON (go-json-experiment/json with
// encoding/json v1's semantics, as client-go decodes; for every type),
// NewProtobuf (the envelopes read by hand, each object's bytes handed to its
// generated Unmarshal; built-in k8s.io/api types) and NewCBOR
// (apimachinery's CBOR serializer; servers with CBORServingAndStorage). Each
// is checked against client-go's decoders by differential and fuzz tests.
//
// The JSON codec takes the type-specific decoders informer-gen generates
// (decode.go of each generated informers package, factory.Type.DecodeJSON)
// through GeneratedDecoder; the helpers they call (JSONDecoder, DecodeString,
// DecodeSlice, …, DecodeDefault) are in json_decoder.go, with the rule that
// keeps them exactly the reflective decoder's; the decoders of apimachinery's
// types that every API type shares (DecodeObjectMeta, DecodeCondition, …) are
// in json_generated_metav1.go, generated once here by informer-gen's planner
// (generator/decode) instead of in every generated package, and those of the
// core/v1 types custom resources embed (PodTemplateSpec, PodSpec, …) in
// subpackage corev1, checked through SharedDecoders.
//
// A projection of a built-in kind (a generated type holding the kind's
// ObjectMeta and some of its fields) is read from protobuf by
// NewProtobufProjection: the envelopes as NewProtobuf reads them, each
// object's bytes handed to the projection's generated decoder
// (decode_protobuf.go of a generated informers package,
// factory.Type.DecodeProtobuf), which walks them with a ProtobufDecoder
// (protobuf_decoder.go: the gogo-generated Unmarshal's rules, the kept
// messages given to their own Unmarshal, ProtobufObjectMeta for the
// metadata) and skips every field the projection does not keep. It is
// checked against decode-whole-then-project by differential and fuzz tests.
package wire
