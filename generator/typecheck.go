package generator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
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

// clientGoUsers type-checks, bodies included, the packages that the inputs in
// imported (those the output imports) import, directly or not, that code
// written for another Kubernetes minor breaks in; inputs, all of them, are
// left out (their bodies are checked already). The output builds the
// imported inputs and so those packages, and such a package, written against
// the Kubernetes libraries of its own go.mod, may not compile against those
// this module selects:
//
//   - a package outside the k8s.io modules that imports client-go, or a
//     package of another of Kubernetes' libraries but its types
//     (k8sMachinery): controller-runtime before v0.24 against client-go
//     v0.37, whose cache implements client-go's
//     ResourceEventHandlerRegistration, which gained a method; KubeVela's
//     cluster-gateway, whose loopback set-up reads k8s.io/apiserver's
//     PostStartHookContext.StopCh, which v0.37 no longer has;
//   - a package of one of those libraries selected at another minor than
//     client-go (k8sLockstep): they are released together and each minor is
//     written against its own (KubeVela v1.10.9 brings k8s.io/apiserver
//     v0.31.10, which does not compile against apimachinery v0.37), and
//     another k8s.io package that imports such a library
//     (skewedLockstepImports: k8s.io/kubernetes v1.37 beside apiserver
//     v0.34);
//   - a package outside the k8s.io modules that imports a library built on
//     client-go, such as controller-runtime, selected at another minor than
//     its module requires (skewedK8sLibrary).
//
// The rest of the graph stays trusted, k8s.io/api, apimachinery and
// client-go included (k8sBelowRuntime checks their versions), and code that
// uses only Kubernetes' types rarely breaks on a new minor. Inputs that
// import no such package pay nothing.
func (c *checker) clientGoUsers(imported, inputs []*packages.Package, rel func(string) string) Diagnostics {
	isInput, inputModules := map[string]bool{}, map[string]bool{}
	for _, p := range inputs {
		isInput[p.ID] = true
		if p.Module != nil {
			inputModules[p.Module.Path] = true
		}
	}
	clientGo := c.clientGoVersion()
	against := "k8s.io/client-go " + clientGo
	type user struct {
		p *packages.Package
		// against is the library and version p may not compile against;
		// required, when set, the version p's module requires of it; fix,
		// when set, what to do.
		against, required, fix string
	}
	var users []user
	packages.Visit(imported, nil, func(p *packages.Package) {
		switch {
		case isInput[p.ID] || stdPackage(p.PkgPath):
		case strings.HasPrefix(p.PkgPath, "k8s.io/"):
			if m := p.Module; m != nil && k8sLockstep(m) && !slices.Contains(k8sModules, m.Path) &&
				semver.MajorMinor(m.Version) != semver.MajorMinor(clientGo) {
				users = append(users, user{p: p, against: against})
			} else if libs := skewedLockstepImports(p, clientGo); len(libs) > 0 {
				var names, gets []string
				for _, l := range libs {
					names = append(names, l.Path+" "+buildVersion(l))
					gets = append(gets, l.Path+"@"+clientGo)
				}
				list := names[len(names)-1]
				if len(names) > 1 {
					list = strings.Join(names[:len(names)-1], ", ") + " and " + list
				}
				users = append(users, user{p: p, against: list, fix: "go get " + strings.Join(gets, " ")})
			}
		case importsK8sMachinery(p):
			users = append(users, user{p: p, against: against})
		default:
			if lib, required := c.skewedK8sLibrary(p); lib != "" {
				users = append(users, user{p: p, against: lib, required: required})
			}
		}
	})
	var diags Diagnostics
	for _, u := range users {
		if err := c.ctx.Err(); err != nil {
			return nil
		}
		ofInputs := u.p.Module != nil && inputModules[u.p.Module.Path]
		diags = append(diags, c.fullBodies(u.p, u.against, u.required, u.fix, ofInputs, rel)...)
	}
	return diags
}

