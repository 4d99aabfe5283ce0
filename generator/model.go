package generator

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/gobuffalo/flect"
	gengonamer "k8s.io/gengo/v2/namer"
	"k8s.io/klog/v2"
)

// Model is what the render stage sees: groups, versions, kinds and indexes,
// plain data with no go/types in it. Everything is sorted. Model and its parts
// are exported for the templates only; they are not a stable API.
type Model struct {
	OutputPkg string
	Groups    []*Group
	// jsonDecoders is Config.JSONDecoders.
	jsonDecoders string
}

// Group is one API group, e.g. samplecontroller.example.com.
type Group struct {
	Name     string // API group, "" for the core group
	GoName   string // accessor name: Samplecontroller
	PkgName  string // output package (directory) name: samplecontroller
	Versions []*Version
	pos      token.Position // of +groupName, or of the package clause
	// dirGoName and dirPkgName are the Go name and output package the
	// group takes when its Go name collides with another group's and
	// nothing named it (no +groupName, +groupGoName or --group-go-name):
	// upstream's, from the API package's directory (Flagger's
	// gateway.networking.k8s.io in gatewayapi/ is Gatewayapi() beside
	// gateway.solo.io's Gateway()). "" when something named it.
	dirGoName, dirPkgName string
}

// Version is one group-version, backed by one API package or by several:
// packages that declare the same group version with different kinds (Dapr's
// components and configuration packages, both dapr.io/v1alpha1; Flux's
// image-reflector and image-automation APIs, both image.toolkit.fluxcd.io/v1)
// make one version, as the API server serves their kinds under one group
// version. Each kind knows its own package (Kind.APIPath).
type Version struct {
	Group  *Group
	Name   string // v1alpha1
	GoName string // V1alpha1
	// APIPath is the import path of the API package, the first by import
	// path when there are several.
	APIPath string
	GVVar   string // SchemeGroupVersion or GroupVersion, of APIPath's package
	// APIGroup is the group the server serves the kinds under: the group
	// GVVar declares, which AddToScheme registers them with and the
	// generated informers list and watch (upstream's clientset too), else
	// Group.Name. It differs from Group.Name only in a package whose
	// +groupName differs from its declared group (katib's); then
	// +groupName names the accessor and the output package, as upstream.
	APIGroup string
	// Registers is set when an API package of the version declares no
	// usable group version or AddToScheme but +groupName names its group:
	// the generated informers.go declares both (groupVersion, addToScheme)
	// and registers that package's kinds and their lists itself.
	Registers bool
	Kinds     []*Kind
}

// Merged reports whether more than one API package declares the version's
// kinds.
func (v *Version) Merged() bool {
	return slices.ContainsFunc(v.Kinds, func(k *Kind) bool { return k.APIPath() != v.APIPath })
}

// OwnScheme reports whether the generated informers.go declares the
// addToScheme every Type of the version uses: when a package registers its
// kinds in an init() (Registers), when several packages declare them
// (Merged), or when a package's AddToScheme leaves a kind out (LeftOut).
func (v *Version) OwnScheme() bool { return v.Registers || v.Merged() || len(v.LeftOut()) > 0 }

// apiPackage is the API package a kind is declared in, as the generated
// code refers to it.
type apiPackage struct {
	path  string // import path
	gvVar string // its group version var, SchemeGroupVersion or GroupVersion
	// registers: the package declares no usable group version or
	// AddToScheme, and the generated informers.go registers its kinds (see
	// Version.Registers).
	registers bool
}

// NameQ is the version as a Go string literal.
func (v *Version) NameQ() string { return strconv.Quote(v.Name) }

// APIGroupQ is APIGroup as a Go string literal.
func (v *Version) APIGroupQ() string { return strconv.Quote(v.APIGroup) }

// Kind is one selected type.
type Kind struct {
	Version    *Version
	Name       string // Foo
	Plural     string // Foos (Go accessor)
	Resource   string // foos
	Namespaced bool
	Informer   bool // false with +k8s:informer-gen=false: lister only
	Indexes    []*Index
	// ProjectionOnly is set for a kind of a package named only by
	// --projection: it gets no lister or informer, only its projections.
	ProjectionOnly bool
	// Projections are the kind's +informer-gen:projection markers and
	// --projection flags, in the order given.
	Projections []*Projection
	named       *types.Named // for the decoder stage
	pos         token.Position
	api         *apiPackage
	// kind is the kind the server serves the type as: Name, unless the
	// package registers it under another (registrations.kinds).
	kind string
	// leftOut: the kind's package has an AddToScheme and registers types,
	// but names neither the kind nor its list, so the generated
	// addToScheme registers them (Version.LeftOut).
	leftOut bool
}

