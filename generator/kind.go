package generator

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
	gengotypes "k8s.io/gengo/v2/types"
)

// kindSource is what selectKind reads about a type besides its markers.
type kindSource struct {
	// name is the kind: the type's name, or the name of an alias of it in
	// the input package.
	name string
	// crdCandidate is set when controller-gen would make a CRD of the type
	// without any marker: it embeds metav1.TypeMeta and metav1.ObjectMeta,
	// in a package with +groupName that is not upstream-style (see
	// implicitCandidate).
	crdCandidate bool
}

// selectKind decides whether named is generated for and checks it. skip,
// when set, says why a type with a selecting marker is not generated for
// (not an error: for -v).
func selectKind(mp markedPackage, named *types.Named, src kindSource, s selection, posOf func(token.Pos) token.Position,
	namers kindNamers) (k *Kind, diags Diagnostics, skip string) {
	pkg := mp.pkg
	name := src.name
	pos := posOf(named.Obj().Pos())
	if obj := pkg.Types.Scope().Lookup(name); obj != nil {
		pos = posOf(obj.Pos())
	}
	st, isStruct := named.Underlying().(*types.Struct)
	list := isStruct && isListType(st)
	implicit := src.crdCandidate && !s.genclient && !s.root
	marked := s.genclient || s.root || implicit
	if selected := marked && isStruct && !list && s.listWatch() && !s.noLister && !s.skipVersion && !s.unserved; !selected {
		for _, m := range append(slices.Clone(s.indexes), s.projections...) {
			diags = append(diags, Diagnostic{Pos: m.pos,
				Message: fmt.Sprintf("marker +%s is in the wrong place: type %s is not selected for generation", m.name, name),
				Hint:    "mark the type with +genclient or +kubebuilder:object:root=true, with list and watch verbs"})
		}
		switch {
		case !marked || !isStruct || list:
		case s.noLister:
			skip = "+k8s:lister-gen=false"
		case s.skipVersion:
			skip = "+kubebuilder:skipversion: not a version of the CRD"
		case s.unserved:
			skip = "+kubebuilder:unservedversion: the CRD does not serve this version"
		case !s.listWatch():
			skip = "its verbs (+genclient:noVerbs, onlyVerbs or skipVerbs) exclude list or watch, which an informer needs"
		}
		return nil, diags, skip
	}
	listName := name + "List"
	listType, _ := pkg.Types.Scope().Lookup(listName).(*types.TypeName)
	if reason := notListedResource(st, s, listType != nil, listName); reason != "" {
		if implicit {
			reason = strings.Replace(reason, "+kubebuilder:object:root=true type", "type with metav1.TypeMeta and ObjectMeta", 1)
		}
		return nil, nil, reason
	}
	// Selected by kubebuilder's root marker alone: our markers and
	// +genclient ask for the kind whatever the package looks like.
	rootOnly := !s.genclient && len(s.indexes) == 0 && len(s.projections) == 0
	if rootOnly && !mp.regs.visible() && mp.group.name == nil && groupVersionVar(pkg.Types.Scope()) == "" {
		// gatekeeper's apis/mutations/unversioned: the hub its versions
		// convert through, with root markers for deepcopy's sake, but no
		// +groupName, no group version and nothing registered.
		// controller-gen writes it a CRD of group "" and version "",
		// which no API server accepts (gatekeeper installs only its
		// versioned CRDs).
		return nil, nil, "its package names no API group (no +groupName, SchemeGroupVersion or GroupVersion) and registers no kinds: no server serves it (controller-gen's CRD of it has an empty group and version)"
	}
	if rootOnly && mp.regs.visible() && !mp.regs.types[name] {
		// KEDA's WithTriggers: ObjectMeta, a list type and a root marker,
		// but never registered in the scheme nor installed as a CRD.
		// The factory reads a kind through the package's scheme, so an
		// unregistered one is no resource it can serve.
		return nil, nil, "not registered in the package's scheme (no AddKnownTypes or SchemeBuilder.Register call names it), so not a served resource"
	}
	if !named.Obj().Exported() {
		// Generated code lives in other packages and could not name it.
		return nil, Diagnostics{{Pos: pos,
			Message: fmt.Sprintf("type %s is not exported: the generated listers and informers cannot refer to it", name),
			Hint:    "export the type, or remove its +genclient / +kubebuilder:object:root marker"}}, ""
	}
	if name != named.Obj().Name() {
		return nil, Diagnostics{{Pos: pos,
			Message: fmt.Sprintf("type %s is an alias of %s.%s: the kind on the wire is %s", name, named.Obj().Pkg().Path(), named.Obj().Name(), named.Obj().Name()),
			Hint:    fmt.Sprintf("name the alias %s", named.Obj().Name())}}, ""
	}
	diags = append(diags, s.conflicts...)
	diags = append(diags, checkObjectMeta(st, name, pos, posOf)...)
	diags = append(diags, checkListType(named, listType, listName, pos, posOf)...)
	if !hasMethod(named, "DeepCopy") || !hasMethod(named, "DeepCopyObject") {
		diags = append(diags, Diagnostic{Pos: pos,
			Message: fmt.Sprintf("type %s has no DeepCopy and DeepCopyObject methods", name),
			Hint:    "generate deepcopy funcs with deepcopy-gen or controller-gen object"})
	}

	t := &gengotypes.Type{Name: gengotypes.Name{Name: name}}
	resource := namers.resource.Name(t)
	if s.root || s.kubebuilder || implicit {
		// controller-gen names the CRD, and the server serves that name.
		resource = namers.crdResource(name)
	}
	k = &Kind{
		Name:       name,
		Plural:     namers.plural.Name(t),
		Resource:   cmp.Or(s.resource, resource),
		Namespaced: !s.clusterScoped,
		Informer:   !s.noInformer,
		named:      named,
		pos:        pos,
	}
	diags = append(diags, addIndexes(pkg, named, k, s.indexes)...)
	for _, m := range s.projections {
		spec, ds := projSpecFromMarker(m)
		diags = append(diags, ds...)
		diags = append(diags, addProjection(k, spec, namers)...)
	}
	return k, diags, ""
}

