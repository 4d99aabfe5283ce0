package generator

import (
	"context"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// What the loader says when packages cannot be loaded: one true
// diagnostic per problem (a position and a hint), never the go command's
// secondary messages.

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
		case goVersionRe.MatchString(e.Msg):
			d.Message, d.Hint = goVersionMessage(e.Msg)
		case strings.Contains(e.Msg, noModuleMsg) && moduleMissing(cfg, p.ID):
			d = Diagnostic{Subject: p.ID, Message: "no module in go.mod provides " + p.ID, Hint: notRequiredHint(p.ID)}
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
				} else if goVersionRe.MatchString(e.Msg) {
					d.Message, d.Hint = goVersionMessage(e.Msg)
				} else if strings.Contains(e.Msg, noModuleMsg) {
					if mod, ver, ok := selectedModule(cfg, q.PkgPath); ok {
						d = absentPackageDiagnostic(p, q, e, mod, ver, d, rel)
					}
				}
				diags = append(diags, d)
			}
		})
	}
	return diags
}

// goVersionRe matches the go command's refusal of a module that needs a
// newer Go: "go.mod requires go >= 1.27.0 (running go 1.26.8;
// GOTOOLCHAIN=local)", or "example.com/m@v1.2.0 requires go >= ...".
var goVersionRe = regexp.MustCompile(`(\S+) requires go >= (\S+) \(running go (\S+?)[;)]`)

// goVersionMessage says which Go the module needs and how to get it.
func goVersionMessage(msg string) (message, hint string) {
	m := goVersionRe.FindStringSubmatch(msg)
	if m == nil {
		return msg, ""
	}
	who := m[1]
	if who == "go.mod" {
		who = "the module's go.mod"
	}
	return fmt.Sprintf("%s needs Go %s, but the go command is Go %s", who, m[2], m[3]),
		fmt.Sprintf("install Go %s, or let the go command fetch it: GOTOOLCHAIN=go%s (or GOTOOLCHAIN=auto) informer-gen ...", m[2], m[2])
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

// noModuleMsg is how the go command says an import path lies in no module of
// the build list.
const noModuleMsg = "no required module provides package"

// notRequiredHint says how to require the module of an input package (or
// pattern) that lies in no module of the build list. The usual cause is go
// mod tidy run before the first generation: it drops a module that nothing
// imports yet, and only the generated code will.
func notRequiredHint(pattern string) string {
	return "run go get " + pattern + "@<version>; go mod tidy drops a module nothing imports, so run it after generating, when the generated code imports it"
}

// moduleMissing reports whether no module of the build list has a path that
// is path or a prefix of it. (The go command says "no required module
// provides package" also for a missing directory of a required module, since
// another module could provide it.) It runs go list -m all, so it is for
// explaining an error, not for the common path; when that fails it reports
// false.
func moduleMissing(cfg Config, path string) bool {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all")
	cmd.Dir = cfg.WorkDir
	cmd.Env = listEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return false
	}
	for mod := range strings.FieldsSeq(string(out)) {
		if path == mod || strings.HasPrefix(path, mod+"/") {
			return false
		}
	}
	return true
}

// selectedModule returns the module of the build list whose path is the
// longest prefix of path (or path itself), other than the main module, and
// its selected version (a replacement's, when another version replaces it).
// ok is false when there is none or go list -m fails. It asks for the
// prefixes only, not the whole build list: listing all of it fails where a
// dependency requires modules at v0.0.0 that it replaces (k8s.io/kubernetes),
// the very graphs that lead here. Like moduleMissing, it is for explaining
// an error.
func selectedModule(cfg Config, path string) (mod, version string, ok bool) {
	var prefixes []string
	for p := path; p != "." && p != "/" && p != ""; p = pathDir(p) {
		prefixes = append(prefixes, p)
	}
	for _, m := range graphModules(context.Background(), cfg, prefixes) {
		if m.Error != nil || len(m.Path) <= len(mod) {
			continue
		}
		mod, version, ok = m.Path, m.Version, true
		if m.Replace != nil && m.Replace.Version != "" {
			version = m.Replace.Version
		}
	}
	return mod, version, ok
}

// pathDir is path.Dir for import paths: "." when there is no slash.
func pathDir(p string) string {
	i := strings.LastIndex(p, "/")
	if i < 0 {
		return "."
	}
	return p[:i]
}

