// Package apiversion tells a test which version of a Kubernetes library the
// test binary was built with and which version this repository's go.mod
// requires. The decoders checked in (runtime/wire's and runtime/wire/corev1's
// shared decoders, the golden and bench trees) are generated against the
// go.mod's versions; built with a newer k8s.io/api (CI's second leg, see
// hack/test.sh), a type may have gained members, the generated decoders'
// member check (wire.CheckedDecoder) then leaves the kind to the reflective
// decoder, and the tests check that fallback instead of asking for
// hack/update-codegen.sh.
//
// It imports nothing of the runtime and is used by tests only.
package apiversion

import (
	"os"
	"path/filepath"
	"runtime/debug"

	"golang.org/x/mod/modfile"
)

// repoModule is the module path of the go.mod the checked-in code is
// generated against.
const repoModule = "github.com/informer-gen/informer-gen"

// Compiled returns the version of module the running binary was built with,
// or "" when the binary has no build information or does not use module.
func Compiled(module string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return ""
}

// Required returns the version of module the repository's root go.mod
// requires, found by walking up from the working directory (a test's
// package directory). It returns "" when there is no such go.mod or it does
// not require module.
func Required(module string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			if f, err := modfile.ParseLax("go.mod", data, nil); err == nil && f.Module != nil && f.Module.Mod.Path == repoModule {
				for _, r := range f.Require {
					if r.Mod.Path == module {
						return r.Mod.Version
					}
				}
				return ""
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Generated reports whether the binary is built with the version of module
// the checked-in generated code was generated against (the root go.mod's).
// It also reports true when either version cannot be told, so that a test
// then holds the generated code to the strict check.
func Generated(module string) bool {
	c, r := Compiled(module), Required(module)
	return c == "" || r == "" || c == r
}