// embedsTypeAndObjectMeta reports whether st embeds metav1.TypeMeta and
// metav1.ObjectMeta directly, controller-gen's test for a kind it makes a
// CRD of (crd.FindKubeKinds).
func embedsTypeAndObjectMeta(st *types.Struct) bool {
	var typeMeta, objectMeta bool
	for i := range st.NumFields() {
		f := st.Field(i)
		if !f.Embedded() {
			continue
		}
		n, ok := f.Type().(*types.Named)
		if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != metav1Path {
			continue
		}
		switch n.Obj().Name() {
		case "TypeMeta":
			typeMeta = true
		case "ObjectMeta":
			objectMeta = true
		}
	}
	return typeMeta && objectMeta
}

// notListedResource says why a type selected by +kubebuilder:object:root
// alone is no resource to list and watch; "" when it is one, or when the
// user asked for it explicitly (+genclient, an index), so that what it
// lacks is an error.
func notListedResource(st *types.Struct, s selection, hasList bool, listName string) string {
	if s.genclient || len(s.indexes) > 0 || len(s.projections) > 0 {
		return ""
	}
	switch {
	case len(findObjectMeta(st).steps) == 0:
		// controller-gen's object:root also marks types that are not
		// resources (cluster-api's hook request and response types,
		// admission reviews): no ObjectMeta, no list, nothing to watch.
		return "+kubebuilder:object:root=true type without metav1.ObjectMeta is not a resource"
	case !hasList:
		// controller-gen makes a CRD of any root type with ObjectMeta
		// (a component Config, a singleton), but without a Go list type
		// there is nothing to decode a LIST into: not a listed resource.
		return "+kubebuilder:object:root=true type without a list type " + listName + " cannot be listed and watched"
	}
	return ""
}

