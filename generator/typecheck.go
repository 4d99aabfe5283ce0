package generator

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// The loader's type checker: input packages are type-checked from source
// in full, their dependencies only as deep as the API types' declarations
// reach, with function bodies dropped, so an empty build cache costs no
// compilation (docs/performance.md, "a loader that type-checks from source").

// parseDeclarations parses a file with its comments (markers live there) but
// drops function bodies before type-checking: the generator needs
// declarations, fields and method sets only, and the bodies of large API
// packages (k8s.io/api's generated.pb.go) are most of the parse and check
// time and memory. gopls trims dependencies the same way.
//
// For input files (mode has ParseComments), the scheme registrations in the
// bodies are read first (scanRegistrations) and returned.
func parseDeclarations(fset *token.FileSet, filename string, src []byte, mode parser.Mode) (*ast.File, registrations, error) {
	f, err := parser.ParseFile(fset, filename, src, mode|parser.SkipObjectResolution)
	var regs registrations
	if f != nil && mode&parser.ParseComments != 0 {
		regs = scanRegistrations(f)
	}
	if f != nil {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fd.Body = nil
			}
		}
	}
	return f, regs, err
}

// pruneImports removes the imports a body-less file no longer refers to, so
// that type-checking it does not load them: most imports of a package are
// used in function bodies only, and this is what keeps the dependencies read
// from source to the few whose declarations the inputs' declarations
// mention. name gives an import path's package name.
func pruneImports(f *ast.File, name func(path string) string) {
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			return n.Tok != token.IMPORT
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	var kept []*ast.ImportSpec
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		specs := gd.Specs[:0]
		for _, s := range gd.Specs {
			is := s.(*ast.ImportSpec)
			p := strings.Trim(is.Path.Value, "\"`")
			n := name(p)
			if is.Name != nil {
				n = is.Name.Name
			}
			if n == "." || used[n] && p != "C" {
				specs = append(specs, s)
				kept = append(kept, is)
			}
		}
		gd.Specs = specs
	}
	// An empty import decl has no End: drop it.
	f.Decls = slices.DeleteFunc(f.Decls, func(d ast.Decl) bool {
		gd, ok := d.(*ast.GenDecl)
		return ok && gd.Tok == token.IMPORT && len(gd.Specs) == 0
	})
	f.Imports = kept
}

// ignoredTypeError reports type errors that only arise because bodies were
// dropped or imports pruned.
func ignoredTypeError(msg string) bool {
	return strings.Contains(msg, "imported") && strings.HasSuffix(msg, "not used") ||
		strings.Contains(msg, "missing function body") || strings.Contains(msg, "must have a body") ||
		strings.Contains(msg, "missing return") || strings.HasSuffix(msg, "declared and not used")
}

// checker type-checks packages of one go list graph from source, each at
// most once: the inputs with their comments, their dependencies with
// declarations only and no syntax kept. It is not safe for concurrent use
// (only file parsing runs in parallel, inside files).
type checker struct {
	ctx   context.Context
	fset  *token.FileSet
	byID  map[string]*packages.Package
	sizes types.Sizes

	done map[string]*types.Package
	// regs holds what each input package registers in a scheme, by
	// import path.
	regs map[string]registrations
	// build is the command that shows the same errors: "go build" with
	// the run's --tags (not go vet, which compiles the test files too and
	// needs their dependencies, KServe's gomega, which go.sum may lack).
	build string
	// requires caches each dependency module's go.mod requirements (module
	// path to version), by go.mod file.
	requires map[string]map[string]string
	// tooNew holds the packages reported as needing a newer Go
	// (withoutTooNewGo), so that input and bodies report one once.
	tooNew map[string]bool
}

func newChecker(ctx context.Context, cfg Config, fset *token.FileSet, roots []*packages.Package) *checker {
	c := &checker{ctx: ctx, fset: fset, byID: map[string]*packages.Package{}, done: map[string]*types.Package{},
		regs: map[string]registrations{}, tooNew: map[string]bool{}, sizes: types.SizesFor("gc", runtime.GOARCH), build: "go build"}
	if len(cfg.Tags) > 0 {
		c.build += " -tags=" + strings.Join(cfg.Tags, ",")
	}
	packages.Visit(roots, nil, func(p *packages.Package) { c.byID[p.ID] = p })
	return c
}

// importer resolves the imports of p through go list's import map (vendor
// directories and module versions are already resolved there).
type importer struct {
	c *checker
	p *packages.Package
}

func (im importer) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	dep := im.p.Imports[path]
	if dep == nil {
		return nil, fmt.Errorf("package %s is not in the import graph of %s", path, im.p.PkgPath)
	}
	return im.c.dependency(dep)
}