// APIPath is the import path of the API package that declares the kind.
func (k *Kind) APIPath() string { return k.api.path }

// GVVar is the group version var of the kind's API package
// (SchemeGroupVersion or GroupVersion), "" when Registers.
func (k *Kind) GVVar() string { return k.api.gvVar }

// Registers reports whether the generated informers.go registers the kind
// (its package declares no usable group version or AddToScheme).
func (k *Kind) Registers() bool { return k.api.registers }

// Index is one +informer-gen:index on a kind.
type Index struct {
	Kind   *Kind
	Name   string     // index name, "Node"
	GoName string     // "Node"
	Source string     // ".spec.nodeName" or "FooOwnerIndex"
	Match  string     // how a value matches, for docs: "whose .spec.nodeName is"
	Func   string     // name of the API package func for func indexes
	Field  *FieldPath // what a field index reads; nil for func indexes
	// Projection is set for the copy of a kind's field index a projection
	// holding its path inherits (Field then reads the projection).
	Projection *Projection
	pos        token.Position
}

// FieldPath is what the index func of a field index reads from obj: the
// fields of the path, then a string-like leaf.
type FieldPath struct {
	// Steps are the fields the path goes through, one per path segment.
	Steps []FieldStep
	Leaf  Leaf
	// Convert is set when the leaf's strings are of a named string type,
	// converted with string(x).
	Convert bool
}

// FieldStep is one segment of a field path.
type FieldStep struct {
	// Selector is the Go expression of the field, from obj
	// (obj.Spec.Target; more than one name for a field promoted from an
	// embedded struct).
	Selector string
	// Pointer is set when the field is a pointer to a struct the path goes
	// on through: a nil one means the object has no values.
	Pointer bool
}

// Leaf is the shape of the field a field path ends in.
type Leaf string

const (
	LeafString       Leaf = "string"       // a string: one value
	LeafPointer      Leaf = "pointer"      // a *string: one value, none when nil
	LeafSlice        Leaf = "slice"        // a []string: its values
	LeafPointerSlice Leaf = "pointerSlice" // a []*string: the values of its non-nil elements
)

// Selector is the Go expression of the leaf.
func (fp *FieldPath) Selector() string { return fp.Steps[len(fp.Steps)-1].Selector }

// NilChecks are the steps that must be checked for nil before the leaf is
// read, in order.
func (fp *FieldPath) NilChecks() []FieldStep {
	var out []FieldStep
	for _, s := range fp.Steps {
		if s.Pointer {
			out = append(out, s)
		}
	}
	return out
}

// Template helpers: small methods so templates hold no logic.

// ListerKinds are the kinds that get listers (all but the ProjectionOnly
// ones).
func (v *Version) ListerKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if !k.ProjectionOnly {
			out = append(out, k)
		}
	}
	return out
}

// LeftOut are the kinds with listers that their package's AddToScheme
// leaves out (Cilium's v2alpha1 CiliumCIDRGroup, +genclient and served by
// its CRD, which the package stopped registering when the kind moved to
// v2): the generated addToScheme registers them and their lists after
// calling it, since the factory decodes a kind through the scheme its
// Type's AddToScheme builds.
func (v *Version) LeftOut() []*Kind {
	var out []*Kind
	for _, k := range v.ListerKinds() {
		if k.leftOut {
			out = append(out, k)
		}
	}
	return out
}

// ProjectionOnlyKinds are the kinds that are there only for their
// projections.
func (v *Version) ProjectionOnlyKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if k.ProjectionOnly {
			out = append(out, k)
		}
	}
	return out
}

// InformerKinds are the kinds that get informers.
func (v *Version) InformerKinds() []*Kind {
	var out []*Kind
	for _, k := range v.Kinds {
		if k.Informer && !k.ProjectionOnly {
			out = append(out, k)
		}
	}
	return out
}

