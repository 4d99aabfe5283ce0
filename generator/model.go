package generator

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"
	gengonamer "k8s.io/gengo/v2/namer"
	gengotypes "k8s.io/gengo/v2/types"
	"k8s.io/klog/v2"
)

// Model is what the render stage sees: groups, versions, kinds and indexes,
// plain data with no go/types in it. Everything is sorted. Model and its parts
// are exported for the templates only; they are not a stable API.
type Model struct {
	OutputPkg string
	Groups    []*Group
}

// Group is one API group, e.g. samplecontroller.example.com.
type Group struct {
	Name     string // API group, "" for the core group
	GoName   string // accessor name: Samplecontroller
	PkgName  string // output package (directory) name: samplecontroller
	Versions []*Version
	pos      token.Position // of +groupName, or of the package clause
}

// Version is one group-version, backed by one API package.
type Version struct {
	Group   *Group
	Name    string // v1alpha1
	GoName  string // V1alpha1
	APIPath string // import path of the API package
	GVVar   string // SchemeGroupVersion or GroupVersion
	Kinds   []*Kind
}

// Kind is one selected type.
type Kind struct {
	Version    *Version
	Name       string // Foo
	Plural     string // Foos (Go accessor)
	Resource   string // foos
	Namespaced bool
	Informer   bool // false with +k8s:informer-gen=false: lister only
	// PointerItems is true when the list type declares Items []*Kind
	// rather than []Kind (istio's and other large API modules' style).
	PointerItems bool
	Indexes      []*Index
	pos          token.Position
}

// Index is one +informer-gen:index on a kind.
type Index struct {
	Kind   *Kind
	Name   string // index name, "Node"
	GoName string // "Node"
	Source string // ".spec.nodeName" or "FooOwnerIndex"
	Match  string // how a value matches, for docs: "whose .spec.nodeName is"
	Func   string // name of the API package func for func indexes
	Body   string // Go statements of the index func for field indexes
	pos    token.Position
}

// Template helpers: small methods so templates hold no logic.

func (g *Group) NameQ() string { return strconv.Quote(g.Name) }
func (v *Version) InformerKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if k.Informer {
			out = append(out, k)
		}
	}
	return out
}

// LowerName is the kind with a lower-case first letter, for unexported names.
func (k *Kind) LowerName() string { return lowerFirst(k.Name) }

// LowerCase is the kind in lower case, as in upstream's <kind>_expansion.go.
func (k *Kind) LowerCase() string { return strings.ToLower(k.Name) }

// ResourceQ is the resource as a Go string literal.
func (k *Kind) ResourceQ() string { return strconv.Quote(k.Resource) }

// NameQ is the index name as a Go string literal.
func (ix *Index) NameQ() string { return strconv.Quote(ix.Name) }

// ConstName is the generated const holding the index name (FooNodeIndex).
func (ix *Index) ConstName() string { return ix.Kind.Name + ix.GoName + "Index" }

// FuncName is the generated index func (FooNodeIndexFunc).
func (ix *Index) FuncName() string { return ix.Kind.Name + ix.GoName + "IndexFunc" }

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	// "URLMap" -> "urlMap" would need more care; upstream uses the same
	// simple rule (namer.IL) for private names.
	return gengonamer.IL(s)
}

