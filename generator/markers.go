package generator

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// marker is one "// +name=value" comment line.
type marker struct {
	pos   token.Position // of the '+'
	name  string         // "genclient:onlyVerbs", "informer-gen:index", "groupName"
	value string         // text after the first '=' (empty for flags and arg markers)
	args  []markerArg    // for markers with key=value,... arguments
	text  string         // the whole marker without '+', for messages
}

// markerArg is one key=value argument of an argument marker.
type markerArg struct {
	key, value string
	pos        token.Position // of the key
}

func (m marker) arg(key string) (markerArg, bool) {
	for _, a := range m.args {
		if a.key == key {
			return a, true
		}
	}
	return markerArg{}, false
}

// argMarkers take "+name:key=value,key=value" arguments rather than
// "+name=value".
var argMarkers = []string{"informer-gen:index", "informer-gen:projection", "kubebuilder:resource"}

// Known markers. typeMarkers belong on a type's doc comment (or the comment
// block just above it, as upstream allows), packageMarkers in the package doc
// comment (doc.go or any file's package comment).
var (
	genclientVariants = []string{"nonNamespaced", "noVerbs", "noStatus", "readonly", "onlyVerbs", "skipVerbs", "method"}
	informerGenKeys   = []string{"index", "projection"}
	indexArgs         = []string{"name", "field", "func"}
	projectionArgs    = []string{"name", "fields"}
	packageMarkers    = []string{"groupName", "groupGoName"}
	// ourRoots are the first segments we own or read; a marker whose first
	// segment is a near miss of one of them is a typo and an error.
	ourRoots = []string{"genclient", "informer-gen", "groupName", "groupGoName", "resourceName"}
)

// isTypeMarker reports whether the marker selects or configures a type, so
// that finding it anywhere else is an error.
func isTypeMarker(name string) bool {
	return name == "genclient" || strings.HasPrefix(name, "genclient:") ||
		name == "resourceName" || strings.HasPrefix(name, "informer-gen:") ||
		name == "k8s:informer-gen" || name == "k8s:lister-gen" || name == "kubebuilder:object:root"
}

// scope is where a comment group sits.
type scope int

const (
	scopeOther   scope = iota // fields, funcs, vars, floating comments
	scopePackage              // package doc comment, or any comment of doc.go not attached to a declaration
	scopeType                 // a type's doc comment or the block above it
)

// pkgMarkers are the markers of one package by owner.
type pkgMarkers struct {
	pkg   []marker
	types map[string][]marker // by type name
}

// marked is the result of the markers stage: the loaded input packages,
// each with what its markers say.
type marked struct {
	*loaded
	pkgs []markedPackage // in the order of loaded.pkgs
}

// markedPackage is one input package with its markers read.
type markedPackage struct {
	pkg      *packages.Package
	explicit bool // named on the command line by itself, not by a ... pattern
	// projectionOnly is set for a package named only by --projection.
	projectionOnly bool
	group          groupMarkers
	types          map[string]selection // by type name; a type without markers has none
	// regs are the types the package registers in a scheme, as far as its
	// syntax shows.
	regs registrations
}

// kubebuilderStyle reports whether the package carries kubebuilder's
// markers (in its package comment or on any type): controller-gen runs over
// it.
func (mp markedPackage) kubebuilderStyle() bool {
	if mp.group.kubebuilder {
		return true
	}
	for _, s := range mp.types {
		if s.kubebuilder {
			return true
		}
	}
	return false
}

// genclientStyle reports whether any type of the package has +genclient:
// upstream's style, where a type without it is no resource.
func (mp markedPackage) genclientStyle() bool {
	for _, s := range mp.types {
		if s.genclient {
			return true
		}
	}
	return false
}

// groupMarkers are the package comment's group settings.
type groupMarkers struct {
	name   *marker // +groupName; nil without one
	goName string  // +groupGoName
	// skip is kubebuilder's package marker +kubebuilder:skip:
	// controller-gen makes no CRDs of the package.
	skip bool
	// versionName is kubebuilder's +versionName.
	versionName string
	// kubebuilder is set when a +kubebuilder: marker is in the package
	// comment (+kubebuilder:object:generate=true).
	kubebuilder bool
}