// checkListType checks the list type of named (nil when there is none):
// Items []Kind or []*Kind, and DeepCopyObject. The generated code does not
// refer to the list type (LISTs are decoded item by item into Kind), but an
// API package whose kind has no such list is not one the API server and its
// clients can serve. A list whose Items is a slice of another type is an
// upstream mistake that the generated informers do not share (the
// OpenTelemetry operator's TargetAllocatorList holds
// OpenTelemetryCollectors): a warning, so that the package's other kinds,
// and this one, are still generated.
func checkListType(named *types.Named, list *types.TypeName, listName string, pos token.Position, posOf func(token.Pos) token.Position) (diags Diagnostics) {
	name := named.Obj().Name()
	if list == nil {
		return Diagnostics{{Pos: pos,
			Message: fmt.Sprintf("type %s has no list type %s", name, listName),
			Hint:    fmt.Sprintf("declare type %s struct { metav1.TypeMeta; metav1.ListMeta; Items []%s }", listName, name)}}
	}
	if !itemsOf(list.Type(), named) {
		if elem := itemsElem(list.Type()); elem != nil {
			q := func(p *types.Package) string { // v1beta1.OpenTelemetryCollector, as the source spells it
				if p == named.Obj().Pkg() {
					return ""
				}
				return p.Name()
			}
			diags = append(diags, Diagnostic{Pos: posOf(list.Pos()), Warning: true,
				Message: fmt.Sprintf("list type %s has Items []%s, not []%s: a client that decodes a LIST of %s into it fails or gets other objects; the generated informers decode each item as %s", listName, types.TypeString(elem, q), name, name, name)})
		} else {
			return Diagnostics{{Pos: posOf(list.Pos()),
				Message: fmt.Sprintf("list type %s has no field Items []%s or Items []*%s (or of a named slice type of either)", listName, name, name)}}
		}
	}
	if !hasMethod(list.Type(), "DeepCopyObject") {
		diags = append(diags, Diagnostic{Pos: posOf(list.Pos()),
			Message: fmt.Sprintf("type %s has no DeepCopyObject method", listName),
			Hint:    "generate deepcopy funcs with deepcopy-gen or controller-gen object"})
	}
	return diags
}

// addIndexes builds the +informer-gen:index markers of a kind into
// k.Indexes, sorted by name; a name given twice is an error.
func addIndexes(pkg *packages.Package, named *types.Named, k *Kind, markers []marker) Diagnostics {
	var diags Diagnostics
	seen := map[string]*Index{}
	for _, m := range markers {
		ix, ds := buildIndex(pkg, named, m)
		diags = append(diags, ds...)
		if ix == nil {
			continue
		}
		ix.Kind = k
		if prev := seen[ix.GoName]; prev != nil {
			diags = append(diags, Diagnostic{Pos: m.pos,
				Message: fmt.Sprintf("duplicate index name %q on type %s", ix.Name, k.Name),
				Hint:    "first declared at " + posString(prev.pos)})
			continue
		}
		seen[ix.GoName] = ix
		k.Indexes = append(k.Indexes, ix)
	}
	slices.SortFunc(k.Indexes, func(a, b *Index) int { return strings.Compare(a.GoName, b.GoName) })
	return diags
}

// addProjection builds one projection of k into k.Projections.
func addProjection(k *Kind, spec projSpec, namers kindNamers) Diagnostics {
	p, diags := buildProjection(k.named, k, spec)
	if p == nil {
		return diags
	}
	p.Plural = namers.plural.Name(&gengotypes.Type{Name: gengotypes.Name{Name: p.Name}})
	k.Projections = append(k.Projections, p)
	return diags
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

// itemsElem returns the element type of list's field Items when it is a
// slice (of a named slice type or not), else nil.
func itemsElem(list types.Type) types.Type {
	st, isStruct := list.Underlying().(*types.Struct)
	if !isStruct {
		return nil
	}
	for i := range st.NumFields() {
		if f := st.Field(i); f.Name() == "Items" {
			if sl, isSlice := f.Type().Underlying().(*types.Slice); isSlice {
				return sl.Elem()
			}
			return nil
		}
	}
	return nil
}

// itemsOf reports whether list has a field Items []item or Items []*item,
// the slice possibly of a named type (argo's `Items Workflows` with
// `type Workflows []Workflow`).
func itemsOf(list types.Type, item *types.Named) bool {
	elem := itemsElem(list)
	if elem == nil {
		return false
	}
	if types.Identical(elem, item) {
		return true
	}
	p, isPtr := elem.(*types.Pointer)
	return isPtr && types.Identical(p.Elem(), item)
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
