package generator

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// loaded is the result of the load stage: the input packages, parsed and
// type-checked once, sharing one FileSet.
type loaded struct {
	fset *token.FileSet
	pkgs []*packages.Package // input packages only, sorted by import path
}

// loadMode asks go/packages for syntax and types of the input packages only.
// Dependencies are type-checked from the compiler's export data rather than
// from source (no NeedDeps): this is where upstream's generators, which
// parse and check every dependency, spend most of their time.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedSyntax |
	packages.NeedTypes | packages.NeedTypesInfo | packages.NeedModule | packages.NeedImports

// parseDeclarations parses a file with its comments (markers live there) but
// drops function bodies before type-checking: the generator needs
// declarations, fields and method sets only, and the bodies of large API
// packages (k8s.io/api's generated.pb.go) are most of the parse and check
// time and memory. gopls trims dependencies the same way.
func parseDeclarations(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments|parser.SkipObjectResolution)
	if f != nil {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fd.Body = nil
			}
		}
	}
	return f, err
}

// bodyOnlyError reports type errors that only arise because bodies were
// dropped (an import used only inside a func body).
func bodyOnlyError(e packages.Error) bool {
	return e.Kind == packages.TypeError && (strings.Contains(e.Msg, "imported") && strings.HasSuffix(e.Msg, "not used") ||
		strings.Contains(e.Msg, "missing function body") || strings.Contains(e.Msg, "must have a body") ||
		strings.Contains(e.Msg, "missing return"))
}

// load is the first stage: it resolves cfg.Inputs with go/packages (the
// loader gengo's parser is built on) and reports packages that do not exist
// or do not compile as diagnostics.
func load(ctx context.Context, cfg Config, rel func(string) string) (*loaded, Diagnostics, error) {
	fset := token.NewFileSet()
	pcfg := &packages.Config{
		Context:   ctx,
		Mode:      loadMode,
		Dir:       cfg.WorkDir,
		Fset:      fset,
		Tests:     false,
		ParseFile: parseDeclarations,
	}
	var diags Diagnostics
	var patterns []string
	for _, in := range cfg.Inputs {
		if isLocalPattern(in) {
			dir := strings.TrimSuffix(strings.TrimSuffix(in, "..."), "/")
			if _, err := os.Stat(filepath.Join(cfg.WorkDir, dir)); err != nil {
				diags = append(diags, Diagnostic{Subject: in, Message: "input package does not exist: no such directory"})
				continue
			}
		}
		patterns = append(patterns, in)
	}
	if len(patterns) == 0 {
		return nil, diags, nil
	}
	pkgs, err := packages.Load(pcfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	l := &loaded{fset: fset}
	for _, p := range pkgs {
		if inOutput(cfg, p) {
			// Our own earlier output, matched by a ./... pattern: never an
			// input, and possibly broken by the very change being
			// regenerated for.
			continue
		}
		var listErr bool
		for _, e := range p.Errors {
			if e.Kind == packages.ListError && len(p.CompiledGoFiles) == 0 {
				listErr = true
				continue
			}
			if !bodyOnlyError(e) {
				diags = append(diags, packageErrorDiagnostic(e, p, rel))
			}
		}
		if listErr || len(p.Syntax) == 0 {
			diags = append(diags, Diagnostic{Subject: p.ID, Message: "input package does not exist"})
			continue
		}
		l.pkgs = append(l.pkgs, p)
	}
	for _, in := range patterns {
		if strings.HasSuffix(in, "...") && len(l.pkgs) == 0 {
			diags = append(diags, Diagnostic{Subject: in, Message: "pattern matches no Go packages"})
		}
	}
	slices.SortFunc(l.pkgs, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	return l, diags, nil
}

// inOutput reports whether p lies in the listers/ or informers/ tree of the
// output dir.
func inOutput(cfg Config, p *packages.Package) bool {
	if len(p.GoFiles) == 0 {
		return false
	}
	dir := filepath.Dir(p.GoFiles[0])
	out := abs(cfg.WorkDir, cfg.OutputDir)
	for _, d := range ownedDirs {
		root := filepath.Join(out, d)
		if dir == root || strings.HasPrefix(dir, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func isLocalPattern(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || filepath.IsAbs(s)
}

// packageErrorDiagnostic turns a go/packages error ("file:line:col: msg")
// into a Diagnostic with a relative path.
func packageErrorDiagnostic(e packages.Error, p *packages.Package, rel func(string) string) Diagnostic {
	pos := e.Pos
	if pos == "" || pos == "-" {
		return Diagnostic{Subject: p.PkgPath, Message: e.Msg}
	}
	// pos is file:line:col or file:line.
	var d Diagnostic
	parts := strings.Split(pos, ":")
	d.Pos.Filename = pos
	if len(parts) >= 3 {
		var line, col int
		if _, err := fmt.Sscanf(parts[len(parts)-2]+" "+parts[len(parts)-1], "%d %d", &line, &col); err == nil {
			d.Pos = token.Position{Filename: rel(strings.Join(parts[:len(parts)-2], ":")), Line: line, Column: col}
		}
	} else if len(parts) == 2 {
		var line int
		if _, err := fmt.Sscanf(parts[1], "%d", &line); err == nil {
			d.Pos = token.Position{Filename: rel(parts[0]), Line: line, Column: 1}
		}
	}
	d.Message = e.Msg
	return d
}