// readMarkers is the markers stage: every marker of every input package is
// parsed, attributed to the package or a type and checked, then read into
// the package's group settings and each type's selection.
func readMarkers(l *loaded) (*marked, Diagnostics) {
	out := &marked{loaded: l}
	var diags Diagnostics
	for _, pkg := range l.pkgs {
		pm, ds := collectMarkers(l.fset, pkg.Syntax, l.rel)
		diags = append(diags, ds...)
		g, ds := readGroupMarkers(pm.pkg)
		diags = append(diags, ds...)
		mp := markedPackage{pkg: pkg, explicit: l.explicit[pkg.PkgPath], projectionOnly: l.projectionOnly[pkg.PkgPath], group: g, types: map[string]selection{},
			regs: l.regs[pkg.PkgPath]}
		for name, ms := range pm.types {
			mp.types[name] = readSelection(ms)
		}
		out.pkgs = append(out.pkgs, mp)
	}
	return out, diags
}

// readGroupMarkers reads +groupName and +groupGoName from the package
// markers; see pickGroupName for +groupName given more than once.
func readGroupMarkers(ms []marker) (groupMarkers, Diagnostics) {
	var g groupMarkers
	var diags Diagnostics
	var names []marker // +groupName, in order
	for _, m := range ms {
		if strings.HasPrefix(m.name, "kubebuilder:") {
			g.kubebuilder = true
		}
		switch m.name {
		case "groupName":
			names = append(names, m)
		case "groupGoName":
			g.goName = m.value
		case "kubebuilder:skip":
			g.skip = true
		case "versionName":
			g.versionName = m.value
		}
	}
	g.name, diags = pickGroupName(names, diags)
	return g, diags
}

// pickGroupName picks the package's +groupName of names. Different values
// are an error, except that code-generator reads a package's markers from
// its doc.go alone when it has one: then doc.go's wins (katib's register.go
// names another group than its doc.go) and each other value is a warning.
func pickGroupName(names []marker, diags Diagnostics) (*marker, Diagnostics) {
	if len(names) == 0 {
		return nil, diags
	}
	pool := names
	docWins := slices.ContainsFunc(names, func(m marker) bool { return isDocGo(m.pos) })
	if docWins {
		pool = slices.DeleteFunc(slices.Clone(names), func(m marker) bool { return !isDocGo(m.pos) })
	}
	first := pool[0]
	for _, m := range pool[1:] {
		if m.value != first.value {
			diags = append(diags, Diagnostic{Pos: m.pos,
				Message: fmt.Sprintf("+groupName is given twice, as %q and as %q at %s", m.value, first.value, posString(first.pos)),
				Hint:    "keep one +groupName in the package comment"})
		}
	}
	for _, m := range names {
		if docWins && !isDocGo(m.pos) && m.value != first.value {
			diags = append(diags, Diagnostic{Pos: m.pos, Warning: true,
				Message: fmt.Sprintf("+groupName=%s is ignored: doc.go gives +groupName=%s at %s, and code-generator reads a package's markers from its doc.go",
					m.value, first.value, posString(first.pos)),
				Hint: "keep one +groupName in the package comment"})
		}
	}
	return &first, diags
}

// isDocGo reports whether pos is in a file named doc.go.
func isDocGo(pos token.Position) bool { return filepath.Base(pos.Filename) == "doc.go" }