// files parses the files of p; with comments for inputs. It returns the
// parse errors too.
func (c *checker) files(p *packages.Package, mode parser.Mode) ([]*ast.File, []error) {
	files := make([]*ast.File, len(p.GoFiles))
	errs := make([]error, len(p.GoFiles))
	regs := make([]registrations, len(p.GoFiles))
	var wg sync.WaitGroup
	for i, name := range p.GoFiles {
		wg.Go(func() {
			src, err := os.ReadFile(name)
			if err != nil {
				errs[i] = err
				return
			}
			if mode&parser.ParseComments == 0 || generatedFile(name) {
				if mode&parser.ParseComments != 0 && mayRegister(name) {
					// register-gen's and projects' own generated
					// files (chaos-mesh's zz_generated.chaosmesh.go)
					// register the types in their bodies.
					if f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution); err == nil {
						regs[i] = scanRegistrations(f)
					}
				}
				// Nobody's markers live in there: skip parsing bodies.
				// (Input files keep theirs, so that a marker misplaced
				// in a body is still reported.)
				src = blankFuncBodies(src)
			}
			var r registrations
			files[i], r, errs[i] = parseDeclarations(c.fset, name, src, mode)
			regs[i].merge(r)
		})
	}
	wg.Wait()
	if mode&parser.ParseComments != 0 {
		all := registrations{}
		for _, r := range regs {
			all.merge(r)
		}
		c.regs[p.PkgPath] = all
	}
	pkgName := importNames(p)
	var out []*ast.File
	for _, f := range files {
		if f != nil {
			pruneImports(f, pkgName)
			out = append(out, f)
		}
	}
	return out, slices.DeleteFunc(errs, func(e error) bool { return e == nil })
}

// importNames returns the package name of each import path of p, for
// pruneImports.
func importNames(p *packages.Package) func(path string) string {
	return func(path string) string {
		if dep := p.Imports[path]; dep != nil && dep.Name != "" {
			return dep.Name
		}
		return pathBase(path)
	}
}

// generatedFile reports whether name is a file other generators write
// (deepcopy, protobuf, conversion, defaults), which holds no markers.
func generatedFile(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, "zz_generated") || strings.HasSuffix(base, ".pb.go")
}

// mayRegister reports whether a generated input file may register types
// in a scheme: every generated file but deepcopy, conversion, defaults,
// openapi and protobuf ones, which never do (and are the large ones).
func mayRegister(name string) bool {
	base := filepath.Base(name)
	for _, s := range []string{"deepcopy", "conversion", "defaults", "openapi"} {
		if strings.Contains(base, s) {
			return false
		}
	}
	return !strings.HasSuffix(base, ".pb.go")
}

// dependency type-checks a dependency from source, declarations only, and
// ignores its errors: what the inputs use of it is checked where they use
// it.
func (c *checker) dependency(p *packages.Package) (*types.Package, error) {
	if err := c.ctx.Err(); err != nil {
		return nil, err
	}
	if tp, ok := c.done[p.ID]; ok {
		return tp, nil
	}
	if len(p.GoFiles) == 0 {
		msg := "no Go files"
		if len(p.Errors) > 0 {
			msg = p.Errors[0].Msg
		}
		return nil, errors.New(msg)
	}
	files, _ := c.files(p, 0)
	conf := types.Config{
		Importer:         importer{c, p},
		Sizes:            c.sizes,
		IgnoreFuncBodies: true,
		FakeImportC:      true,
		Error:            func(error) {},
	}
	tp, _ := conf.Check(p.PkgPath, c.fset, files, nil)
	c.done[p.ID] = tp
	return tp, nil
}

// input parses and type-checks an input package and fills in its Syntax,
// Types and TypesInfo. Parse and type errors are returned as diagnostics: at
// most one parse error per file (the first; the rest usually follow from it)
// and, when a file does not parse, no type errors (they would too).
func (c *checker) input(p *packages.Package, rel func(string) string) Diagnostics {
	files, errs := c.files(p, parser.ParseComments)
	var diags Diagnostics
	for _, err := range errs {
		var list scanner.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			pos := list[0].Pos
			pos.Filename = rel(pos.Filename)
			diags = append(diags, Diagnostic{Pos: pos, Message: "syntax error: " + list[0].Msg,
				Hint: c.inputHint(p, rel)})
			continue
		}
		diags = append(diags, Diagnostic{Subject: p.PkgPath, Message: err.Error()})
	}
	p.Syntax = files
	p.TypesInfo = &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
	var typeErrs []types.Error
	conf := types.Config{
		Importer:         importer{c, p},
		Sizes:            c.sizes,
		GoVersion:        langVersion(p),
		IgnoreFuncBodies: true,
		FakeImportC:      true,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	p.Types, _ = conf.Check(p.PkgPath, c.fset, files, p.TypesInfo)
	if len(diags) > 0 {
		return diags
	}
	typeErrs, d, tooNew := c.withoutTooNewGo(p, typeErrs, rel)
	if tooNew {
		return d
	}
	atGoBuildPositions(typeErrs, files)
	return append(diags, typeErrorDiagnostics(typeErrs, rel, c.inputHint(p, rel))...)
}

