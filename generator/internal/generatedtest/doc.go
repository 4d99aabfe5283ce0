// Package generatedtest holds behaviour tests of generated code: informers
// and listers from the golden want trees of testdata/golden, run over
// runtimetest's fake source, for the API package layouts whose generated
// code differs in what it does (not only in what it says): Items of a named
// slice type, kinds registered in an init() whose informers register
// them in the factory's scheme themselves, kinds of one group version
// declared by several packages, and a kind its package's AddToScheme
// leaves out.
package generatedtest