// absentPackageDiagnostic reports a package that a dependency of the
// input p imports and that the module providing its path, as selected, does
// not have: removed in the version the build list selects (k8s.io/api
// v0.37 has no autoscaling/v2beta1, which k8s.io/kubernetes v1.34 still
// imports, and Argo CD v3.3's API reaches it through gitops-engine). The go
// command's advice, go get of the package, cannot work then: no version the
// build list can select has it. The diagnostic sits at the import, names
// the importing package and its module, and says the code does not compile
// at these versions. d is the plain diagnostic, kept when no importer is
// found.
func absentPackageDiagnostic(p, q *packages.Package, e packages.Error, mod, version string, d Diagnostic, rel func(string) string) Diagnostic {
	var importer *packages.Package
	at := packageErrorDiagnostic(e, p, rel).Pos
	// The importer is the package holding the file of go list's position,
	// else the first by path of those importing q.
	holds := func(r *packages.Package) bool {
		return at.Line > 0 && slices.ContainsFunc(r.GoFiles, func(f string) bool { return rel(f) == at.Filename })
	}
	packages.Visit([]*packages.Package{p}, nil, func(r *packages.Package) {
		if _, ok := r.Imports[q.PkgPath]; !ok {
			return
		}
		switch {
		case importer == nil,
			holds(r) && !holds(importer),
			holds(r) == holds(importer) && r.PkgPath < importer.PkgPath:
			importer = r
		}
	})
	if importer == nil {
		return d
	}
	runtimeNote := ""
	if strings.HasPrefix(mod, "k8s.io/") {
		runtimeNote = ", where the generated code's runtime needs k8s.io " + runtimeK8sVersion + " or later"
	}
	who := importer.PkgPath
	if m := importer.Module; m != nil && !m.Main {
		v := m.Version
		if m.Replace != nil && m.Replace.Version != "" {
			v = m.Replace.Version
		}
		who += " (" + strings.TrimSpace(m.Path+" "+v) + ")"
	}
	out := Diagnostic{Subject: p.PkgPath,
		Message: fmt.Sprintf("cannot load %s, which %s imports: %s %s, which this module selects, has no such package",
			q.PkgPath, who, mod, version),
		Hint: fmt.Sprintf("%s was written for another version of %s, and the input packages and what they import must compile at the versions this module selects%s: require a version of its module built for %s %s, or a version of the input module that is",
			importer.PkgPath, mod, runtimeNote, mod, version)}
	if at.Line > 0 {
		out.Subject, out.Pos = "", at
	}
	return out
}

// mergeGoSum folds the missing-go.sum diagnostics of a run into one: the
// first, naming the other imports in its message and every go get the go
// command suggested in one command. They have one cause (go.sum lacks the
// entries of the inputs' dependencies, as when a module was fetched with go
// get of its root only) and one fix, and a module of many packages would
// otherwise print the same advice once per file and import. A dependency's
// go.mod file missing from go.sum ("M@V: missing go.sum entry for go.mod
// file", which the go command reports once per input that reaches it) has
// the same cause: beside a package's missing entry the go get of the inputs
// adds it too, and it is left out; alone, it is said once per module.
func mergeGoSum(diags Diagnostics) Diagnostics {
	const prefix = "missing go.sum entry for module providing package "
	var sums, goMods Diagnostics
	out := diags[:0:0]
	for _, d := range diags {
		switch {
		case strings.HasPrefix(d.Message, prefix):
			sums = append(sums, d)
		case strings.HasSuffix(d.Message, ": "+goModSumMissing):
			goMods = append(goMods, d)
		default:
			out = append(out, d)
		}
	}
	if len(sums) == 0 {
		goMods = goMods.sorted()
		seen := map[string]bool{}
		for _, d := range goMods {
			if !seen[d.Message] {
				seen[d.Message] = true
				out = append(out, d)
			}
		}
		return out
	}
	if len(sums) == 1 {
		return append(out, sums[0])
	}
	// The go command reports a package's errors in no fixed order: the
	// earliest position speaks for the rest, and the rest are named in
	// position order, so that the message is the same from run to run.
	sums = sums.sorted()
	var pkgs, args []string
	for _, d := range sums {
		if pkg := strings.TrimPrefix(d.Message, prefix); !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
		if cmd, ok := strings.CutPrefix(d.Hint, "run go get "); ok {
			for _, a := range strings.Fields(cmd) {
				if !slices.Contains(args, a) {
					args = append(args, a)
				}
			}
		}
	}
	d := sums[0]
	if n := len(pkgs) - 1; n > 0 {
		names := pkgs[1:min(len(pkgs), 4)]
		list := strings.Join(names, ", ")
		if n > len(names) {
			list += ", …"
		}
		d.Message += fmt.Sprintf(" (and %d more the inputs import: %s)", n, list)
	}
	if len(args) > 0 {
		d.Hint = "run go get " + strings.Join(args, " ")
	}
	return append(out, d) // Run sorts the diagnostics it prints
}

