package generator

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// loaded is the result of the load stage: the input packages, parsed and
// type-checked once, sharing one FileSet.
type loaded struct {
	fset *token.FileSet
	rel  func(string) string // file names as reported: relative to the working directory
	pkgs []*packages.Package // input packages only, sorted by import path
	// explicit holds the import paths of the inputs named on the command
	// line by themselves rather than matched by a ... pattern.
	explicit map[string]bool
	// listed is the size of the import graph, checked how many
	// dependencies were type-checked from source.
	listed, checked int
}

// position is the reported position of p: file name relative to the
// working directory, no offset.
func (l *loaded) position(p token.Pos) token.Position {
	pos := l.fset.Position(p)
	pos.Filename = l.rel(pos.Filename)
	pos.Offset = 0
	return pos
}

// listMode asks go list for the package graph only: names, files and
// imports of the inputs and of everything they import. Nothing is compiled
// and no export data is asked for. With NeedTypes and without NeedDeps,
// go/packages would run `go list -export`, which compiles every dependency
// first: with a cold build cache (every fresh CI job) that took ten times
// longer than upstream's generators, which parse their dependencies.
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps

// parseDeclarations parses a file with its comments (markers live there) but
// drops function bodies before type-checking: the generator needs
// declarations, fields and method sets only, and the bodies of large API
// packages (k8s.io/api's generated.pb.go) are most of the parse and check
// time and memory. gopls trims dependencies the same way.
func parseDeclarations(fset *token.FileSet, filename string, src []byte, mode parser.Mode) (*ast.File, error) {
	f, err := parser.ParseFile(fset, filename, src, mode|parser.SkipObjectResolution)
	if f != nil {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				fd.Body = nil
			}
		}
	}
	return f, err
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
	// vet is the command that shows the same errors: "go vet" with the
	// run's --tags.
	vet string
}

func newChecker(ctx context.Context, cfg Config, fset *token.FileSet, roots []*packages.Package) *checker {
	c := &checker{ctx: ctx, fset: fset, byID: map[string]*packages.Package{}, done: map[string]*types.Package{},
		sizes: types.SizesFor("gc", runtime.GOARCH), vet: "go vet"}
	if len(cfg.Tags) > 0 {
		c.vet += " -tags=" + strings.Join(cfg.Tags, ",")
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
	var wg sync.WaitGroup
	for i, name := range p.GoFiles {
		wg.Go(func() {
			src, err := os.ReadFile(name)
			if err != nil {
				errs[i] = err
				return
			}
			if mode&parser.ParseComments == 0 || generatedFile(name) {
				// Nobody's markers live in there: skip parsing bodies.
				// (Input files keep theirs, so that a marker misplaced
				// in a body is still reported.)
				src = blankFuncBodies(src)
			}
			files[i], errs[i] = parseDeclarations(c.fset, name, src, mode)
		})
	}
	wg.Wait()
	pkgName := func(path string) string {
		if dep := p.Imports[path]; dep != nil && dep.Name != "" {
			return dep.Name
		}
		return pathBase(path)
	}
	var out []*ast.File
	for _, f := range files {
		if f != nil {
			pruneImports(f, pkgName)
			out = append(out, f)
		}
	}
	return out, slices.DeleteFunc(errs, func(e error) bool { return e == nil })
}

// generatedFile reports whether name is a file other generators write
// (deepcopy, protobuf, conversion, defaults), which holds no markers.
func generatedFile(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, "zz_generated") || strings.HasSuffix(base, ".pb.go")
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
				Hint: "the input packages must compile; " + c.vet + " " + relPkg(p, rel) + " shows the same"})
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
	return append(diags, typeErrorDiagnostics(typeErrs, p, rel, c.vet)...)
}

