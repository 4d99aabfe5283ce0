//go:build golden_broken

package v1

// compiler is built once, when the package is initialised, with options
// for another version of the library that provides newCompiler: this
// declaration does not compile, and neither does Default's body in
// defaults.go. go build reports both.
var compiler = newCompiler(defaultVersion(), false)

func defaultVersion() string { return "v1" }

func newCompiler(version string) string { return version }

// Validate checks a Gadget with the compiler.
func (g *Gadget) Validate() bool { return compiler != "" && g.Name != "" }
