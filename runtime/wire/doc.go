// Package wire turns the bodies of LIST and WATCH responses into typed
// objects: the one place in the runtime where bytes become objects.
//
// A Codec knows the media type it asks the server for and T's
// group-version-kind, so it decodes every LIST item and every WATCH event once,
// straight into a fresh T, without apimachinery's generic decode path (a
// framer, a pass to find apiVersion/kind, a validity pre-scan and a reflective
// decode). listwatch uses a Codec to read the responses of its requests; a
// faster decoder (or a generated one) replaces an implementation here and
// nothing above it. One constructor per codec, each taking T (a pointer to a
// struct) and returning an error that names T when it cannot decode it:
//
//   - NewJSON: go-json-experiment/json with encoding/json v1's semantics, as
//     client-go decodes; for every type. Options: SkipManagedFields, and
//     GeneratedDecoder for the decoder informer-gen generates for T.
//   - NewProtobuf: the envelopes read by hand, each object decoded by a
//     table-driven decoder built once per Go type from its protobuf struct
//     tags (protobuf_table.go; the generated Unmarshal's rules, compiled
//     once here rather than per type), which interns repeated strings and
//     shares maps and sub-objects (pointed-to messages, repeated fields)
//     whose bytes are the same between the objects of one Codec (which
//     makes them read-only: see NewProtobuf); built-in
//     k8s.io/api types.
//   - NewProtobufProjection: a projection of a built-in kind (a generated
//     type holding the kind's ObjectMeta and some of its fields) read from
//     protobuf: the envelopes as NewProtobuf reads them, each object's bytes
//     handed to the projection's generated decoder, which walks them with a
//     ProtobufDecoder (protobuf_decoder.go: the gogo-generated Unmarshal's
//     rules) and skips every field the projection does not keep; the
//     metadata and the maps it keeps are read by NewProtobuf's table
//     decoder, one per Codec, shared between objects as NewProtobuf's.
//   - NewCBOR: apimachinery's CBOR serializer; servers with
//     CBORServingAndStorage.
//
// Each is checked against client-go's decoders (the projection against
// decode-whole-then-project) by differential and fuzz tests. The media types
// are apimachinery's runtime.ContentTypeJSON, ContentTypeProtobuf and
// ContentTypeCBOR.
//
// # For generated code
//
// informer-gen's generated decode.go and decode_protobuf.go files (the
// decoders of factory.Type.DecodeJSON and DecodeProtobuf) call this package
// through two types and a few generic functions, all documented "for
// generated code"; they are not an API for hand-written decoders:
//
//   - *JSONDecoder's methods: the stream (BeginObject, NextName, SkipValue,
//     PeekNull), the codec's own decoder (DecodeDefault) and the decoders of
//     apimachinery's types that every API type shares (DecodeObjectMeta,
//     DecodeCondition, …, in json_generated_metav1.go, generated once here by
//     informer-gen's planner, generator/decode);
//   - the generic helpers DecodeField, DecodeString, DecodeBool, DecodeNumber,
//     DecodeMethod, DecodeSlice and DecodeMap (json_decoder.go, with the rule
//     that keeps them exactly the reflective decoder's), and CheckedDecoder,
//     which drops a generated decoder whose types changed since it was
//     generated;
//   - *ProtobufDecoder's methods, ProtobufStringMap, ProtobufMessageMap,
//     ProtobufMessages and CheckedProtobufDecoder, for projection decoders.
//
// The decoders of the core/v1 types custom resources embed (PodTemplateSpec,
// PodSpec, …) are in subpackage corev1, reached through its X.
//
// # Errors
//
// A malformed body is a *DecodeError naming the object's key and
// resourceVersion as far as they were read, the byte offset and the path to
// the value, never the value (it could be a Secret's): redact.go holds the
// rule every codec applies, docs/guide.md ("What reaches a log or an error")
// states it for the whole runtime.
//
// runtime/internal/codecopts holds the Options a wire.Option sets; the
// runtime's untyped informer core uses it to build the codecs of a Go type
// known at run time with T an interface, so they are compiled once.
package wire
