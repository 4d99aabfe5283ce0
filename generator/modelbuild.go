package generator

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"maps"
	"path"
	"slices"
	"strings"

	gengonamer "k8s.io/gengo/v2/namer"
	"k8s.io/klog/v2"
)

// The model stage: marked input packages become a Model (groups, versions,
// kinds and their names), with every problem collected as a Diagnostic.

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