// collectMarkers is the markers stage for one package: it finds every marker
// line in the package's files, parses it, attributes it to the package or a
// type, and reports unknown variants, typos and markers in the wrong place.
func collectMarkers(fset *token.FileSet, files []*ast.File, rel func(string) string) (pkgMarkers, Diagnostics) {
	pm := pkgMarkers{types: map[string][]marker{}}
	var diags Diagnostics
	for _, f := range files {
		owner := map[*ast.CommentGroup]string{} // type name, for type scope
		where := map[*ast.CommentGroup]scope{}
		fileName := filepath.Base(fset.Position(f.Package).Filename)
		// The package doc comment, and any block above the package clause:
		// kubebuilder's groupversion_info.go keeps +groupName in a block
		// separated from the clause by a blank line, which controller-gen
		// reads as package markers.
		for _, cg := range f.Comments {
			if cg.End() < f.Package {
				where[cg] = scopePackage
			}
		}
		endLine := map[int]*ast.CommentGroup{}
		for _, cg := range f.Comments {
			endLine[fset.Position(cg.End()).Line] = cg
		}
		attached := map[*ast.CommentGroup]bool{}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.GenDecl:
				if d.Doc != nil {
					attached[d.Doc] = true
				}
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						doc := s.Doc
						if doc == nil && !d.Lparen.IsValid() {
							doc = d.Doc
						}
						top := fset.Position(s.Name.Pos()).Line
						if doc != nil {
							owner[doc], where[doc] = s.Name.Name, scopeType
							attached[doc] = true
							top = fset.Position(doc.Pos()).Line
						}
						// upstream (gengo) also reads the comment block that
						// ends one blank line above the doc comment.
						if cg := endLine[top-2]; cg != nil && cg != f.Doc {
							if _, taken := where[cg]; !taken {
								owner[cg], where[cg] = s.Name.Name, scopeType
								attached[cg] = true
							}
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							markFieldComments(st, attached)
						}
					case *ast.ValueSpec:
						if s.Doc != nil {
							attached[s.Doc] = true
						}
					}
				}
			case *ast.FuncDecl:
				if d.Doc != nil {
					attached[d.Doc] = true
				}
			}
		}
		// controller-gen reads a block that documents no declaration as
		// package markers wherever it stands; of those, a block between
		// the package clause and the first declaration other than imports
		// is package scope here too: OpenYurt's groupversion_info.go keeps
		// its package comment and +groupName there, above the imports, and
		// cluster-api-provider-oci's exp/api/v1beta1 below them.
		firstDecl := slices.IndexFunc(f.Decls, func(d ast.Decl) bool {
			g, ok := d.(*ast.GenDecl)
			return !ok || g.Tok != token.IMPORT
		})
		beforeDecls := func(cg *ast.CommentGroup) bool {
			return cg.Pos() > f.Name.End() && firstDecl >= 0 && cg.End() < f.Decls[firstDecl].Pos()
		}
		for _, cg := range f.Comments {
			sc, ok := where[cg]
			if !ok {
				sc = scopeOther
				if (fileName == "doc.go" || beforeDecls(cg)) && !attached[cg] {
					sc = scopePackage
				}
			}
			for _, c := range cg.List {
				m, ok, d := parseMarker(fset, c, rel)
				if !ok {
					continue
				}
				if d != nil {
					diags = append(diags, *d)
					continue
				}
				diags = append(diags, checkMarker(m, sc, owner[cg])...)
				switch {
				case sc == scopeType:
					pm.types[owner[cg]] = append(pm.types[owner[cg]], m)
				case sc == scopePackage:
					pm.pkg = append(pm.pkg, m)
				}
			}
		}
	}
	return pm, diags
}

func markFieldComments(st *ast.StructType, attached map[*ast.CommentGroup]bool) {
	for _, fld := range st.Fields.List {
		if fld.Doc != nil {
			attached[fld.Doc] = true
		}
		if fld.Comment != nil {
			attached[fld.Comment] = true
		}
	}
}