// buildModel is the model stage: markers and types of every input package
// become a Model. All problems are collected into diags.
func buildModel(logger klog.Logger, l *loaded, cfg Config, outputPkg string, rel func(string) string) (*Model, Diagnostics) {
	var diags Diagnostics
	exceptions := cfg.pluralExceptions()
	pluralGo := gengonamer.NewPublicPluralNamer(exceptions)
	pluralRes := gengonamer.NewAllLowercasePluralNamer(exceptions)
	groups := map[string]*Group{} // by API group name
	type gvKey struct{ group, version string }
	seenGV := map[gvKey]*Version{}
	var unselected Diagnostics
	selectedAny := false
	explicit := explicitInputs(cfg)

	posOf := func(p token.Pos) token.Position {
		pos := l.fset.Position(p)
		pos.Filename = rel(pos.Filename)
		pos.Offset = 0
		return pos
	}

	for _, pkg := range l.pkgs {
		pm, ds := collectMarkers(l.fset, pkg.Syntax, rel)
		diags = append(diags, ds...)
		pkgPos := packagePos(pkg, posOf)

		// Group and version: +groupName, else the group the package
		// declares in SchemeGroupVersion / GroupVersion, else the parent
		// directory (upstream's default).
		groupName := path.Base(path.Dir(pkg.PkgPath))
		groupPos := pkgPos
		var goNameOverride string
		var groupMarker *marker
		for _, m := range pm.pkg {
			switch m.name {
			case "groupName":
				switch {
				case groupMarker == nil:
					groupMarker = &m
				case groupMarker.value != m.value:
					diags = append(diags, Diagnostic{Pos: m.pos,
						Message: fmt.Sprintf("+groupName is given twice, as %q and as %q at %s", m.value, groupMarker.value, posString(groupMarker.pos)),
						Hint:    "keep one +groupName in the package comment"})
				}
			case "groupGoName":
				goNameOverride = m.value
			}
		}
		declared, hasDeclared := declaredGroup(pkg, posOf)
		switch {
		case groupMarker != nil:
			groupName, groupPos = groupMarker.value, groupMarker.pos
			if hasDeclared && declared.group != groupName {
				diags = append(diags, Diagnostic{Pos: groupMarker.pos,
					Message: fmt.Sprintf("+groupName=%s differs from the group %q declared by %s at %s", groupName, declared.group, declared.varName, posString(declared.pos)),
					Hint:    "objects are registered under the declared group; make the two equal"})
			}
		case hasDeclared:
			groupName, groupPos = declared.group, declared.pos
		}
		nonEmpty := groupName
		if nonEmpty == "" {
			nonEmpty = "core"
		}
		goName := goIdentifier(strings.Split(nonEmpty, ".")[0])
		if goNameOverride != "" {
			goName = goIdentifier(goNameOverride)
		}
		if !token.IsIdentifier(goName) {
			diags = append(diags, Diagnostic{Pos: groupPos,
				Message: fmt.Sprintf("group %q has no usable Go name (got %q)", groupName, goName),
				Hint:    "set +groupGoName=SomeName in the package comment"})
			continue
		}
		version := &Version{
			Name:    path.Base(pkg.PkgPath),
			APIPath: pkg.PkgPath,
		}
		version.GoName = gengonamer.IC(version.Name)

		// Kinds.
		scope := pkg.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok {
				continue
			}
			ms := pm.types[name]
			k, ds, skip := selectKind(pkg, named, ms, posOf, pluralGo, pluralRes)
			diags = append(diags, ds...)
			if skip != "" {
				p := posOf(named.Obj().Pos())
				logger.V(1).Info("skipping type: "+skip, "type", name, "pos", fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column))
			}
			if k != nil {
				k.Version = version
				version.Kinds = append(version.Kinds, k)
			}
		}
		switch {
		case isGroupVersionVar(scope, "SchemeGroupVersion"):
			version.GVVar = "SchemeGroupVersion"
		case isGroupVersionVar(scope, "GroupVersion"):
			version.GVVar = "GroupVersion"
		}
		registered := version.GVVar != ""
		byResource := map[string]*Kind{}
		for _, k := range version.Kinds {
			if prev := byResource[k.Resource]; prev != nil {
				diags = append(diags, Diagnostic{Pos: k.pos,
					Message: fmt.Sprintf("types %s and %s both map to the resource %q", prev.Name, k.Name, k.Resource),
					Hint:    "set +resourceName on one of them"})
			}
			byResource[k.Resource] = k
		}
		if len(version.Kinds) == 0 {
			// An API package without list/watch types (k8s.io/api's
			// admission/v1) is fine beside others; a package named on the
			// command line that is no API package at all is a mistake, and
			// so is a run that selects nothing.
			empty := Diagnostic{Pos: pkgPos,
				Message: fmt.Sprintf("package %s has no selected types", pkg.Types.Name()),
				Hint:    "mark a type with +genclient or +kubebuilder:object:root=true"}
			if !registered && explicit(pkg) {
				diags = append(diags, empty)
			} else {
				unselected = append(unselected, empty)
			}
			continue
		}
		selectedAny = true

		// Registration.
		if v, ok := scope.Lookup("GroupVersion").(*types.Var); ok && !registered {
			diags = append(diags, Diagnostic{Pos: posOf(v.Pos()),
				Message: fmt.Sprintf("package %s declares GroupVersion of type %s, not schema.GroupVersion, and no SchemeGroupVersion", pkg.Types.Name(), types.TypeString(v.Type(), metav1Qualifier)),
				Hint:    `declare var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "` + version.Name + `"}`})
		} else if !registered {
			diags = append(diags, Diagnostic{Pos: pkgPos,
				Message: fmt.Sprintf("package %s declares neither SchemeGroupVersion nor GroupVersion", pkg.Types.Name()),
				Hint:    `declare var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "` + version.Name + `"}`})
		}
		if !isAddToScheme(scope.Lookup("AddToScheme")) {
			diags = append(diags, Diagnostic{Pos: pkgPos,
				Message: fmt.Sprintf("package %s declares no AddToScheme func(*runtime.Scheme) error", pkg.Types.Name()),
				Hint:    "declare var AddToScheme = SchemeBuilder.AddToScheme"})
		}

		g := groups[groupName]
		if g == nil {
			g = &Group{Name: groupName, GoName: goName, PkgName: groupPkgName(goName, pkg.PkgPath), pos: groupPos}
			groups[groupName] = g
		}
		version.Group = g
		if prev := seenGV[gvKey{groupName, version.Name}]; prev != nil {
			diags = append(diags, Diagnostic{Pos: pkgPos,
				Message: fmt.Sprintf("group version %s/%s is already declared by package %s", nonEmpty, version.Name, prev.APIPath)})
			continue
		}
		seenGV[gvKey{groupName, version.Name}] = version
		g.Versions = append(g.Versions, version)
	}

	if !selectedAny && len(diags) == 0 {
		// Secondary when a type failed its checks.
		diags = append(diags, unselected...)
	}

	// Two API groups must not share a Go name: their accessors and output
	// packages would collide.
	byGoName := map[string][]*Group{}
	for _, g := range groups {
		byGoName[g.PkgName] = append(byGoName[g.PkgName], g)
	}
	for _, gs := range byGoName {
		if len(gs) < 2 {
			continue
		}
		slices.SortFunc(gs, func(a, b *Group) int { return strings.Compare(a.Name, b.Name) })
		for i, g := range gs {
			other := gs[(i+1)%len(gs)]
			diags = append(diags, Diagnostic{Pos: g.pos,
				Message: fmt.Sprintf("groups %q and %q both map to the Go name %s", g.Name, other.Name, g.GoName),
				Hint:    "set +groupGoName in one package comment to tell them apart"})
		}
	}

	m := &Model{OutputPkg: outputPkg}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		slices.SortFunc(g.Versions, func(a, b *Version) int { return strings.Compare(a.Name, b.Name) })
		m.Groups = append(m.Groups, g)
	}
	slices.SortFunc(m.Groups, func(a, b *Group) int { return strings.Compare(a.PkgName, b.PkgName) })
	return m, diags
}