// skewedLockstepImports returns the libraries released with client-go
// (k8sLockstep, but k8s.io/api and apimachinery) whose packages other than
// API types p imports from another module, selected at another minor than
// client-go: a package of Kubernetes written for one minor does not compile
// against another minor of the libraries it is released with. OpenYurt
// v1.7.0's API imports k8s.io/kubernetes' pkg/apis/core/v1, whose
// pkg/features, at v1.37, names feature gates that k8s.io/apiserver,
// component-base, apiextensions-apiserver and controller-manager v0.34,
// which OpenYurt's go.mod selects, do not have.
func skewedLockstepImports(p *packages.Package, clientGo string) []*packages.Module {
	var libs []*packages.Module
	for _, imp := range slices.Sorted(maps.Keys(p.Imports)) {
		m := p.Imports[imp].Module
		if m == nil || p.Module != nil && m.Path == p.Module.Path || !k8sLockstep(m) || slices.Contains(k8sModules, m.Path) ||
			strings.Contains(imp+"/", "/pkg/apis/") || semver.MajorMinor(buildVersion(m)) == semver.MajorMinor(clientGo) ||
			slices.ContainsFunc(libs, func(l *packages.Module) bool { return l.Path == m.Path }) {
			continue
		}
		libs = append(libs, m)
	}
	return libs
}

// buildVersion is the version of m that builds: its replacement's when
// another version of it replaces it.
func buildVersion(m *packages.Module) string {
	if m.Replace != nil && m.Replace.Version != "" {
		return m.Replace.Version
	}
	return m.Version
}

// skewedK8sLibrary returns, for a package p that imports a library built on
// client-go (a module whose go.mod requires k8s.io/client-go, as
// controller-runtime's does) at another minor than p's module requires, that
// library as selected ("path version") and the version p's module requires;
// otherwise "", "". Such a library moves with Kubernetes' minors, and code
// written against one of its minors may not compile against another, whether
// or not it imports client-go itself: the logging-operator's pkg/sdk v0.12.0
// calls ctrl.NewWebhookManagedBy(mgr) in logging/api/v1beta1, which imports
// no client-go package, as controller-runtime v0.20 had it; from v0.24 on,
// the first that compiles against client-go v0.37, it takes two arguments.
// A library replaced by a directory counts at the version this module
// requires of it: checking bodies costs time, never a verdict go build would
// not give.
func (c *checker) skewedK8sLibrary(p *packages.Package) (lib, required string) {
	if p.Module == nil || p.Module.Main {
		return "", ""
	}
	requires := c.requirements(p.Module)
	for _, imp := range slices.Sorted(maps.Keys(p.Imports)) {
		m := p.Imports[imp].Module
		if m == nil || m.Main || m.Path == p.Module.Path || strings.HasPrefix(m.Path, "k8s.io/") {
			continue // Kubernetes' own libraries: the cases above
		}
		want, ok := requires[m.Path]
		have := buildVersion(m)
		if !ok || !semver.IsValid(have) || semver.MajorMinor(want) == semver.MajorMinor(have) {
			continue
		}
		if _, ok := c.requirements(m)["k8s.io/client-go"]; ok {
			return m.Path + " " + have, want
		}
	}
	return "", ""
}

// requirements returns the requirements of m's go.mod, module path to
// version, read once per go.mod file; none when it cannot be read.
func (c *checker) requirements(m *packages.Module) map[string]string {
	if m.GoMod == "" {
		return nil
	}
	if r, ok := c.requires[m.GoMod]; ok {
		return r
	}
	r := map[string]string{}
	if data, err := os.ReadFile(m.GoMod); err == nil {
		if f, err := modfile.ParseLax(m.GoMod, data, nil); err == nil {
			for _, req := range f.Require {
				r[req.Mod.Path] = req.Mod.Version
			}
		}
	}
	if c.requires == nil {
		c.requires = map[string]map[string]string{}
	}
	c.requires[m.GoMod] = r
	return r
}

// clientGoVersion is the version of k8s.io/client-go among the listed
// packages, or the runtime's when none imports it.
func (c *checker) clientGoVersion() string {
	for _, dep := range c.byID {
		if dep.Module != nil && dep.Module.Path == "k8s.io/client-go" && dep.Module.Version != "" {
			return dep.Module.Version
		}
	}
	return runtimeK8sVersion
}

