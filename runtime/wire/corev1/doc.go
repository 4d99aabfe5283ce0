// Package corev1 holds JSON decoders of the k8s.io/api/core/v1 types custom
// resources embed — PodTemplateSpec, PodSpec, PersistentVolumeClaim,
// ServiceSpec, ObjectReference, Taint, Toleration, … (generator/decode's
// CoreV1Roots) and every type they reach — for the decoders informer-gen
// generates: a generated decode.go calls X.PodTemplateSpec and the like
// instead of holding its own copy of core/v1's decoders, so its size and
// compile time follow the user's own types, and these are compiled once.
//
// X, of type Decoders, is the one entry point, for generated code only: one
// method per type (PodSpec, SliceContainer, PtrAffinity, …), each decoding
// one JSON value into a zero value of its type with runtime/wire's helpers,
// exactly as the codec's reflective decoder does (the differential tests
// here check it against that decoder and against client-go's), and Current,
// which a generated decoder passes to wire.CheckedDecoder: it reports false
// when the k8s.io/api compiled in has other members than the decoders were
// generated from, which leaves the kind to the reflective decoder. The
// decoders a program does not call are left out of its binary (X is never
// converted to an interface, so the linker keeps only the methods referred
// to). json_generated.go is written by informer-gen's planner
// (generator/decode), with the generator's table of these methods, by
// hack/update-codegen.sh; hack/verify-codegen.sh checks both.
package corev1
