package generator

import (
	"fmt"
	"go/token"
	"go/types"
	"go/version"
	"os"
	"regexp"
	"runtime"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"
)

// The Go language a package is checked in. go build checks each package in
// the language its module's go line names (-lang); the type checks here do
// the same (types.Config.GoVersion), so that they accept and refuse what go
// build does. A go line newer than the Go informer-gen was built with names
// a language its go/types does not know: a module on Go 1.27 that sets a
// promoted field in a composite literal, which Go 1.26's type checker
// refuses. go/types says so first ("package requires newer Go version"), and
// that is what the run reports, once, at the go line, instead of the errors
// that follow from it, which would otherwise be read as the package not
// compiling against the Kubernetes libraries this module selects.

// builtWith is the Go release informer-gen was built with, whose go/types
// checks the inputs: runtime.Version(), a variable for tests.
var builtWith = runtime.Version()

// langVersion returns the Go language p's module declares, as go/types
// takes it ("go1.27"), or "" when p has no module or its go line is not a
// release (the type checker then allows the newest language it knows).
func langVersion(p *packages.Package) string {
	if p.Module == nil || p.Module.GoVersion == "" {
		return ""
	}
	v := "go" + p.Module.GoVersion
	if !version.IsValid(v) {
		return ""
	}
	return version.Lang(v)
}

// tooNewRe matches go/types' error for a package (its module's go line) or a
// file (its //go:build line) that needs a newer Go than the type checker's.
var tooNewRe = regexp.MustCompile(`^(package|file) requires newer Go version (go\S+)`)

// withoutTooNewGo sorts out the type checker's errors for p when its module (or a
// file's //go:build line) names a newer Go than informer-gen was built with:
// go/types then says "package requires newer Go version" and checks on with
// the language it knows. rest are the errors without that one. When rest is
// empty the package uses nothing of the newer language that matters here
// and is checked as usual; otherwise the newer language is the likely cause,
// and d, reported instead of rest, says so (ok; d is empty when p's other
// check reported it already).
func (c *checker) withoutTooNewGo(p *packages.Package, errs []types.Error, rel func(string) string) (rest []types.Error, d Diagnostics, ok bool) {
	var found []string
	var at token.Position
	for _, e := range errs {
		m := tooNewRe.FindStringSubmatch(e.Msg)
		if m == nil {
			rest = append(rest, e)
			continue
		}
		if found == nil {
			found = m
			at = e.Fset.Position(e.Pos)
			at.Filename, at.Offset = rel(at.Filename), 0
		}
	}
	if found == nil || len(rest) == 0 {
		return rest, nil, false
	}
	if c.tooNew[p.ID] {
		return rest, nil, true // reported by p's other check
	}
	c.tooNew[p.ID] = true
	need := strings.TrimPrefix(found[2], "go")
	who := "a file of " + p.PkgPath + " (its //go:build line)"
	if found[1] == "package" && p.Module != nil {
		who = p.Module.Path
		if p.Module.Version != "" {
			who += " " + p.Module.Version
		}
		if pos, ok := goLine(p.Module.GoMod); ok {
			pos.Filename = rel(pos.Filename)
			at = pos
		}
	}
	first := rest[0].Fset.Position(rest[0].Pos)
	first.Filename = rel(first.Filename)
	return rest, Diagnostics{{
		Pos: at,
		Message: fmt.Sprintf("%s needs Go %s; informer-gen was built with %s, whose type checker does not know that language (it refuses %s: %s)",
			who, need, builtWith, posString(first), rest[0].Msg),
		Hint: fmt.Sprintf("run an informer-gen built with Go %[1]s or later: go tool github.com/informer-gen/informer-gen/cmd/informer-gen "+
			"from a module whose go line is %[1]s or later builds it with that Go (GOTOOLCHAIN=auto, or GOTOOLCHAIN=go%[1]s.0 beside GOTOOLCHAIN=local), "+
			"or install it with GOTOOLCHAIN=go%[1]s.0 go install", need),
	}}, true
}

// goLine returns the position of the go directive in the go.mod file at
// path.
func goLine(path string) (token.Position, bool) {
	if path == "" {
		return token.Position{}, false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return token.Position{}, false
	}
	f, err := modfile.ParseLax(path, data, nil)
	if err != nil || f.Go == nil || f.Go.Syntax == nil {
		return token.Position{}, false
	}
	return token.Position{Filename: path, Line: f.Go.Syntax.Start.Line, Column: f.Go.Syntax.Start.LineRune}, true
}
