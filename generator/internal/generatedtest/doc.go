// Package generatedtest drives generated code (the golden "indexes" and
// "pointer-items" trees; "projections", differentially against its kinds) through the real runtime and runtimetest's fake
// source: it is the proof that what informer-gen writes works, not only that it compiles. It lives apart
// from package generator so that a runtime change in flight cannot break the
// generator's own tests.
package generatedtest
