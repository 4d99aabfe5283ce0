package generator

import (
	"bytes"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gengonamer "k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"
	"sigs.k8s.io/yaml"
)

// The CRD manifests a published module ships are what a cluster installs,
// and so what the API server serves: when they name a kind's resource or
// scope otherwise than its markers and the English plural rules do (Argo
// Events renames EventBus's plural to "eventbus" after controller-gen runs),
// informers built from the markers would list a resource that does not
// exist and get 404s for ever. So for the kinds of a module other than the
// main one (the module cache, or a directory a replace names: code the user
// does not edit), the generator reads the module's CRD manifests and takes
// the resource and scope from them, with a warning that says so; the user's
// own module is left to its markers, which its CRDs are generated from.

// crdMaxFile bounds the size of a manifest file read: CRD bundles of large
// projects are a few megabytes; a bigger YAML file is data, not manifests.
const crdMaxFile = 8 << 20

// crdSkipDirs are directories whose manifests are not the module's own:
// fixtures, vendored code, web front-ends.
var crdSkipDirs = map[string]bool{"testdata": true, "vendor": true, "node_modules": true}

// crdKey is a group and kind, as a CRD names them.
type crdKey struct{ group, kind string }

// crdNames is what a module's CRD manifests say of one group and kind.
type crdNames struct {
	plural     string
	namespaced bool
	// versions maps each version a manifest lists to whether it is
	// served.
	versions map[string]bool
	file     string // the first manifest declaring it, relative to the module
	// conflict names a second manifest that disagrees with file on the
	// plural or the scope; then the manifests say nothing certain.
	conflict string
}

// moduleCRDs reads the CRD manifests under a module's directory (YAML
// files, several documents each, Helm templates and other files that do
// not parse skipped), keyed by group and kind.
func moduleCRDs(dir string) map[crdKey]*crdNames {
	crds := map[crdKey]*crdNames{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: not ours to report
		}
		name := d.Name()
		if d.IsDir() {
			// Hidden directories are skipped, not those named with a
			// leading underscore: Go ignores those for packages only, and
			// Karmada's chart keeps its CRDs in charts/karmada/_crds.
			if p != dir && (strings.HasPrefix(name, ".") || crdSkipDirs[name]) {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(name); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		if info, err := d.Info(); err != nil || !info.Mode().IsRegular() || info.Size() > crdMaxFile {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte("CustomResourceDefinition")) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			rel = p
		}
		addCRDs(crds, data, filepath.ToSlash(rel))
		return nil
	})
	return crds
}