// goModSumMissing is how the go command says that go.sum lacks the hash of
// a dependency's go.mod file, after "M@V: ".
const goModSumMissing = "missing go.sum entry for go.mod file"

// goSumMessage shortens go's "missing go.sum entry for module providing
// package X (imported by Y); to add:\n\tgo get Y" to its first clause and
// turns the command into a hint; so too "M@V: missing go.sum entry for
// go.mod file; to add it:\n\tgo mod download M".
func goSumMessage(msg string) (string, string) {
	first, rest, _ := strings.Cut(msg, ";")
	if i := strings.Index(first, " (imported by"); i >= 0 {
		first = first[:i]
	}
	hint := "run go mod tidy"
	_, cmd, ok := strings.Cut(rest, "to add:")
	if !ok {
		_, cmd, ok = strings.Cut(rest, "to add it:")
	}
	if ok && strings.TrimSpace(cmd) != "" {
		hint = "run " + strings.Join(strings.Fields(cmd), " ")
	}
	return strings.TrimSpace(first), hint
}

// patternModuleRe matches the go command's error for a ... pattern that
// reaches into a module of the build list it cannot read, which go list -e
// reports beside the packages it did match: "pattern P: M@V: missing go.sum
// entry".
var patternModuleRe = regexp.MustCompile(`^pattern \S+: (\S+)@(\S+): missing go\.sum entry`)

// unreadModule is a module of the build list below a ... pattern that the
// go command could not read to match the pattern.
type unreadModule struct {
	pattern       string // as given on the command line
	path, version string
}

// unreadPatternModule returns the module that p's error names when p is a
// ... pattern the go command could not match in full because it could not
// read that module.
func unreadPatternModule(p *packages.Package) (unreadModule, bool) {
	if !strings.Contains(p.ID, "...") || len(p.GoFiles) > 0 || len(p.Errors) != 1 {
		return unreadModule{}, false
	}
	m := patternModuleRe.FindStringSubmatch(p.Errors[0].Msg)
	if m == nil {
		return unreadModule{}, false
	}
	return unreadModule{pattern: p.ID, path: m[1], version: m[2]}, true
}

// unreadModuleDiagnostic says why the go command could not read m to match
// its pattern, and what to do. matchedOthers tells whether the pattern
// matched packages of other modules.
//
// A module at v0.0.0 is how a repository of several modules has its root
// require a module nested in it, with a replace by its directory: the
// logging-operator's root requires its
// pkg/sdk/logging/model/syslogng/config so, and pkg/sdk/... then reaches it.
// The replace applies only in the root's own builds; here v0.0.0 names no
// version that exists, so no go.sum entry can be added, and no package of
// that module can be imported by the output either. The pattern's other
// packages are generated as if named one by one, with a warning; when it
// matched nothing else, there is nothing to generate. Any other version
// lacks only the entry, which go mod download of the module adds (of M@V it
// does not write go.sum; go mod tidy would drop the inputs' modules, which
// nothing imports before the first generation).
func unreadModuleDiagnostic(cfg Config, m unreadModule, matchedOthers bool) Diagnostic {
	if m.version != "v0.0.0" {
		return Diagnostic{Subject: m.pattern,
			Message: fmt.Sprintf("missing go.sum entry for %s %s, a module the go command reads to match the pattern", m.path, m.version),
			Hint:    "run go mod download " + m.path}
	}
	who := "a module of the build list"
	if rs := requirersOf(cfg, m.path+"@"+m.version); len(rs) > 0 {
		who = strings.Join(rs, ", ")
	}
	desc := fmt.Sprintf("module %s v0.0.0, which %s requires at v0.0.0, a version only a replace in the requiring go.mod can provide (a replace applies in its own module's builds only)", m.path, who)
	hint := "require it at a real version to include its packages: go get " + m.path + "@<version>"
	if !matchedOthers {
		return Diagnostic{Subject: m.pattern, Message: "pattern matches no package the go command can read: it cannot read " + desc, Hint: hint}
	}
	return Diagnostic{Subject: m.pattern, Warning: true, Message: "cannot read " + desc + ", so its packages below the pattern are not inputs", Hint: hint}
}