// Projections are the projections of every kind of v, sorted by name.
func (v *Version) Projections() []*Projection {
	var out []*Projection
	for _, k := range v.Kinds {
		out = append(out, k.Projections...)
	}
	slices.SortFunc(out, func(a, b *Projection) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// HasInformers reports whether v has informers: of kinds or of projections.
func (v *Version) HasInformers() bool { return len(v.InformerKinds()) > 0 || len(v.Projections()) > 0 }

// LowerName is the kind with a lower-case first letter, for unexported names.
func (k *Kind) LowerName() string { return lowerFirst(k.Name) }

// LowerCase is the kind in lower case, as in upstream's <kind>_expansion.go.
func (k *Kind) LowerCase() string { return strings.ToLower(k.Name) }

// ResourceQ is the resource as a Go string literal.
func (k *Kind) ResourceQ() string { return strconv.Quote(k.Resource) }

// NameQ is the index name as a Go string literal.
func (ix *Index) NameQ() string { return strconv.Quote(ix.Name) }

// ConstName is the generated const holding the index name (FooNodeIndex).
func (ix *Index) ConstName() string { return ix.owner() + ix.GoName + "Index" }

// FuncName is the generated index func (FooNodeIndexFunc).
func (ix *Index) FuncName() string { return ix.owner() + ix.GoName + "IndexFunc" }

// owner is the type the index is on: the kind, or the projection of it
// that inherited it.
func (ix *Index) owner() string {
	if ix.Projection != nil {
		return ix.Projection.Name
	}
	return ix.Kind.Name
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	// "URLMap" -> "urlMap" would need more care; upstream uses the same
	// simple rule (namer.IL) for private names.
	return gengonamer.IL(s)
}

// modelOptions is what the model stage takes from the command line.
type modelOptions struct {
	outputPkg string
	// pluralExceptions maps a kind to its plural Go name, defaults
	// included.
	pluralExceptions map[string]string
	// jsonDecoders is Config.JSONDecoders.
	jsonDecoders string
	// projections are Config.Projections.
	projections []ProjectionFlag
	// groupGoNames are Config.GroupGoNames.
	groupGoNames map[string]string
}

// kindNamers name a kind's plural: the Go accessor (Foos) and the resource
// (foos), gengo's English rules with the plural exceptions, as upstream's
// client-gen and informer-gen name them; and the resource of a kind whose
// CRD controller-gen makes (crdResource).
type kindNamers struct {
	plural, resource gengonamer.Namer
	// exceptions are the plural exceptions, defaults included.
	exceptions map[string]string
}

// crdResource is the resource of a kind selected by kubebuilder's markers:
// the plural controller-gen gives its CRD when no
// +kubebuilder:resource:path says otherwise,
// strings.ToLower(flect.Pluralize(kind)) (controller-tools' crd.spec.go),
// which differs from gengo's English rules (PodChaos: podchaos, not
// podchaoses; Index: indices). A --plural-exceptions entry for the kind
// wins over both.
func (n kindNamers) crdResource(kind string) string {
	if p, ok := n.exceptions[kind]; ok {
		return strings.ToLower(p)
	}
	return strings.ToLower(flect.Pluralize(kind))
}

// internalVersion is runtime.APIVersionInternal, the version of a hub
// package's SchemeGroupVersion.
const internalVersion = "__internal"

// groupVersion keys the versions seen so far.
type groupVersion struct{ group, version string }

// buildModel is the model stage: the marked input packages become a Model.
// Every problem is collected into diags. unselected are the secondary
// diagnostics of a run that selects no type at all ("package x has no
// selected types"): Run reports them only when nothing else is wrong.
func buildModel(logger klog.Logger, in *marked, opts modelOptions) (m *Model, diags, unselected Diagnostics) {
	namers := kindNamers{
		plural:     gengonamer.NewPublicPluralNamer(opts.pluralExceptions),
		resource:   gengonamer.NewAllLowercasePluralNamer(opts.pluralExceptions),
		exceptions: opts.pluralExceptions,
	}
	groups := map[string]*Group{} // by API group name
	seen := map[groupVersion]*Version{}
	var crds crdIndex // the CRD manifests of the inputs' modules
	selectedAny := false
	// emptyExplicit: packages named on the command line that select nothing,
	// and hub packages; warnings when other packages select kinds.
	var emptyExplicit Diagnostics
	for _, mp := range in.pkgs {
		pkgPos := packagePos(mp.pkg, in.position)
		g, apiGroup, mismatch, ds := groupOf(mp, pkgPos, in.position, opts.groupGoNames)
		diags = append(diags, ds...)
		if g == nil {
			continue
		}
		v := &Version{
			Name:     path.Base(mp.pkg.PkgPath),
			APIPath:  mp.pkg.PkgPath,
			GVVar:    groupVersionVar(mp.pkg.Types.Scope()),
			APIGroup: apiGroup,
		}
		v.GoName = gengonamer.IC(v.Name)
		kinds, ds := selectKinds(logger, mp, in.position, namers)
		decl, declared := declaredGroup(mp.pkg, in.position)
		if declared && decl.version == internalVersion {
			// A hub package (Volcano's pkg/apis/scheduling, kube-aggregator's
			// apiregistration): the types versions convert through in the
			// server, never served. Informers of them would list
			// .../__internal/... and get 404s for ever; what selectKinds
			// says of their types (internal ones often lack json tags)
			// does not matter either.
			if len(kinds) > 0 || len(ds) > 0 {
				var names []string
				for _, k := range kinds {
					names = append(names, k.Name)
				}
				which := "its types"
				if len(names) > 0 {
					which = "its kinds (" + strings.Join(names, ", ") + ")"
				}
				internal := Diagnostic{Pos: decl.versionPos,
					Message: fmt.Sprintf("package %s declares the internal version (runtime.APIVersionInternal) in %s: no API server serves it, so no listers or informers are generated for %s",
						mp.pkg.Types.Name(), decl.varName, which),
					Hint: "generate the versioned packages beside it, whose kinds the server serves"}
				unselected = append(unselected, internal)
				emptyExplicit = append(emptyExplicit, internal) // a warning when other packages select kinds
			}
			continue
		}
		diags = append(diags, ds...)
		diags = append(diags, addFlagProjections(mp, kinds, opts.projections, namers)...)
		if mp.projectionOnly {
			// Named only by --projection: its kinds are there for their
			// projections, not generated for themselves.
			kinds = slices.DeleteFunc(kinds, func(k *Kind) bool { return len(k.Projections) == 0 })
			for _, k := range kinds {
				k.ProjectionOnly = true
			}
		}
		if len(kinds) == 0 {
			// An API package without list/watch types (k8s.io/api's
			// admission/v1) is fine beside others; a package named on the
			// command line that is no API package at all is a mistake, and
			// so is a run that selects nothing.
			empty := Diagnostic{Pos: pkgPos,
				Message: fmt.Sprintf("package %s has no selected types", mp.pkg.Types.Name()),
				Hint:    "mark a type with +genclient or +kubebuilder:object:root=true; -v=1 says why each marked type was skipped"}
			switch {
			case v.GVVar == "" && mp.group.name == nil && mp.explicit:
				diags = append(diags, empty)
			case mp.explicit && !mp.projectionOnly:
				// Named on the command line by itself: never dropped
				// without a word, even when other packages select kinds.
				unselected = append(unselected, empty)
				emptyExplicit = append(emptyExplicit, empty)
			default:
				unselected = append(unselected, empty)
				logger.V(1).Info("package has no selected types", "package", mp.pkg.PkgPath)
			}
			continue
		}
		selectedAny = true
		if mismatch != nil {
			// Said only of a package with kinds: katib's common/v1beta1
			// (shared types) carries a +groupName of its own too.
			diags = append(diags, *mismatch)
		}
		for _, k := range kinds {
			k.Version = v
			k.kind = cmp.Or(mp.regs.kinds[k.Name], k.Name)
		}
		v.Kinds = kinds
		if ownRegistration(mp) {
			// The package registers its types only in an init() (into
			// client-go's scheme.Scheme), or is a user's shim of
			// aliases: the generated code declares the group version
			// and registers the kinds in the factory's scheme itself.
			v.Registers = true
			if len(mp.regs.versions) == 1 && mp.group.versionName == "" {
				v.Name = mp.regs.versions[0]
			}
			v.Name = cmp.Or(mp.group.versionName, v.Name)
			v.GoName = gengonamer.IC(v.Name)
			logger.V(1).Info("package declares no SchemeGroupVersion/GroupVersion and AddToScheme: the generated informers register its kinds themselves",
				"package", mp.pkg.PkgPath, "group", g.Name, "version", v.Name)
		} else {
			diags = append(diags, checkRegistration(mp.pkg, v, pkgPos, in.position)...)
			for _, k := range kinds {
				if mp.regs.visible() && !mp.regs.types[k.Name] {
					// Selected by +genclient or our markers (kind.go
					// skips a root-marker-only type its package does
					// not register): asked for, so registered here.
					k.leftOut = true
					logger.V(1).Info("the package's AddToScheme does not register the kind: the generated informers register it themselves",
						"package", mp.pkg.PkgPath, "kind", k.Name)
				}
			}
		}

		// The version the server serves the kinds under: the declared one
		// (KServe's gie/v1alpha2pool declares v1alpha2), else the name.
		servedVersion := v.Name
		if declared && decl.version != "" && !v.Registers {
			servedVersion = decl.version
		}
		diags = append(diags, applyCRDs(&crds, mp, v, servedVersion, opts.pluralExceptions)...)

		api := &apiPackage{path: v.APIPath, gvVar: v.GVVar, registers: v.Registers}
		for _, k := range kinds {
			k.api = api
		}

		if known := groups[g.Name]; known != nil {
			g = known
		} else {
			groups[g.Name] = g
		}
		v.Group = g
		key := groupVersion{g.Name, v.Name}
		if prev := seen[key]; prev != nil {
			// Another package of the same group version: its kinds join
			// the version's, unless the two disagree on what the server
			// serves them under or declare the same kind or resource.
			diags = append(diags, mergeVersion(prev, v, pkgPos)...)
			continue
		}
		seen[key] = v
		g.Versions = append(g.Versions, v)
	}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		for _, v := range groups[name].Versions {
			diags = append(diags, projectionCollisions(v.Kinds)...)
		}
	}
	if selectedAny {
		unselected = nil
		for _, d := range emptyExplicit {
			d.Warning = true
			diags = append(diags, d)
		}
	}
	diags = append(diags, unmatchedFlagProjections(in, opts.projections)...)
	for _, group := range slices.Sorted(maps.Keys(opts.groupGoNames)) {
		if groups[group] == nil {
			diags = append(diags, Diagnostic{Subject: "--group-go-name " + group + "=" + opts.groupGoNames[group],
				Message: fmt.Sprintf("no input package has the API group %q", group),
				Hint:    "name the group as its +groupName or SchemeGroupVersion gives it"})
		}
	}
	diags = append(diags, goNameCollisions(groups)...)
	m = sortedModel(opts.outputPkg, groups)
	for _, g := range m.Groups {
		for _, v := range g.Versions {
			// Named projv1 rather than v1 (the generated package's name) so that
			// decode.go imports it under that name, apart from the API package.
			pkg := types.NewPackage(projectionsPath(opts.outputPkg, v), "proj"+v.Name)
			for _, p := range v.Projections() {
				p.synthesize(pkg)
			}
		}
	}
	m.jsonDecoders = opts.jsonDecoders
	return m, diags, unselected
}

// mergeVersion adds the kinds of v, a package declaring the group version
// prev's packages declare, to prev. It adds nothing and reports why when
// the packages declare the group under different API groups (a +groupName
// that differs from one package's declared group: the server would serve
// them under two groups) or declare the same kind, accessor or resource: the
// generated listers and informers of one group version would collide, and
// the API server serves one type per resource.
func mergeVersion(prev, v *Version, pkgPos token.Position) Diagnostics {
	gv := prev.Group.DisplayName() + "/" + prev.Name
	if prev.APIGroup != v.APIGroup {
		return Diagnostics{{Pos: pkgPos,
			Message: fmt.Sprintf("group version %s is already declared by package %s, which declares the API group %q; this package declares %q",
				gv, prev.APIPath, prev.APIGroup, v.APIGroup),
			Hint: "declare the same group in both packages' SchemeGroupVersion, or give one of them another +groupName"}}
	}
	var diags Diagnostics
	for _, k := range v.Kinds {
		for _, o := range prev.Kinds {
			var msg, hint string
			switch {
			case k.Name == o.Name:
				msg = fmt.Sprintf("kind %s of %s is declared in package %s too", k.Name, gv, o.APIPath())
				hint = "leave one of the two packages out of the run, or generate each in a run of its own (with its own --output-dir)"
			case k.Resource == o.Resource:
				msg = fmt.Sprintf("kind %s maps to the resource %q of %s, as kind %s of package %s does", k.Name, k.Resource, gv, o.Name, o.APIPath())
				hint = "set +resourceName on one of them"
			case k.Plural == o.Plural:
				msg = fmt.Sprintf("kind %s's accessor %s() collides with that of kind %s of package %s in %s", k.Name, k.Plural, o.Name, o.APIPath(), gv)
				hint = "give one of them another plural with --plural-exceptions"
			default:
				continue
			}
			diags = append(diags, Diagnostic{Pos: k.pos, Message: msg, Hint: hint})
		}
	}
	if len(diags) > 0 {
		return diags
	}
	for _, k := range v.Kinds {
		k.Version = prev
	}
	prev.Kinds = append(prev.Kinds, v.Kinds...)
	slices.SortFunc(prev.Kinds, func(a, b *Kind) int { return strings.Compare(a.Name, b.Name) })
	prev.Registers = prev.Registers || v.Registers
	return nil
}

// groupOf resolves the API group of a package: +groupName, else the group
// the package declares in SchemeGroupVersion / GroupVersion, else the parent
// directory (upstream's default). The Group is nil when the group has no
// usable Go name. apiGroup is the group the server is asked for (see
// Version.APIGroup). A +groupName that differs from the declared group is
// what code-generator accepts (its clientset requests the declared group,
// its accessors are named by +groupName) and what published modules carry
// (katib), so it is a warning, returned apart for the caller to report
// only for a package with kinds.
func groupOf(mp markedPackage, pkgPos token.Position, posOf func(token.Pos) token.Position, goNames map[string]string) (g *Group, apiGroup string, mismatch *Diagnostic, diags Diagnostics) {
	name := path.Base(path.Dir(mp.pkg.PkgPath))
	pos := pkgPos
	declared, hasDeclared := declaredGroup(mp.pkg, posOf)
	switch m := mp.group.name; {
	case m != nil:
		name, pos = m.value, m.pos
		if hasDeclared && declared.group != name {
			mismatch = &Diagnostic{Pos: m.pos, Warning: true,
				Message: fmt.Sprintf("+groupName=%s differs from the group %q declared by %s at %s: the informers list and watch %s, as code-generator's clientset does; +groupName only names the accessor and the output package",
					name, declared.group, declared.varName, posString(declared.pos), declared.group),
				Hint: "in a package of your own, make the two equal"}
		}
	case hasDeclared:
		name, pos = declared.group, declared.pos
	}
	apiGroup = name
	if hasDeclared {
		apiGroup = declared.group
	}
	g = &Group{Name: name, pos: pos}
	goName := goIdentifier(strings.Split(g.DisplayName(), ".")[0])
	if mp.group.goName != "" {
		goName = goIdentifier(mp.group.goName)
	}
	if n, ok := goNames[name]; ok {
		goName = n
	}
	if !token.IsIdentifier(goName) {
		return nil, "", nil, append(diags, Diagnostic{Pos: pos,
			Message: fmt.Sprintf("group %q has no usable Go name (got %q)", name, goName),
			Hint:    "set +groupGoName=SomeName in the package comment"})
	}
	g.GoName, g.PkgName = goName, groupPkgName(goName, mp.pkg.PkgPath)
	if _, flagged := goNames[name]; mp.group.name == nil && mp.group.goName == "" && !flagged {
		if dir := goIdentifier(path.Base(path.Dir(mp.pkg.PkgPath))); token.IsIdentifier(dir) && dir != goName {
			g.dirGoName, g.dirPkgName = dir, groupPkgName(dir, mp.pkg.PkgPath)
		}
	}
	return g, apiGroup, mismatch, diags
}

// selectKinds selects and checks the kinds of one package, in name order;
// two kinds must not map to one resource.
func selectKinds(logger klog.Logger, mp markedPackage, posOf func(token.Pos) token.Position, namers kindNamers) ([]*Kind, Diagnostics) {
	var kinds []*Kind
	var diags Diagnostics
	scope := mp.pkg.Types.Scope()
	implicitOK := implicitCandidates(mp)
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		named, ok := types.Unalias(tn.Type()).(*types.Named)
		if !ok {
			continue
		}
		s, hasMarkers := mp.types[name]
		if tn.IsAlias() && !hasMarkers {
			// An alias is selected by markers of its own (a user's shim
			// package over a package that cannot be edited); the
			// markers of its target's package are not read.
			if st, ok := named.Underlying().(*types.Struct); ok && !isListType(st) && len(findObjectMeta(st).steps) > 0 {
				logger.V(1).Info("skipping type alias: an alias is selected by markers on the alias itself (+genclient or +kubebuilder:object:root=true)",
					"type", name, "pos", posString(posOf(tn.Pos())))
			}
			continue
		}
		src := kindSource{name: name}
		if st, ok := named.Underlying().(*types.Struct); ok && !tn.IsAlias() && (implicitOK || s.kubebuilder && mp.group.name != nil && !mp.group.skip) {
			src.crdCandidate = embedsTypeAndObjectMeta(st)
		}
		k, ds, skip := selectKind(mp, named, src, s, posOf, namers)
		diags = append(diags, ds...)
		if skip != "" {
			p := posOf(tn.Pos())
			logger.V(1).Info("skipping type: "+skip, "type", name, "pos", posString(p))
		}
		if k != nil {
			kinds = append(kinds, k)
		}
	}
	byResource := map[string]*Kind{}
	for _, k := range kinds {
		if prev := byResource[k.Resource]; prev != nil {
			diags = append(diags, Diagnostic{Pos: k.pos,
				Message: fmt.Sprintf("types %s and %s both map to the resource %q", prev.Name, k.Name, k.Resource),
				Hint:    "set +resourceName on one of them"})
		}
		byResource[k.Resource] = k
	}
	return kinds, diags
}