// stdPackage reports whether path is a standard library package (no dot in
// its first element).
func stdPackage(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// k8sLockstep reports whether m is one of the Kubernetes libraries
// published together from the kubernetes repository's staging directory
// at v0.<minor>.<patch> for Kubernetes 1.<minor> (client-go, apiserver,
// apiextensions-apiserver, component-base, kube-aggregator, …): a module
// k8s.io/<name> at a release v0.15.0 or later, the first such release.
// k8s.io/utils and kube-openapi (pseudo-versions), klog/v2 and gengo/v2
// (a major version suffix) are not.
func k8sLockstep(m *packages.Module) bool {
	name, ok := strings.CutPrefix(m.Path, "k8s.io/")
	if !ok || strings.Contains(name, "/") || semver.Major(m.Version) != "v0" || semver.Prerelease(m.Version) != "" {
		return false
	}
	minor, err := strconv.Atoi(strings.TrimPrefix(semver.MajorMinor(m.Version), "v0."))
	return err == nil && minor >= 15
}

// importsK8sMachinery reports whether p imports client-go, or a package of
// another k8sLockstep library than k8s.io/api and apimachinery that is not
// a package of API types (.../pkg/apis/..., as apiextensions-apiserver's
// JSON type): the libraries whose behaviour, not only types, code is
// written against.
func importsK8sMachinery(p *packages.Package) bool {
	for path, dep := range p.Imports {
		if path == "k8s.io/client-go" || strings.HasPrefix(path, "k8s.io/client-go/") {
			return true
		}
		m := dep.Module
		if m == nil || m.Path == "k8s.io/api" || m.Path == "k8s.io/apimachinery" || !k8sLockstep(m) ||
			strings.Contains(path+"/", "/pkg/apis/") {
			continue
		}
		return true
	}
	return false
}

// fullBodies type-checks every file of a dependency p with its function
// bodies, in a check of its own (the model's declarations-only package of p
// stays as it is), and reports its errors, with what to do about them
// (against is the library that p may not compile against, as selected:
// "k8s.io/client-go v0.37.2"; required, when set, the version of it that
// p's module requires; fix, when set, what to do; ofInputs, whether p's
// module is an input package's; see clientGoUsers).
func (c *checker) fullBodies(p *packages.Package, against, required, fix string, ofInputs bool, rel func(string) string) Diagnostics {
	var files []*ast.File
	for _, name := range p.GoFiles {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil // a file go list saw and that is gone: not ours to report
		}
		f, err := parser.ParseFile(c.fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil // go build says so; nothing of the output's doing
		}
		files = append(files, f)
	}
	var typeErrs []types.Error
	conf := types.Config{
		Importer:    importer{c, p},
		Sizes:       c.sizes,
		GoVersion:   langVersion(p),
		FakeImportC: true,
		Error: func(err error) {
			if te, ok := err.(types.Error); ok {
				typeErrs = append(typeErrs, te)
			}
		},
	}
	conf.Check(p.PkgPath, c.fset, files, nil)
	if len(typeErrs) == 0 {
		return nil
	}
	typeErrs, d, tooNew := c.withoutTooNewGo(p, typeErrs, rel)
	if tooNew {
		return d
	}
	atGoBuildPositions(typeErrs, files)
	hint := dependencyHint(p, against, required, fix, ofInputs, c.build, rel)
	return typeErrorDiagnostics(typeErrs, rel, hint)
}