// requirersOf returns the modules of the module graph (go mod graph) that
// require modVersion ("path@version"), sorted. It is for explaining an
// error; when go mod graph fails it returns nil.
func requirersOf(cfg Config, modVersion string) []string {
	cmd := exec.Command("go", "mod", "graph")
	cmd.Dir = cfg.WorkDir
	cmd.Env = listEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var rs []string
	for line := range strings.Lines(string(out)) {
		from, to, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && to == modVersion && !slices.Contains(rs, from) {
			rs = append(rs, from)
		}
	}
	slices.Sort(rs)
	return rs
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
	} else if base := strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/"); moduleMissing(cfg, base) {
		d.Message = "pattern matches no Go packages: no module in go.mod provides " + base
		d.Hint = notRequiredHint(pattern)
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

// onlyModulesMissing reports whether every error go list reports for p and
// the packages it imports is a module of an import missing from go.sum or
// go.mod, and p itself was found: what go mod tidy leaves of a package of
// a required module that nothing in the main module imports.
func onlyModulesMissing(p *packages.Package) bool {
	if len(p.GoFiles) == 0 {
		return false
	}
	missing, other := false, false
	packages.Visit([]*packages.Package{p}, nil, func(q *packages.Package) {
		for _, e := range q.Errors {
			m := missingModuleRe.FindStringSubmatch(e.Msg)
			if m == nil || m[1] == p.PkgPath {
				other = true // another error, or p's own module is missing
				continue
			}
			missing = true
		}
	})
	return missing && !other
}

// missingModuleRe matches the go command's "missing go.sum entry for module
// providing package X" and "no required module provides package X".
var missingModuleRe = regexp.MustCompile(`(?:missing go\.sum entry for module providing|no required module provides) package ([^\s;:()]+)`)

// mayHoldKinds reports whether p's source could declare a kind, read from
// its files' syntax alone (its imports cannot be loaded): a +genclient
// marker; a struct type embedding ObjectMeta; or a struct type T embedding
// a type of another package other than TypeMeta and ListMeta (which might
// embed ObjectMeta in turn) when the package declares a TList beside it.
// A type whose markers skip it whatever it embeds (+kubebuilder:skipversion,
// +kubebuilder:unservedversion, +k8s:lister-gen=false: the older versions
// cluster-api-provider-vsphere keeps for conversion) is none. When unsure it
// says true.
func mayHoldKinds(p *packages.Package) bool {
	fset := token.NewFileSet()
	var files []*ast.File
	var structs []*ast.TypeSpec
	names := map[string]bool{}
	for _, name := range append(slices.Clone(p.GoFiles), p.IgnoredFiles...) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return true
		}
		files = append(files, f)
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				// A marker line, not prose that names one: client-gen's
				// typed clients say "Add a +genclient:noStatus comment
				// above the type" in every interface with UpdateStatus.
				if strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(c.Text, "//")), "+genclient") {
					return true
				}
			}
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				names[ts.Name.Name] = true
				if _, ok := ts.Type.(*ast.StructType); ok {
					structs = append(structs, ts)
				}
			}
		}
	}
	pm, _ := collectMarkers(fset, files, func(name string) string { return name })
	for _, ts := range structs {
		if !ts.Name.IsExported() && len(pm.types[ts.Name.Name]) == 0 {
			// Only a marker makes an unexported type a kind (and an
			// error); client-gen's typed clients embed client-go's
			// generic gentype clients in such types.
			continue
		}
		if s := readSelection(pm.types[ts.Name.Name]); s.skipVersion || s.unserved || s.noLister {
			continue
		}
		for _, fd := range ts.Type.(*ast.StructType).Fields.List {
			if len(fd.Names) > 0 {
				continue
			}
			t := fd.Type
			if s, ok := t.(*ast.StarExpr); ok {
				t = s.X
			}
			switch t := t.(type) {
			case *ast.Ident:
				// A type of p: if it embeds ObjectMeta, it is found itself.
				if t.Name == "ObjectMeta" {
					return true
				}
			case *ast.SelectorExpr:
				switch t.Sel.Name {
				case "ObjectMeta":
					return true
				case "TypeMeta", "ListMeta":
				default:
					if names[ts.Name.Name+"List"] {
						return true
					}
				}
			default:
				return true
			}
		}
	}
	return false
}