// crdDoc is the part of a CustomResourceDefinition (apiextensions.k8s.io
// v1 or v1beta1) the generator reads.
type crdDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		Group string `json:"group"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Version  string `json:"version"` // v1beta1's single version
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
		} `json:"versions"`
	} `json:"spec"`
}

// addCRDs adds the CRDs of one manifest file to crds.
func addCRDs(crds map[crdKey]*crdNames, data []byte, file string) {
	for doc := range yamlDocuments(data) {
		if !bytes.Contains(doc, []byte("CustomResourceDefinition")) {
			continue
		}
		crd, ok := parseCRD(doc)
		if !ok {
			continue // a template, or not a CRD
		}
		key := crdKey{crd.Spec.Group, crd.Spec.Names.Kind}
		namespaced := crd.Spec.Scope == "Namespaced"
		n := crds[key]
		if n == nil {
			n = &crdNames{plural: crd.Spec.Names.Plural, namespaced: namespaced, versions: map[string]bool{}, file: file}
			crds[key] = n
		} else if n.conflict == "" && (n.plural != crd.Spec.Names.Plural || n.namespaced != namespaced) {
			n.conflict = file
		}
		if len(crd.Spec.Versions) == 0 && crd.Spec.Version != "" {
			n.versions[crd.Spec.Version] = true
		}
		for _, v := range crd.Spec.Versions {
			n.versions[v.Name] = n.versions[v.Name] || v.Served
		}
	}
}

// yamlDocuments yields the documents of a multi-document YAML file as
// k8s.io/apimachinery's YAMLReader splits them, without copying: a line
// starting with "---" followed by nothing but spaces or a comment ends a
// document, or starts it when nothing precedes it in the document; a
// document is never empty. It stops at a separator line with anything else
// after it, where that reader fails.
func yamlDocuments(data []byte) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		start, pos := 0, 0 // the current document's first byte, the line's
		for line := range bytes.Lines(data) {
			end := pos + len(line)
			if bytes.HasPrefix(line, []byte("---")) {
				if rest := bytes.TrimSpace(line[3:]); len(rest) > 0 && rest[0] != '#' {
					return
				}
				if pos > start { // else the line starts the document
					if !yield(data[start:pos]) {
						return
					}
					start = end
				}
			}
			pos = end
		}
		if start < len(data) {
			yield(data[start:])
		}
	}
}

// parseCRD parses a manifest document and reports whether it is a CRD the
// generator can use (complete). The OpenAPI schemas, nearly all of a CRD's
// bytes (a megabyte for some kinds), are cut out first (withoutSchemas): the
// cut document is taken only when it parses as a complete CRD whose fields
// name no schema key (which a cut inside a multi-line string would leave);
// anything else is parsed whole, so that a layout the cut does not foresee
// costs time, not a CRD.
func parseCRD(doc []byte) (crdDoc, bool) {
	if cut, ok := withoutSchemas(doc); ok {
		var crd crdDoc
		if yaml.Unmarshal(cut, &crd) == nil && crd.complete() && !crd.mentions(schemaKey) {
			return crd, true
		}
	}
	var crd crdDoc
	if yaml.Unmarshal(doc, &crd) != nil {
		return crdDoc{}, false
	}
	return crd, crd.complete()
}

// complete reports whether crd is a CRD with every field the generator
// needs: a group, a kind, a plural and a scope.
func (crd *crdDoc) complete() bool {
	return crd.Kind == "CustomResourceDefinition" && strings.HasPrefix(crd.APIVersion, "apiextensions.k8s.io/") &&
		crd.Spec.Group != "" && crd.Spec.Names.Kind != "" && crd.Spec.Names.Plural != "" &&
		(crd.Spec.Scope == "Namespaced" || crd.Spec.Scope == "Cluster")
}

// mentions reports whether any field of crd the generator reads contains s.
func (crd *crdDoc) mentions(s string) bool {
	fields := []string{crd.APIVersion, crd.Kind, crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.Plural, crd.Spec.Scope, crd.Spec.Version}
	for _, v := range crd.Spec.Versions {
		fields = append(fields, v.Name)
	}
	return slices.ContainsFunc(fields, func(f string) bool { return strings.Contains(f, s) })
}

// schemaKey is the key of a CRD's OpenAPI schema.
const schemaKey = "openAPIV3Schema:"

// withoutSchemas returns doc with the values of its block-style
// "openAPIV3Schema:" keys (v1's versions[].schema and v1beta1's
// spec.validation hold one each) replaced by {}, and whether it replaced
// any. A block mapping's value is the lines after its key indented deeper
// than the key's column, with blank and comment-only lines among them (a
// comment may sit at any column); YAML indents block scalars deeper too, so
// what is cut is the schema and nothing after it. The key's line keeps its
// indentation and the dashes of the sequence entries it starts
// ("- openAPIV3Schema:"), so the document keeps its structure. Left alone:
// a key with anything after it on its line ("openAPIV3Schema: {type:
// object}", or a comment), and a key line inside a flow collection or a
// quoted string that the lines before it open (flowState), where the lines
// below it need not be its value.
func withoutSchemas(doc []byte) ([]byte, bool) {
	if !bytes.Contains(doc, []byte(schemaKey)) {
		return doc, false
	}
	out := make([]byte, 0, 4096)
	cut := false
	var flow flowState
	skip := -1 // the column of the key whose value is being cut; -1: none
	for line := range bytes.Lines(doc) {
		content := bytes.TrimLeft(line, " ")
		indent := len(line) - len(content)
		content = bytes.TrimRight(content, " \r\n")
		if skip >= 0 {
			if len(content) == 0 || content[0] == '#' || indent > skip {
				continue
			}
			skip = -1
		}
		// The key may follow sequence entries' dashes; col is its column.
		col := indent
		for bytes.HasPrefix(content, []byte("- ")) {
			trimmed := bytes.TrimLeft(content[2:], " ")
			col += len(content) - len(trimmed)
			content = trimmed
		}
		if string(content) == schemaKey && flow.block() {
			out = append(append(out, line[:col]...), schemaKey+" {}\n"...)
			skip, cut = col, true
			continue
		}
		flow.scan(line)
		out = append(out, line...)
	}
	return out, cut
}

// flowState follows, line by line, whether a YAML document's text is inside
// a flow collection ("[...]", "{...}") or a quoted string that spans lines,
// as far as withoutSchemas needs to know it: a quote or bracket counts where
// a value starts (at the line's start, or after a colon, dash, comma,
// opening bracket, tag or anchor), a closing bracket inside a flow
// collection, and a "#" after a blank outside quotes starts a comment. It is not a YAML parser: a
// document it misreads loses its cut (parsed whole), never its meaning, as
// long as it reports block context only where no collection or string is
// open.
type flowState struct {
	depth int  // open flow collections
	quote byte // the quote of an open quoted string, or 0
}

// block reports whether the text after the lines scanned so far is in block
// context: in no flow collection and no quoted string.
func (f *flowState) block() bool { return f.depth == 0 && f.quote == 0 }

// scan follows one line.
func (f *flowState) scan(line []byte) {
	prev := byte(0) // the last non-blank byte outside quotes; 0 at the line's start
	for i := 0; i < len(line); i++ {
		c := line[i]
		if f.quote != 0 {
			switch {
			case f.quote == '"' && c == '\\':
				i++ // an escaped byte
			case c == f.quote:
				if f.quote == '\'' && i+1 < len(line) && line[i+1] == '\'' {
					i++ // '' is a quote inside '...'
				} else {
					f.quote = 0
					prev = c
				}
			}
			continue
		}
		valueStart := prev == 0 || prev == ':' || prev == '-' || prev == ',' || prev == '[' || prev == '{' || prev == '?'
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return
		case (c == '!' || c == '&') && valueStart:
			// A tag or an anchor: the value starts after it.
			for i+1 < len(line) && line[i+1] != ' ' && line[i+1] != '\t' && line[i+1] != '\n' {
				i++
			}
			continue
		case (c == '"' || c == '\'') && valueStart:
			f.quote = c
		case (c == '[' || c == '{') && valueStart:
			f.depth++
		case (c == ']' || c == '}') && f.depth > 0:
			f.depth--
		}
		prev = c
	}
}

// crdIndex reads each module's manifests once per run.
type crdIndex struct {
	byDir map[string]map[crdKey]*crdNames
}

func (x *crdIndex) of(dir string) map[crdKey]*crdNames {
	if x.byDir == nil {
		x.byDir = map[string]map[crdKey]*crdNames{}
	}
	crds, ok := x.byDir[dir]
	if !ok {
		crds = moduleCRDs(dir)
		x.byDir[dir] = crds
	}
	return crds
}

// applyCRDs takes the resource and scope of the kinds of version v (from
// the API package mp, served as version served) from the CRD manifests of
// mp's module, when that is not the main module and its manifests name
// them otherwise, and says so in a warning. A kind whose plural --plural-exceptions (or the defaults)
// sets keeps it, with a warning when the manifests disagree. A version the
// manifests list as not served, or do not list for a kind they declare, is
// a warning too: its informer would get 404s.
func applyCRDs(x *crdIndex, mp markedPackage, v *Version, served string, exceptions map[string]string) (diags Diagnostics) {
	mod := mp.pkg.Module
	if mod == nil || mod.Main || mod.Dir == "" {
		return nil
	}
	crds := x.of(mod.Dir)
	if len(crds) == 0 {
		return nil
	}
	where := mod.Path
	if mod.Version != "" {
		where += "@" + mod.Version
	}
	if mod.Replace != nil {
		where = mod.Replace.Path
		if mod.Replace.Version != "" {
			where += "@" + mod.Replace.Version
		}
	}
	for _, k := range v.Kinds {
		n := crds[crdKey{v.APIGroup, k.kind}]
		if n == nil || n.conflict != "" {
			continue
		}
		src := fmt.Sprintf("its CRD %s (module %s)", n.file, where)
		if n.plural != k.Resource {
			if _, set := exceptions[k.Name]; set {
				diags = append(diags, Diagnostic{Pos: k.pos, Warning: true,
					Message: fmt.Sprintf("kind %s is served as resource %q by %s, but --plural-exceptions makes it %q: its informers would get 404s", k.Name, n.plural, src, k.Resource),
					Hint:    "pass --plural-exceptions " + k.Name + ":" + crdPluralException(k.Name, n.plural)})
			} else if clash := resourceOf(v.Kinds, n.plural); clash != nil {
				diags = append(diags, Diagnostic{Pos: k.pos, Warning: true,
					Message: fmt.Sprintf("kind %s is served as resource %q by %s, which kind %s maps to: %s keeps %q", k.Name, n.plural, src, clash.Name, k.Name, k.Resource)})
			} else {
				diags = append(diags, Diagnostic{Pos: k.pos, Warning: true,
					Message: fmt.Sprintf("kind %s is served as resource %q, as %s names it, not %q: the generated code uses %q", k.Name, n.plural, src, k.Resource, n.plural),
					Hint:    "pass --plural-exceptions " + k.Name + ":" + crdPluralException(k.Name, n.plural) + " to say so"})
				k.Resource = n.plural
				k.Plural = gengonamer.NewPublicPluralNamer(map[string]string{k.Name: crdPluralException(k.Name, n.plural)}).
					Name(&gengotypes.Type{Name: gengotypes.Name{Name: k.Name}})
			}
		}
		if n.namespaced != k.Namespaced {
			scope := map[bool]string{true: "namespaced", false: "cluster-scoped"}
			diags = append(diags, Diagnostic{Pos: k.pos, Warning: true,
				Message: fmt.Sprintf("%s makes kind %s %s, not %s as its markers say: the generated code takes the CRD's scope", src, k.Name, scope[n.namespaced], scope[k.Namespaced])})
			k.Namespaced = n.namespaced
		}
		if ok, listed := n.versions[served]; !ok {
			why := "does not serve"
			if !listed {
				why = "does not list"
			}
			diags = append(diags, Diagnostic{Pos: k.pos, Warning: true,
				Message: fmt.Sprintf("%s %s version %s of kind %s (it serves %s): its informers would get 404s from a cluster with that CRD", src, why, served, k.Name, servedVersions(n.versions))})
		}
	}
	return diags
}

// crdPluralException is the --plural-exceptions value that makes kind's
// resource plural: the kind itself when the plural is the kind in lower
// case (EventBus:EventBus, as Argo Events' own code generation passes),
// else the plural.
func crdPluralException(kind, plural string) string {
	if strings.EqualFold(kind, plural) {
		return kind
	}
	return plural
}

// resourceOf returns the kind of kinds whose resource is resource, or nil.
func resourceOf(kinds []*Kind, resource string) *Kind {
	for _, k := range kinds {
		if k.Resource == resource {
			return k
		}
	}
	return nil
}

// servedVersions lists the served versions, sorted, or "none".
func servedVersions(versions map[string]bool) string {
	var vs []string
	for v, served := range versions {
		if served {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return "none"
	}
	slices.Sort(vs)
	return strings.Join(vs, ", ")
}