// dependencyHint says what to do about a dependency p that does not compile
// against a library as this module selects it (against: "k8s.io/client-go
// v0.37.2", or another library built on client-go, with required the
// version p's module requires of it): a published module needs another
// version of it, a library released with client-go its version; code of this
// module, or of a directory a replace names, is the user's to fix, and build
// shows the same errors. fix, when set, says what to do instead.
//
// ofInputs says that p belongs to the module of an input package, which
// imports it (the logging-operator's pkg/sdk v0.12.0, whose
// logging/api/v1alpha1 imports logging/api/v1beta1): the hint names the
// package and says so, where otherwise it names the module, and the
// version to take is the input module's.
func dependencyHint(p *packages.Package, against, required, fix string, ofInputs bool, build string, rel func(string) string) string {
	note := ""
	if required != "" {
		note = " (its go.mod requires " + required + ")"
	}
	if m := p.Module; m != nil && !m.Main && (m.Replace == nil && m.Version != "" || m.Replace != nil && m.Replace.Version != "") {
		lib, version, _ := strings.Cut(against, " ")
		switch {
		case fix != "":
		case m.Path == "sigs.k8s.io/controller-runtime":
			fix = "go get sigs.k8s.io/controller-runtime@v0.24 or later"
		case lib == "k8s.io/client-go" && m.Replace == nil && k8sLockstep(m) && semver.IsValid(version):
			// Released with client-go: its version is the one to take.
			fix = "go get " + m.Path + "@" + version
		case ofInputs:
			fix = "go get a version of " + m.Path + " built for that " + path.Base(lib) + ", or generate only the input packages that do not import " + p.PkgPath + ", directly or not"
		default:
			fix = "go get a version of it built for that " + path.Base(lib)
		}
		at := m.Path + " " + m.Version
		if m.Replace != nil {
			at += " (replaced by " + m.Replace.Path + " " + m.Replace.Version + ")"
		}
		if ofInputs {
			return fmt.Sprintf("%s (%s, the input packages' module), which input packages import, does not compile against %s that this module selects%s; %s", p.PkgPath, at, against, note, fix)
		}
		return fmt.Sprintf("%s, imported by the input packages, does not compile against %s that this module selects%s; %s", at, against, note, fix)
	}
	if fix == "" {
		fix = build + " " + relPkg(p, rel) + " shows the same"
	}
	by := "imported by the input packages"
	if ofInputs {
		by = "a package of the input packages' module that they import"
	}
	return fmt.Sprintf("%s, %s, does not compile against %s that this module selects%s; %s", p.PkgPath, by, against, note, fix)
}

// runtimeK8sVersion is the version of k8s.io/api, apimachinery and client-go
// that the runtime the output imports requires (this module's go.mod; a
// test keeps the two equal). Without a replace, the go command selects it
// or a newer one in any module that requires the runtime.
const runtimeK8sVersion = "v0.37.2"

// k8sModules are the modules the output imports through the runtime,
// whatever the inputs import.
var k8sModules = []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"}

// k8sBelowRuntime reports k8s.io/api, apimachinery or client-go at an
// older version, in the module that generates, than the runtime the output
// imports requires. Replaced by an older version of itself (projects that
// pin Kubernetes with replace lines, as KServe pins v0.34), the output would
// not compile. Selected older without a replace, the module does not require
// the runtime yet (a binary run from elsewhere, hack/use-local.sh
// --no-tool): the inputs would be checked against versions that go mod
// tidy then raises, and an input that compiles today may not compile at
// the runtime's version (Flagger imports k8s.io/api's autoscaling/v2beta2,
// which v0.37 no longer has), or its generated decoders go stale at once.
// A replacement by another module (a fork) or a directory is left alone:
// its version says nothing of its API.
//
// The modules of k8sModules that no input imports are still imported by the
// output: graph (nil: not asked) gives their versions in the module graph,
// and those are reported when replaced by an older version, or selected at a
// +incompatible one (below); selected older, go mod tidy raises them once
// the module requires the runtime, as the inputs cannot see them.
//
// k8s.io/client-go's releases from before it had a go.mod (v2.0.0 to
// v12.0.0, Kubernetes 1.5 to 1.15) are v12.0.0+incompatible and the like,
// which the go command ranks above every v0.x: a module that still requires
// one, and pins v0.x with a replace line that applies in its own builds only
// (LitmusChaos's chaos-operator), makes the go command select it over the
// runtime's requirement, and the output would not compile.
//
// broken are the verdicts that the output would not compile (replaced older,
// +incompatible): the cause of any errors the inputs show against such a
// client-go too, so load reports them beside those. older are the modules
// selected older without a replace, reported only when nothing else is.
func k8sBelowRuntime(pkgs []*packages.Package, graph func(paths []string) []*packages.Module) (broken, older Diagnostics) {
	seen := map[string]bool{}
	add := func(m *packages.Module, imported bool) {
		d, outputBreaks := k8sModuleBelowRuntime(m, imported)
		if outputBreaks {
			broken = append(broken, d...)
		} else {
			older = append(older, d...)
		}
	}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		m := p.Module
		if m == nil || m.Main || seen[m.Path] {
			return
		}
		seen[m.Path] = true
		if slices.Contains(k8sModules, m.Path) {
			add(m, true)
		}
	})
	var rest []string
	for _, path := range k8sModules {
		if !seen[path] {
			rest = append(rest, path)
		}
	}
	if len(rest) > 0 && graph != nil {
		for _, m := range graph(rest) {
			if slices.Contains(rest, m.Path) {
				add(m, false)
			}
		}
	}
	return broken, older
}

