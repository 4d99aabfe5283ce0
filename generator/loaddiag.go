package generator

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"regexp"
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
