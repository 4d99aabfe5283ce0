// Package corev1 holds JSON decoders of the k8s.io/api/core/v1 types custom
// resources embed — PodTemplateSpec, PodSpec, PersistentVolumeClaim,
// ServiceSpec, ObjectReference, Taint, Toleration, … (generator/decode's
// CoreV1Roots) and every type they reach — for the decoders informer-gen
// generates: a generated decode.go calls DecodePodTemplateSpec and the like
// instead of holding its own copy of core/v1's decoders, so its size and
// compile time follow the user's own types, and these are compiled once.
//
// Every function decodes one JSON value into a zero value of its type with
// runtime/wire's helpers, exactly as the codec's reflective decoder does
// (the differential tests here check it against that decoder and against
// client-go's). json_generated.go is written by informer-gen's planner
// (generator/decode), with the generator's table of these functions, by
// hack/update-codegen.sh; hack/verify-codegen.sh checks both. Shared lists
// the JSON members each function was generated for: a generated decoder
// passes it to wire.CheckedDecoder, which leaves the kind to the reflective
// decoder when the k8s.io/api compiled in has other members.
package corev1