// bodies type-checks the function bodies of p's hand-written files, which
// input dropped: the generated code imports p, so a body that does not
// compile (webhook set-up written for another controller-runtime's
// signatures, say) makes the output fail to build as surely as a bad
// declaration. Files other generators write (zz_generated*, *.pb.go) keep
// their bodies dropped: they are the bulk of an API package and compile
// when their generator's inputs do. It runs after input, whether input
// found errors or not (go build reports both kinds), in a check of its own,
// so the model never sees a body. Dependencies stay declarations only; a
// body's imports are loaded as the declarations' are.
func (c *checker) bodies(p *packages.Package, rel func(string) string) Diagnostics {
	var files []*ast.File
	written := map[string]bool{}
	pkgName := importNames(p)
	for _, name := range p.GoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil // input read it a moment ago; nothing to add
		}
		if generatedFile(name) {
			f, _, err := parseDeclarations(c.fset, name, blankFuncBodies(src), 0)
			if err != nil {
				return nil
			}
			pruneImports(f, pkgName)
			files = append(files, f)
			continue
		}
		f, err := parser.ParseFile(c.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		written[name] = true
		files = append(files, f)
	}
	if len(written) == 0 {
		return nil
	}
	var typeErrs []types.Error
	conf := types.Config{
		Importer:    importer{c, p},
		Sizes:       c.sizes,
		GoVersion:   langVersion(p),
		FakeImportC: true,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok && (written[te.Fset.Position(te.Pos).Filename] || tooNewRe.MatchString(te.Msg)) {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	conf.Check(p.PkgPath, c.fset, files, nil)
	typeErrs, d, tooNew := c.withoutTooNewGo(p, typeErrs, rel)
	if tooNew {
		return d
	}
	atGoBuildPositions(typeErrs, files)
	return typeErrorDiagnostics(typeErrs, rel, c.inputHint(p, rel))
}

// inputHint is the hint of an input package's type errors.
func (c *checker) inputHint(p *packages.Package, rel func(string) string) string {
	return "the input packages must compile; " + c.build + " " + relPkg(p, rel) + " shows the same"
}

// atGoBuildPositions moves a "not enough arguments in call" error, which
// go/types reports at the call's closing parenthesis, to where go build's
// type checker (types2) reports it: the last argument, or the call itself
// when it has none. That error is what API packages written for an older
// controller-runtime show most (ctrl.NewWebhookManagedBy(mgr), which
// v0.24 takes two arguments for), and a position go build does not print
// would send the user to a column of its own.
func atGoBuildPositions(errs []types.Error, files []*ast.File) {
	const prefix = "not enough arguments in call"
	rparens := map[token.Pos]bool{}
	for _, e := range errs {
		if strings.HasPrefix(e.Msg, prefix) {
			rparens[e.Pos] = true
		}
	}
	if len(rparens) == 0 {
		return
	}
	at := map[token.Pos]token.Pos{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && rparens[call.Rparen] {
				at[call.Rparen] = call.Pos()
				if len(call.Args) > 0 {
					at[call.Rparen] = call.Args[len(call.Args)-1].Pos()
				}
			}
			return true
		})
	}
	for i, e := range errs {
		if pos, ok := at[e.Pos]; ok && strings.HasPrefix(e.Msg, prefix) {
			errs[i].Pos = pos
		}
	}
}

// typeErrorDiagnostics turns the type checker's errors into one diagnostic
// each. A continuation line ("\tother declaration of X") becomes the hint of
// the error it continues, instead of a diagnostic of its own that would sort
// before it.
func typeErrorDiagnostics(errs []types.Error, rel func(string) string, hint string) Diagnostics {
	var diags Diagnostics
	posOf := func(e types.Error) token.Position {
		pos := e.Fset.Position(e.Pos)
		pos.Filename, pos.Offset = rel(pos.Filename), 0
		return pos
	}
	for _, e := range errs {
		if ignoredTypeError(e.Msg) {
			continue
		}
		if cont, ok := strings.CutPrefix(e.Msg, "\t"); ok {
			if len(diags) > 0 {
				d := &diags[len(diags)-1]
				pos := posOf(e)
				d.Hint = fmt.Sprintf("%s at %s", cont, posString(pos))
			}
			continue
		}
		msg := e.Msg
		if i := strings.Index(msg, "(missing go.sum entry"); i >= 0 {
			msg = strings.TrimSpace(msg[:i])
		}
		diags = append(diags, Diagnostic{Pos: posOf(e), Message: msg, Hint: hint})
	}
	return diags
}