// goIdentifier turns a DNS label such as "my-group" into an exported Go
// name ("MyGroup"): upstream's namer.IC alone would keep the dash.
func goIdentifier(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		switch {
		case r == '-' || r == '_' || r == '.':
			up = true
		case up:
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// groupPkgName is the output directory (and package name) of a group: its
// Go name in lower case, or — when that is a name the go command treats
// specially, as k8s.io/api's "internal.apiserver.k8s.io" would be — the
// directory of the API package's group, as upstream names it
// (apiserverinternal).
func groupPkgName(goName, apiPath string) string {
	name := strings.ToLower(goName)
	if !reservedDir(name) {
		return name
	}
	if dir := path.Base(path.Dir(apiPath)); !reservedDir(dir) {
		return dir
	}
	return name + "group"
}

func reservedDir(name string) bool {
	return !token.IsIdentifier(name) || token.IsKeyword(name) ||
		name == "internal" || name == "vendor" || name == "testdata"
}

// explicitInputs returns a func reporting whether a package was named on
// the command line by itself, rather than matched by a ... pattern.
func explicitInputs(cfg Config) func(*packages.Package) bool {
	paths, dirs := map[string]bool{}, map[string]bool{}
	for _, in := range cfg.Inputs {
		switch {
		case strings.Contains(in, "..."):
		case isLocalPattern(in):
			dirs[filepath.Clean(abs(cfg.WorkDir, in))] = true
		default:
			paths[in] = true
		}
	}
	return func(p *packages.Package) bool {
		if paths[p.PkgPath] {
			return true
		}
		return len(p.GoFiles) > 0 && dirs[filepath.Dir(p.GoFiles[0])]
	}
}

// packagePos is the package clause of doc.go, or of the first file.
func packagePos(pkg *packages.Package, posOf func(token.Pos) token.Position) token.Position {
	var best token.Position
	for _, f := range pkg.Syntax {
		p := posOf(f.Package)
		if strings.HasSuffix(p.Filename, "doc.go") {
			return p
		}
		if best.Filename == "" || p.Filename < best.Filename {
			best = p
		}
	}
	return best
}

func posString(p token.Position) string { return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column) }

// groupDecl is the group a package declares in its GroupVersion variable.
type groupDecl struct {
	group   string
	varName string         // SchemeGroupVersion or GroupVersion
	pos     token.Position // of the Group value
}

// declaredGroup reads the Group of "var SchemeGroupVersion =
// schema.GroupVersion{Group: ...}" (upstream) or of kubebuilder's
// GroupVersion, when it is a constant expression.
func declaredGroup(pkg *packages.Package, posOf func(token.Pos) token.Position) (groupDecl, bool) {
	if pkg.TypesInfo == nil {
		return groupDecl{}, false
	}
	found := map[string]groupDecl{}
	for _, f := range pkg.Syntax {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.VAR {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if (n.Name != "SchemeGroupVersion" && n.Name != "GroupVersion") || i >= len(vs.Values) {
						continue
					}
					lit, ok := ast.Unparen(vs.Values[i]).(*ast.CompositeLit)
					if !ok {
						continue
					}
					var expr ast.Expr
					for j, e := range lit.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Group" {
								expr = kv.Value
							}
						} else if j == 0 {
							expr = e
						}
					}
					if expr == nil {
						continue
					}
					tv, ok := pkg.TypesInfo.Types[expr]
					if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
						continue
					}
					found[n.Name] = groupDecl{group: constant.StringVal(tv.Value), varName: n.Name, pos: posOf(expr.Pos())}
				}
			}
		}
	}
	if d, ok := found["SchemeGroupVersion"]; ok {
		return d, true
	}
	d, ok := found["GroupVersion"]
	return d, ok
}