// implicitCandidates reports whether the types of mp are selected as
// controller-gen selects them for CRDs, without a marker: every type
// embedding metav1.TypeMeta and metav1.ObjectMeta in a package with
// +groupName and without +kubebuilder:skip (crd.FindKubeKinds), when the
// package carries kubebuilder's markers (so controller-gen runs over it).
// Packages in upstream's style, where some type has +genclient, are left to
// their markers: there a type without +genclient (k8s.io/api's Binding,
// RangeAllocation) is no resource of its own; and a package with neither
// +genclient nor kubebuilder markers selects nothing.
func implicitCandidates(mp markedPackage) bool {
	return mp.group.name != nil && !mp.group.skip && !mp.genclientStyle() && mp.kubebuilderStyle()
}

// goNameCollisions reports API groups that share a Go name: their accessors
// and output packages would collide. First each colliding group that
// nothing named takes its directory's name (Group.dirGoName), as upstream
// names every group without +groupName.
func goNameCollisions(groups map[string]*Group) Diagnostics {
	var diags Diagnostics
	sharing := map[string]int{} // groups per Go name, before any takes its directory's
	for _, g := range groups {
		sharing[g.PkgName]++
	}
	byGoName := map[string][]*Group{}
	for _, g := range groups {
		if sharing[g.PkgName] > 1 && g.dirGoName != "" {
			g.GoName, g.PkgName = g.dirGoName, g.dirPkgName
		}
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
				Hint:    fmt.Sprintf("set +groupGoName in one package comment, or --group-go-name %s=SomeName, to tell them apart", g.Name)})
		}
	}
	return diags
}

// sortedModel puts the groups in output package order and their versions in
// name order.
func sortedModel(outputPkg string, groups map[string]*Group) *Model {
	m := &Model{OutputPkg: outputPkg}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		g := groups[name]
		slices.SortFunc(g.Versions, func(a, b *Version) int { return strings.Compare(a.Name, b.Name) })
		m.Groups = append(m.Groups, g)
	}
	slices.SortFunc(m.Groups, func(a, b *Group) int { return strings.Compare(a.PkgName, b.PkgName) })
	return m
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