// typeErrorDiagnostics turns the type checker's errors into one diagnostic
// each. A continuation line ("\tother declaration of X") becomes the hint of
// the error it continues, instead of a diagnostic of its own that would sort
// before it.
func typeErrorDiagnostics(errs []types.Error, p *packages.Package, rel func(string) string, vet string) Diagnostics {
	var diags Diagnostics
	posOf := func(e types.Error) token.Position {
		pos := e.Fset.Position(e.Pos)
		pos.Filename, pos.Offset = rel(pos.Filename), 0
		return pos
	}
	hint := "the input packages must compile; " + vet + " " + relPkg(p, rel) + " shows the same"
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

// relPkg names p as the user would on the command line: ./dir when it is
// below the working directory, else its import path.
func relPkg(p *packages.Package, rel func(string) string) string {
	if len(p.GoFiles) > 0 {
		if d := rel(filepath.Dir(p.GoFiles[0])); !filepath.IsAbs(d) {
			return "./" + filepath.ToSlash(d)
		}
	}
	return p.PkgPath
}

func pathBase(p string) string {
	b := path.Base(p)
	// gopkg.in/yaml.v3 and .../v2 style major versions.
	if strings.HasPrefix(b, "v") && len(b) > 1 && strings.Trim(b[1:], "0123456789") == "" {
		b = path.Base(path.Dir(p))
	}
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return strings.ReplaceAll(b, "-", "_")
}

// load is the first stage: it resolves cfg.Inputs with go/packages (the
// loader gengo's parser is built on), type-checks the inputs from source
// (their dependencies as deep as their declarations need, function bodies
// dropped), and reports packages that do not exist or do not compile as
// diagnostics: one true message each, with a position where there is one
// and a hint.
func load(ctx context.Context, cfg Config, rel func(string) string) (*loaded, Diagnostics, error) {
	fset := token.NewFileSet()
	pcfg := &packages.Config{
		Context: ctx,
		Mode:    listMode,
		Dir:     cfg.WorkDir,
		Tests:   false,
		// Declarations only: cgo files would need the C toolchain and
		// add nothing the generator reads.
		Env: append(os.Environ(), "CGO_ENABLED=0"),
	}
	if len(cfg.Tags) > 0 {
		pcfg.BuildFlags = []string{"-tags=" + strings.Join(cfg.Tags, ",")}
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
	roots, err := packages.Load(pcfg, patterns...)
	if err != nil {
		return nil, nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	l := &loaded{fset: fset, rel: rel, explicit: map[string]bool{}}
	c := newChecker(ctx, cfg, fset, roots)
	var matched []*packages.Package
	for _, p := range roots {
		if inOutput(cfg, p) {
			// Our own earlier output, matched by a ./... pattern: never an
			// input, and possibly broken by the very change being
			// regenerated for.
			continue
		}
		matched = append(matched, p)
		if ds := listDiagnostics(p, cfg, rel); len(ds) > 0 {
			diags = append(diags, ds...)
			continue
		}
		if ds := c.input(p, rel); len(ds) > 0 {
			diags = append(diags, ds...)
			continue
		}
		l.pkgs = append(l.pkgs, p)
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for _, in := range patterns {
		if strings.Contains(in, "...") && !slices.ContainsFunc(matched, func(p *packages.Package) bool { return matchesPattern(cfg, in, p) }) {
			diags = append(diags, noPackagesDiagnostic(cfg, in))
		}
	}
	slices.SortFunc(l.pkgs, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	explicit := explicitInputs(cfg)
	for _, p := range l.pkgs {
		if explicit(p) {
			l.explicit[p.PkgPath] = true
		}
	}
	l.listed, l.checked = len(c.byID), len(c.done)
	return l, diags, nil
}

// listDiagnostics reports what go list found wrong with an input package or
// the packages it imports, as one diagnostic per problem.
func listDiagnostics(p *packages.Package, cfg Config, rel func(string) string) Diagnostics {
	var diags Diagnostics
	for _, e := range p.Errors {
		d := packageErrorDiagnostic(e, p, rel)
		switch {
		case strings.Contains(e.Msg, "build constraints exclude all Go files"):
			dir := dirOf(p, cfg)
			d = Diagnostic{Subject: rel(dir), Message: "build constraints exclude all Go files", Hint: tagsHint(cfg, dir)}
		case strings.Contains(e.Msg, "missing go.sum entry"):
			d.Message, d.Hint = goSumMessage(e.Msg)
		case e.Kind == packages.ListError && len(p.GoFiles) == 0 && len(p.IgnoredFiles) == 0:
			d = Diagnostic{Subject: p.ID, Message: "input package does not exist"}
		}
		diags = append(diags, d)
	}
	if len(diags) > 0 {
		return diags
	}
	// A dependency go list could not resolve (a missing go.sum entry, a
	// module not required): reported once, at the input's import of it
	// when the input imports it directly.
	imports := importPositions(p, rel)
	seen := map[string]bool{}
	for _, dep := range p.Imports {
		packages.Visit([]*packages.Package{dep}, nil, func(q *packages.Package) {
			for _, e := range q.Errors {
				if e.Kind != packages.ListError || seen[e.Msg] {
					continue
				}
				seen[e.Msg] = true
				d := Diagnostic{Subject: p.PkgPath, Pos: imports[q.PkgPath], Message: fmt.Sprintf("cannot load %s: %s", q.PkgPath, e.Msg)}
				if strings.Contains(e.Msg, "missing go.sum entry") {
					d.Message, d.Hint = goSumMessage(e.Msg)
				}
				diags = append(diags, d)
			}
		})
	}
	return diags
}

// importPositions finds where p's files import each path (the first
// import), reading import declarations only.
func importPositions(p *packages.Package, rel func(string) string) map[string]token.Position {
	out := map[string]token.Position{}
	fset := token.NewFileSet()
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if f == nil || err != nil {
			continue
		}
		for _, is := range f.Imports {
			path := strings.Trim(is.Path.Value, "\"`")
			if _, ok := out[path]; !ok {
				pos := fset.Position(is.Pos())
				pos.Filename, pos.Offset = rel(pos.Filename), 0
				out[path] = pos
			}
		}
	}
	return out
}

// goSumMessage shortens go's "missing go.sum entry for module providing
// package X (imported by Y); to add:\n\tgo get Y" to its first clause and
// turns the command into a hint.
func goSumMessage(msg string) (string, string) {
	first, rest, _ := strings.Cut(msg, ";")
	if i := strings.Index(first, " (imported by"); i >= 0 {
		first = first[:i]
	}
	hint := "run go mod tidy"
	if _, cmd, ok := strings.Cut(rest, "to add:"); ok && strings.TrimSpace(cmd) != "" {
		hint = "run " + strings.Join(strings.Fields(cmd), " ")
	}
	return strings.TrimSpace(first), hint
}

// noPackagesDiagnostic says why a ... pattern matched nothing: usually every
// Go file below it is behind a build tag.
func noPackagesDiagnostic(cfg Config, pattern string) Diagnostic {
	d := Diagnostic{Subject: pattern, Message: "pattern matches no Go packages"}
	if isLocalPattern(pattern) {
		root := abs(cfg.WorkDir, strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/"))
		if h := tagsHint(cfg, root); h != "" {
			d.Message = "pattern matches no Go packages: build constraints exclude every Go file below " + strings.TrimSuffix(pattern, "/...")
			d.Hint = h
		}
	}
	for elem := range strings.SplitSeq(filepath.ToSlash(pattern), "/") {
		if elem == "testdata" || len(elem) > 1 && (elem[0] == '_' || elem[0] == '.' && strings.Trim(elem, ".") != "") {
			d.Hint = "the go command ignores testdata directories and directories whose names start with _ or ."
		}
	}
	return d
}

// tagsHint names the build constraints of the Go files below dir and the
// --tags flag that would include them.
func tagsHint(cfg Config, dir string) string {
	if dir == "" {
		return ""
	}
	var first string
	var tags []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for line := range strings.SplitSeq(string(src), "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "//") {
				break
			}
			if !constraint.IsGoBuild(line) {
				continue
			}
			expr, err := constraint.Parse(line)
			if err != nil || expr.Eval(func(tag string) bool { return tagSet(cfg, tag) }) {
				continue
			}
			if first == "" {
				first = fmt.Sprintf("%s in %s", line, relativeTo(cfg.WorkDir)(p))
			}
			collectTags(expr, &tags)
		}
		return nil
	})
	if first == "" {
		return ""
	}
	tags = slices.DeleteFunc(tags, func(t string) bool { return tagSet(cfg, t) })
	slices.Sort(tags)
	tags = slices.Compact(tags)
	if len(tags) == 0 {
		return "files are excluded by " + first
	}
	return fmt.Sprintf("files are excluded by %s; pass --tags %s to include them", first, strings.Join(tags, ","))
}

// tagSet approximates the go command's answer to "is tag set?" for the
// host, with --tags.
func tagSet(cfg Config, tag string) bool {
	switch tag {
	case runtime.GOOS, runtime.GOARCH, "gc":
		return true
	case "unix":
		return runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	}
	return strings.HasPrefix(tag, "go1.") || slices.Contains(cfg.Tags, tag)
}

// collectTags appends the tags a constraint needs set (those not under a
// negation).
func collectTags(e constraint.Expr, tags *[]string) {
	switch e := e.(type) {
	case *constraint.TagExpr:
		*tags = append(*tags, e.Tag)
	case *constraint.AndExpr:
		collectTags(e.X, tags)
		collectTags(e.Y, tags)
	case *constraint.OrExpr:
		collectTags(e.X, tags)
		collectTags(e.Y, tags)
	}
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