// metav1Qualifier names packages in messages as API code imports them:
// metav1 for apimachinery's meta/v1.
func metav1Qualifier(p *types.Package) string {
	if p.Path() == metav1Path {
		return "metav1"
	}
	return p.Name()
}

// isGroupVersionVar reports whether scope declares name as a variable of
// type schema.GroupVersion, which generated code calls WithResource on.
// register-gen's GroupVersion is a metav1.GroupVersion, which has no such
// method: only its SchemeGroupVersion serves.
func isGroupVersionVar(scope *types.Scope, name string) bool {
	v, ok := scope.Lookup(name).(*types.Var)
	if !ok {
		return false
	}
	n, ok := v.Type().(*types.Named)
	return ok && n.Obj().Name() == "GroupVersion" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == schemaPath
}

// isAddToScheme accepts a func or func-typed var with one param and an error
// result, as SchemeBuilder.AddToScheme is.
func isAddToScheme(obj types.Object) bool {
	if obj == nil {
		return false
	}
	sig, ok := obj.Type().Underlying().(*types.Signature)
	if !ok || sig.Params().Len() != 1 || sig.Results().Len() != 1 {
		return false
	}
	return sig.Results().At(0).Type().String() == "error"
}

// selection is what a type's markers say about it.
type selection struct {
	genclient, root, clusterScoped, noVerbs bool
	noInformer, noLister                    bool
	onlyVerbs, skipVerbs                    []string
	resource                                string
	indexes                                 []marker
	// conflicts are markers that contradict each other: upstream and
	// kubebuilder spellings of the same setting with different values.
	conflicts Diagnostics
}