// parseMarker parses one comment line. ok is false when the line is not a
// marker; d is set when it is one of ours but malformed.
func parseMarker(fset *token.FileSet, c *ast.Comment, rel func(string) string) (m marker, ok bool, d *Diagnostic) {
	if !strings.HasPrefix(c.Text, "//") {
		return m, false, nil
	}
	body := c.Text[2:]
	trimmed := strings.TrimLeft(body, " \t")
	if !strings.HasPrefix(trimmed, "+") || len(trimmed) < 2 || !isLetter(trimmed[1]) {
		return m, false, nil
	}
	offset := 2 + len(body) - len(trimmed) // of '+' within c.Text
	pos := fset.Position(c.Slash + token.Pos(offset))
	pos.Filename = rel(pos.Filename)
	pos.Offset = 0
	text := strings.TrimSpace(trimmed[1:])
	m = marker{pos: pos, text: text}
	at := func(col int) token.Position { p := pos; p.Column += 1 + col; return p }

	for _, am := range argMarkers {
		if text == am || strings.HasPrefix(text, am+":") {
			m.name = am
			rest := strings.TrimPrefix(strings.TrimPrefix(text, am), ":")
			col := len(text) - len(rest)
			for part := range strings.SplitSeq(rest, ",") {
				k, v, _ := strings.Cut(part, "=")
				if strings.TrimSpace(k) != "" {
					lead := len(k) - len(strings.TrimLeft(k, " "))
					m.args = append(m.args, markerArg{
						key:   strings.TrimSpace(k),
						value: strings.Trim(strings.TrimSpace(v), `"`),
						pos:   at(col + lead),
					})
				}
				col += len(part) + 1
			}
			return m, true, nil
		}
	}
	name, value, _ := strings.Cut(text, "=")
	m.name, m.value = strings.TrimSpace(name), strings.TrimSpace(value)
	if i := strings.IndexAny(m.name, " \t"); i >= 0 { // "+genclient // comment"
		m.name = m.name[:i]
	}

	// Typos of our own markers are errors rather than silently ignored.
	root, sub, hasSub := strings.Cut(m.name, ":")
	switch {
	case root == "informer-gen":
		key, _, _ := strings.Cut(sub, ":")
		if !slices.Contains(informerGenKeys, key) {
			return m, true, &Diagnostic{Pos: pos,
				Message: fmt.Sprintf("unknown marker key +informer-gen:%s", key),
				Hint:    cmp.Or(didYouMean(key, informerGenKeys...), "known keys: "+strings.Join(informerGenKeys, ", "))}
		}
	case root == "genclient" && hasSub:
		if !slices.Contains(genclientVariants, sub) {
			// Upstream's grammar: client-gen ignores what it does not
			// know, and a published module cannot be edited, so this
			// is a warning; the marker is not read.
			return m, true, &Diagnostic{Pos: pos, Warning: true,
				Message: fmt.Sprintf("unknown marker +genclient:%s", sub),
				Hint:    cmp.Or(didYouMean(sub, genclientVariants...), "known variants: "+strings.Join(genclientVariants, ", "))}
		}
	case !slices.Contains(ourRoots, root):
		for _, r := range ourRoots {
			if d := editDistance(strings.ToLower(root), strings.ToLower(r)); d <= 2 && len(root) > 4 {
				// A near miss of one of ours is an error; of upstream's,
				// a warning (upstream ignores it).
				return m, true, &Diagnostic{Pos: pos, Warning: r != "informer-gen",
					Message: fmt.Sprintf("unknown marker +%s", m.name),
					Hint:    fmt.Sprintf("did you mean %q?", "+"+r+strings.TrimPrefix(m.name, root))}
			}
		}
	}
	return m, true, nil
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// checkMarker reports markers found where they have no effect: ours
// (+informer-gen:) as errors; upstream's and kubebuilder's as warnings, since
// upstream's generators ignore them and published modules keep them (a
// floating +genclient in a types.go that only holds the package clause, so
// that upstream's codegen script finds the folder).
func checkMarker(m marker, sc scope, typeName string) Diagnostics {
	ds := misplacedMarker(m, sc, typeName)
	if !strings.HasPrefix(m.name, "informer-gen:") {
		for i := range ds {
			ds[i].Warning = true
		}
	}
	return ds
}

func misplacedMarker(m marker, sc scope, typeName string) Diagnostics {
	switch {
	case isTypeMarker(m.name) && sc != scopeType:
		where := "here"
		if sc == scopePackage {
			where = "in the package comment"
		}
		return Diagnostics{{Pos: m.pos,
			Message: fmt.Sprintf("marker +%s is in the wrong place: it has no effect %s", m.name, where),
			Hint:    "put it in the comment directly above a type declaration"}}
	case slices.Contains(packageMarkers, m.name) && sc != scopePackage:
		on := "here"
		if sc == scopeType {
			on = "on type " + typeName
		}
		return Diagnostics{{Pos: m.pos,
			Message: fmt.Sprintf("marker +%s is in the wrong place: it has no effect %s", m.name, on),
			Hint:    "put it in the package comment, usually in doc.go or groupversion_info.go"}}
	}
	return nil
}

// selection is what a type's markers say about it.
type selection struct {
	genclient, root, clusterScoped, noVerbs bool
	// kubebuilder is set when any +kubebuilder: marker is on the type:
	// controller-gen makes its CRD, and names it.
	kubebuilder bool
	// skipVersion is +kubebuilder:skipversion: controller-gen leaves the
	// type out of its CRD.
	skipVersion bool
	// unserved is +kubebuilder:unservedversion: the CRD lists the version
	// but the server does not serve it (an informer would get 404s).
	unserved             bool
	noInformer, noLister bool
	onlyVerbs, skipVerbs []string
	resource             string
	indexes              []marker
	projections          []marker
	// conflicts are markers that contradict each other: upstream and
	// kubebuilder spellings of the same setting with different values.
	conflicts Diagnostics
}

func readSelection(ms []marker) selection {
	var s selection
	var resourceName, nonNamespaced, resource *marker
	var path, scope *markerArg
	for _, m := range ms {
		if strings.HasPrefix(m.name, "kubebuilder:") {
			s.kubebuilder = true
		}
		switch m.name {
		case "genclient":
			s.genclient = m.value != "false"
		case "genclient:nonNamespaced":
			nonNamespaced = &m
		case "genclient:noVerbs":
			s.noVerbs = true
		case "genclient:onlyVerbs":
			s.onlyVerbs = splitList(m.value)
		case "genclient:skipVerbs":
			s.skipVerbs = splitList(m.value)
		case "resourceName":
			resourceName = &m
		case "k8s:informer-gen":
			s.noInformer = m.value == "false"
		case "k8s:lister-gen":
			s.noLister = m.value == "false"
		case "kubebuilder:object:root":
			s.root = m.value == "" || m.value == "true"
		case "kubebuilder:resource":
			resource = &m
			for _, a := range m.args {
				switch a.key {
				case "scope":
					scope = &a
				case "path":
					path = &a
				}
			}
		case "kubebuilder:skipversion":
			s.skipVersion = true
		case "kubebuilder:unservedversion":
			s.unserved = true
		case "informer-gen:index":
			s.indexes = append(s.indexes, m)
		case "informer-gen:projection":
			s.projections = append(s.projections, m)
		}
	}
	at := func(p token.Position) string { return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column) }
	switch {
	case resourceName != nil && path != nil && resourceName.value != path.value:
		s.conflicts = append(s.conflicts, Diagnostic{Pos: resourceName.pos,
			Message: fmt.Sprintf("+resourceName=%s disagrees with +kubebuilder:resource:path=%s at %s", resourceName.value, path.value, at(path.pos)),
			Hint:    "the server serves the CRD's path; give one resource name, or the same in both"})
	case resourceName != nil:
		s.resource = resourceName.value
	case path != nil:
		s.resource = path.value
	}
	s.clusterScoped = nonNamespaced != nil
	if scope != nil {
		switch scope.value {
		case "Cluster":
			s.clusterScoped = true
		case "Namespaced":
			if nonNamespaced != nil {
				s.conflicts = append(s.conflicts, Diagnostic{Pos: nonNamespaced.pos,
					Message: fmt.Sprintf("+genclient:nonNamespaced disagrees with +kubebuilder:resource:scope=Namespaced at %s", at(scope.pos)),
					Hint:    "the type is either cluster-scoped or namespaced; remove one marker"})
			}
		default:
			s.conflicts = append(s.conflicts, Diagnostic{Pos: scope.pos,
				Message: fmt.Sprintf("+kubebuilder:resource: scope=%s is neither Cluster nor Namespaced", scope.value),
				Hint:    cmp.Or(didYouMean(scope.value, "Cluster", "Namespaced"), "scope is Cluster or Namespaced")})
		}
	} else if resource != nil && nonNamespaced != nil {
		// controller-gen makes the CRD namespaced when +kubebuilder:resource
		// names no scope, whatever +genclient says, and the server serves
		// the CRD: OpenShift Hive's ClusterRelocate. An informer of it as
		// cluster-scoped would key objects by name alone, merging those of
		// one name in different namespaces. A warning, since the CRD is
		// not in doubt and the package may be one the user cannot edit.
		s.clusterScoped = false
		s.conflicts = append(s.conflicts, Diagnostic{Pos: nonNamespaced.pos, Warning: true,
			Message: fmt.Sprintf("+genclient:nonNamespaced disagrees with +kubebuilder:resource at %s, which names no scope, so controller-gen makes the CRD namespaced: the generated code takes the CRD's scope", at(resource.pos)),
			Hint:    "add scope=Cluster to +kubebuilder:resource, or remove +genclient:nonNamespaced"})
	}
	return s
}

func splitList(s string) []string {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// listWatch reports whether the verbs the markers leave include list and
// watch, which an informer needs.
func (s selection) listWatch() bool {
	if s.noVerbs {
		return false
	}
	if s.onlyVerbs != nil {
		return slices.Contains(s.onlyVerbs, "list") && slices.Contains(s.onlyVerbs, "watch")
	}
	return !slices.Contains(s.skipVerbs, "list") && !slices.Contains(s.skipVerbs, "watch")
}