// k8sModuleBelowRuntime is k8sBelowRuntime's verdict on one module;
// imported says whether the inputs import it; outputBreaks, whether the
// verdict is that the output would not compile.
func k8sModuleBelowRuntime(m *packages.Module, imported bool) (d Diagnostics, outputBreaks bool) {
	if m.Main || m.Version == "" {
		return nil, false
	}
	switch r := m.Replace; {
	case r == nil && semver.Build(m.Version) == "+incompatible":
		return Diagnostics{{Subject: m.Path,
			Message: fmt.Sprintf("this module selects %s %s, a release from before the module had a go.mod, which the go command ranks above the %s that the generated code's runtime requires: the output would not compile",
				m.Path, m.Version, runtimeK8sVersion),
			Hint: fmt.Sprintf("a dependency requires it and pins %s with a replace line, which applies only in its own builds; add one here: go mod edit -replace=%s=%s@%s (go mod graph | grep %s@%s names the dependency)",
				m.Path, m.Path, m.Path, runtimeK8sVersion, m.Path, m.Version)}}, true
	case r == nil:
		if !imported || !semver.IsValid(m.Version) || semver.Compare(m.Version, runtimeK8sVersion) >= 0 {
			return nil, false
		}
		return Diagnostics{{Subject: m.Path,
			Message: fmt.Sprintf("this module selects %s %s, older than the %s that the generated code's runtime requires: the inputs would be checked against versions other than those the output builds with",
				m.Path, m.Version, runtimeK8sVersion),
			Hint: fmt.Sprintf("go get %s@%s before generating; requiring the runtime first does it (go get github.com/informer-gen/informer-gen@<version>, or hack/use-local.sh without --no-tool from a clone)", m.Path, runtimeK8sVersion)}}, false
	case r.Path == m.Path && semver.IsValid(r.Version) && (semver.Build(r.Version) == "+incompatible" || semver.Compare(r.Version, runtimeK8sVersion) < 0):
		return Diagnostics{{Subject: m.Path,
			Message: fmt.Sprintf("go.mod replaces %s with %s, older than the %s that the generated code's runtime requires: the output would not compile",
				m.Path, r.Version, runtimeK8sVersion),
			Hint: fmt.Sprintf("raise the replace to %s or later, or drop it", runtimeK8sVersion)}}, true
	}
	return nil, false
}

// graphModules returns the modules of paths as the module graph of the
// module in cfg.WorkDir selects them (go list -m -e, which reads go.mod
// files, not the modules' source): those not in the graph are left out, and
// when the go command fails, all of them, as this only adds a check.
func graphModules(ctx context.Context, cfg Config, paths []string) []*packages.Module {
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-m", "-e", "-json"}, paths...)...)
	cmd.Dir = cfg.WorkDir
	cmd.Env = listEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var mods []*packages.Module
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		m := new(packages.Module)
		if dec.Decode(m) != nil {
			break
		}
		if m.Version != "" && !m.Main {
			mods = append(mods, m)
		}
	}
	return mods
}