func readSelection(ms []marker) selection {
	var s selection
	var resourceName, nonNamespaced *marker
	var path, scope *markerArg
	for _, m := range ms {
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
			for _, a := range m.args {
				switch a.key {
				case "scope":
					scope = &a
				case "path":
					path = &a
				}
			}
		case "informer-gen:index":
			s.indexes = append(s.indexes, m)
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

// selectKind decides whether named is generated for and checks it. skip,
// when set, says why a type with a selecting marker is not generated for
// (not an error: for -v).
func selectKind(pkg *packages.Package, named *types.Named, ms []marker, posOf func(token.Pos) token.Position,
	pluralGo, pluralRes gengonamer.Namer) (k *Kind, diags Diagnostics, skip string) {
	name := named.Obj().Name()
	pos := posOf(named.Obj().Pos())
	s := readSelection(ms)
	st, isStruct := named.Underlying().(*types.Struct)
	list := isStruct && isListType(st)
	selected := (s.genclient || s.root) && isStruct && !list && s.listWatch() && !s.noLister
	if !selected {
		var diags Diagnostics
		for _, m := range s.indexes {
			diags = append(diags, Diagnostic{Pos: m.pos,
				Message: fmt.Sprintf("marker +informer-gen:index is in the wrong place: type %s is not selected for generation", name),
				Hint:    "mark the type with +genclient or +kubebuilder:object:root=true, with list and watch verbs"})
		}
		return nil, diags, ""
	}
	if len(findObjectMeta(st).steps) == 0 && !s.genclient && len(s.indexes) == 0 {
		// controller-gen's object:root also marks types that are not
		// resources (cluster-api's hook request and response types,
		// admission reviews): no ObjectMeta, no list, nothing to watch.
		return nil, nil, "+kubebuilder:object:root=true type without metav1.ObjectMeta is not a resource"
	}
	scope := pkg.Types.Scope()
	listName := name + "List"
	lt, _ := scope.Lookup(listName).(*types.TypeName)
	if lt == nil && !s.genclient && len(s.indexes) == 0 {
		// controller-gen makes a CRD of any root type with ObjectMeta
		// (a component Config, a singleton), but without a Go list type
		// there is nothing to decode a LIST into: not a listed resource.
		// +genclient or an index asks for it explicitly, and then the
		// missing list is an error below.
		return nil, nil, "+kubebuilder:object:root=true type without a list type " + listName + " cannot be listed and watched"
	}

	if !named.Obj().Exported() {
		// Generated code lives in other packages and could not name it.
		diags = append(diags, Diagnostic{Pos: pos,
			Message: fmt.Sprintf("type %s is not exported: the generated listers and informers cannot refer to it", name),
			Hint:    "export the type, or remove its +genclient / +kubebuilder:object:root marker"})
		return nil, diags, ""
	}
	diags = append(diags, s.conflicts...)
	diags = append(diags, checkObjectMeta(st, name, pos, posOf)...)
	var pointerItems bool
	switch {
	case lt == nil:
		diags = append(diags, Diagnostic{Pos: pos,
			Message: fmt.Sprintf("type %s has no list type %s", name, listName),
			Hint:    fmt.Sprintf("declare type %s struct { metav1.TypeMeta; metav1.ListMeta; Items []%s }", listName, name)})
	default:
		ok, ptr := itemsOf(lt.Type(), named)
		if !ok {
			diags = append(diags, Diagnostic{Pos: posOf(lt.Pos()),
				Message: fmt.Sprintf("list type %s has no field Items []%s or Items []*%s", listName, name, name)})
			break
		}
		pointerItems = ptr
		if !hasMethod(lt.Type(), "DeepCopyObject") {
			diags = append(diags, Diagnostic{Pos: posOf(lt.Pos()),
				Message: fmt.Sprintf("type %s has no DeepCopyObject method", listName),
				Hint:    "generate deepcopy funcs with deepcopy-gen or controller-gen object"})
		}
	}
	if !hasMethod(named, "DeepCopy") || !hasMethod(named, "DeepCopyObject") {
		diags = append(diags, Diagnostic{Pos: pos,
			Message: fmt.Sprintf("type %s has no DeepCopy and DeepCopyObject methods", name),
			Hint:    "generate deepcopy funcs with deepcopy-gen or controller-gen object"})
	}

	t := &gengotypes.Type{Name: gengotypes.Name{Name: name}}
	k = &Kind{
		Name:         name,
		Plural:       pluralGo.Name(t),
		Resource:     pluralRes.Name(t),
		Namespaced:   !s.clusterScoped,
		Informer:     !s.noInformer,
		PointerItems: pointerItems,
		pos:          pos,
	}
	if s.resource != "" {
		k.Resource = s.resource
	}
	seen := map[string]*Index{}
	for _, m := range s.indexes {
		ix, ds := buildIndex(pkg, named, m)
		diags = append(diags, ds...)
		if ix == nil {
			continue
		}
		ix.Kind = k
		if prev := seen[ix.GoName]; prev != nil {
			diags = append(diags, Diagnostic{Pos: m.pos,
				Message: fmt.Sprintf("duplicate index name %q on type %s", ix.Name, name),
				Hint:    fmt.Sprintf("first declared at %s:%d:%d", prev.pos.Filename, prev.pos.Line, prev.pos.Column)})
			continue
		}
		seen[ix.GoName] = ix
		k.Indexes = append(k.Indexes, ix)
	}
	slices.SortFunc(k.Indexes, func(a, b *Index) int { return strings.Compare(a.GoName, b.GoName) })
	return k, diags, ""
}

func isListType(st *types.Struct) bool {
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Name() == "Items" {
			_, ok := f.Type().Underlying().(*types.Slice)
			if ok {
				return true
			}
		}
	}
	return false
}

// itemsOf reports whether list has a field Items []item or Items []*item,
// and which.
func itemsOf(list types.Type, item *types.Named) (ok, pointer bool) {
	st, isStruct := list.Underlying().(*types.Struct)
	if !isStruct {
		return false, false
	}
	for i := range st.NumFields() {
		f := st.Field(i)
		if f.Name() != "Items" {
			continue
		}
		sl, isSlice := f.Type().(*types.Slice)
		if !isSlice {
			return false, false
		}
		if types.Identical(sl.Elem(), item) {
			return true, false
		}
		if p, isPtr := sl.Elem().(*types.Pointer); isPtr && types.Identical(p.Elem(), item) {
			return true, true
		}
		return false, false
	}
	return false, false
}

func hasMethod(t types.Type, name string) bool {
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := range ms.Len() {
		if ms.At(i).Obj().Name() == name {
			return true
		}
	}
	return false
}
