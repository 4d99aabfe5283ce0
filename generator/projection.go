package generator

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"
)

// Projection is one +informer-gen:projection (or --projection) of a kind: a
// generated type holding the kind's ObjectMeta and the named fields only,
// with its own lister and informer over the kind's resource.
type Projection struct {
	Kind   *Kind
	Name   string // FooSummary
	Plural string // FooSummaries (Go accessor)
	// Structs are the generated struct types: the projection type first, then
	// the nested types in the order their paths first name them.
	Structs []*ProjStruct
	// Paths are the projected field paths in JSON names, for docs.
	Paths []string
	// Indexes are the kind's field indexes whose paths the projection
	// holds, inherited (set with named).
	Indexes []*Index
	// named is the projection type synthesized with go/types, for the
	// decoder stage.
	named   *types.Named
	pos     token.Position
	subject string // the --projection flag it comes from; "" for a marker
}

// ProjStruct is one generated struct type of a projection.
type ProjStruct struct {
	Name   string // FooSummary, FooSummarySpec
	Root   bool   // the projection type itself (TypeMeta, ObjectMeta, DeepCopyObject)
	Fields []*ProjField
	// source is the struct the fields are taken from.
	source *types.Struct
	// CopyFields is set when a field holds a lock (protobuf messages carry
	// one, so Istio's specs do): DeepCopyInto then copies field by field,
	// leaving the lock to the field's own DeepCopyInto, instead of
	// starting with `*out = *in`, which go vet reports (copylocks).
	CopyFields bool
	// path is the JSON path of the part it holds (".spec.containers");
	// elems says it holds each element of a slice there.
	path  string
	elems bool
	// elemName is the source element type's name when the struct stands
	// for the elements of a slice of a named struct type.
	elemName string
	// sourceType is the (named) type of the struct the fields are taken
	// from, for the protobuf decoder's check.
	sourceType types.Type
}

// nameNested names the nested structs below s, top-down, once every path is
// resolved: the parent's name and the field's Go name (FooSummary + Spec);
// a slice's element by its type's name (PodSummarySpec + Container), unless
// another slice of s has elements of that type too (.spec.containers and
// .spec.initContainers), when both are named by their field
// (PodSummarySpecContainers, PodSummarySpecInitContainers), so that names
// do not depend on the order of the paths.
func (s *ProjStruct) nameNested() {
	byElem := map[string]int{}
	for _, f := range s.Fields {
		if f.Nested != nil && f.Nested.elemName != "" {
			byElem[f.Nested.elemName]++
		}
	}
	for _, f := range s.Fields {
		if f.Nested == nil {
			continue
		}
		f.Nested.Name = s.Name + f.GoName
		if e := f.Nested.elemName; e != "" && byElem[e] == 1 {
			f.Nested.Name = s.Name + e
		}
		f.Nested.nameNested()
	}
}

// ProjField is one field of a generated struct: a leaf copied whole with the
// source's type, or a nested generated struct (through a struct, a pointer
// to one, or a slice of them).
type ProjField struct {
	GoName string // Replicas
	// JSONTag is the source field's json tag value ("replicas,omitempty");
	// "" when the source has none (the Go name is the JSON name).
	JSONTag string
	// Nested is the generated struct the field holds, nil for a leaf.
	Nested *ProjStruct
	// Shape is how the field is held: "value", "pointer" or "slice" for
	// nested fields.
	Shape string
	// Copy is how DeepCopyInto copies the field (see copyShape); "" when
	// `*out = *in` already did.
	Copy string
	// typ is the field's type (a leaf's source type; for nested fields the
	// struct, pointer or slice of the generated struct, set by synthesize).
	typ types.Type
	// elem is the element type of a pointer, slice or map leaf.
	elem types.Type
	// path and pos are a leaf's field path in JSON names and where it was
	// given, for messages.
	path string
	pos  token.Position
	// pbNum is the source field's protobuf field number; 0 when it has
	// none, or is reached through an embedded struct (the projection then
	// has no protobuf decoder).
	pbNum int32
	// keys is set on a PATH:keys leaf: the field holds the key names of
	// the source's map (typ is wire.MapKeys); source is the map field's Go
	// name and type.
	keys       bool
	source     string
	sourceType types.Type
}

// Copy shapes of ProjField.Copy: how DeepCopyInto fixes up a field after
// `*out = *in`.
const (
	copyNone         = ""             // plain data: *out = *in copied it
	copyInto         = "into"         // in.X.DeepCopyInto(&out.X): a struct with DeepCopyInto, or a nested one
	copyIntoNonNil   = "intoNonNil"   // the same for a named slice or map type, nil kept nil
	copyPointerInto  = "pointerInto"  // a pointer to a type with DeepCopyInto
	copyPointerPlain = "pointerPlain" // a pointer to plain data
	copySlicePlain   = "slicePlain"   // a slice of plain data
	copySliceInto    = "sliceInto"    // a slice of a type with DeepCopyInto
	copyMapPlain     = "mapPlain"     // a map of plain data to plain data
	copyMapInto      = "mapInto"      // a map of plain data to a type with DeepCopyInto
)

// Template helpers.

// NameQ is the projection name as a Go string literal.
func (p *Projection) NameQ() string { return fmt.Sprintf("%q", p.Name) }

// KindQ is the projected kind's name as a Go string literal.
func (p *Projection) KindQ() string { return fmt.Sprintf("%q", p.Kind.Name) }

// LowerName is the projection name with a lower-case first letter.
func (p *Projection) LowerName() string { return lowerFirst(p.Name) }

// Part says which part of the kind a nested struct holds fields of, for
// docs: "Pod's .spec" or "each of Pod's .spec.containers".
func (d projStructData) Part() string {
	if d.elems {
		return "each of " + d.Projection.Kind.Name + "'s " + d.path
	}
	return d.Projection.Kind.Name + "'s " + d.path
}

// Holds says what the projection holds besides TypeMeta, for docs:
// "its metadata and .spec.replicas, .status", or "only its metadata".
func (p *Projection) Holds() string {
	if len(p.Paths) == 0 {
		return "only its metadata"
	}
	return "its metadata and " + strings.Join(p.Paths, ", ")
}

// projSpec is one projection as the user wrote it, in a marker or a
// --projection flag; where says where its problems are reported.
type projSpec struct {
	name    string
	namePos token.Position
	paths   []projPathSpec
	pos     token.Position // of the marker; zero for a flag
	subject string         // "--projection ..." for a flag
}

type projPathSpec struct {
	text string
	pos  token.Position
}

func (s projSpec) diag(pos token.Position, msg, hint string) Diagnostic {
	if s.subject != "" {
		return Diagnostic{Subject: s.subject, Message: msg, Hint: hint}
	}
	return Diagnostic{Pos: pos, Message: "+informer-gen:projection: " + msg, Hint: hint}
}

// projSpecFromMarker reads a +informer-gen:projection marker.
func projSpecFromMarker(m marker) (projSpec, Diagnostics) {
	s := projSpec{pos: m.pos}
	var diags Diagnostics
	for _, a := range m.args {
		if !slices.Contains(projectionArgs, a.key) {
			diags = append(diags, s.diag(a.pos, fmt.Sprintf("unknown argument %q", a.key),
				cmp.Or(didYouMean(a.key, projectionArgs...), "known arguments: "+strings.Join(projectionArgs, ", "))))
		}
	}
	const example = "e.g. +informer-gen:projection:name=FooSummary,fields=.spec.replicas;.status"
	name, hasName := m.arg("name")
	fields, hasFields := m.arg("fields")
	if !hasName || name.value == "" {
		diags = append(diags, s.diag(m.pos, "needs name=", example))
	}
	// fields= with an empty value is a metadata-only projection; a
	// missing fields= is more likely a slip, and so is one of only ';'.
	switch {
	case !hasFields:
		diags = append(diags, s.diag(m.pos, "needs fields= (field paths separated by ';', or empty for metadata only)", example))
	case strings.TrimSpace(fields.value) != "" && strings.Trim(fields.value, "; ") == "":
		diags = append(diags, s.diag(fields.pos, "fields= names no field path", "leave it empty (fields=) for a projection of the metadata only"))
	}
	s.name, s.namePos = name.value, name.pos
	if hasFields {
		col := len("fields=")
		for part := range strings.SplitSeq(fields.value, ";") {
			lead := len(part) - len(strings.TrimLeft(part, " "))
			if t := strings.TrimSpace(part); t != "" {
				p := fields.pos
				p.Column += col + lead
				s.paths = append(s.paths, projPathSpec{text: t, pos: p})
			}
			col += len(part) + 1
		}
	}
	return s, diags
}

// buildProjection checks a projection of kind k (the type named) and
// resolves its paths into generated structs.
func buildProjection(named *types.Named, k *Kind, s projSpec) (*Projection, Diagnostics) {
	var diags Diagnostics
	switch {
	case s.name == "":
		return nil, nil // reported by projSpecFromMarker
	case !token.IsIdentifier(s.name) || !token.IsExported(s.name):
		return nil, Diagnostics{s.diag(s.namePos, fmt.Sprintf("name %q is not an exported Go identifier", s.name),
			"it names the generated type, e.g. "+k.Name+"Summary")}
	}
	if m := decodesItself(named); m != "" {
		return nil, Diagnostics{s.diag(cmp.Or(s.namePos, s.pos), fmt.Sprintf("%s decodes itself (%s), so a projection of it would not decode as it does", k.Name, m),
			"use the kind's own informer")}
	}
	root := &ProjStruct{Name: s.name, Root: true, source: named.Underlying().(*types.Struct), sourceType: named}
	p := &Projection{Kind: k, Name: s.name, Structs: []*ProjStruct{root}, pos: cmp.Or(s.namePos, s.pos), subject: s.subject}
	for _, ps := range s.paths {
		jsonPath, d := p.addPath(root, ps)
		if d != nil {
			diags = append(diags, s.diag(ps.pos, d.Message, d.Hint))
			continue
		}
		p.Paths = append(p.Paths, jsonPath)
	}
	if len(diags) > 0 {
		return nil, diags
	}
	root.nameNested()
	nestedCopy := map[string]string{"value": copyInto, "pointer": copyPointerInto, "slice": copySliceInto}
	for _, st := range p.Structs {
		for _, f := range st.Fields {
			if f.Nested == nil && holdsLock(f.typ, nil) {
				st.CopyFields = true
			}
			if f.Nested != nil {
				f.Copy = nestedCopy[f.Shape] // generated structs have DeepCopyInto
				continue
			}
			if f.keys {
				f.Copy = copySlicePlain // a slice of strings
				continue
			}
			c, elem, msg := copyShape(f.typ)
			if msg != "" {
				diags = append(diags, s.diag(f.pos,
					fmt.Sprintf("field path %s is %s, %s", f.path, types.TypeString(f.typ, qualifier), msg),
					"project a field inside it, or one of a type with a DeepCopyInto method"))
			}
			f.Copy, f.elem = c, elem
		}
	}
	if len(diags) > 0 {
		return nil, diags
	}
	return p, nil
}

// addPath resolves one field path from the projection's root, adding
// nested structs and the leaf. It returns the path in JSON names.
func (p *Projection) addPath(root *ProjStruct, ps projPathSpec) (string, *Diagnostic) {
	path := normalizePath(ps.text)
	fail := func(msg, hint string) (string, *Diagnostic) {
		return "", &Diagnostic{Message: msg, Hint: hint}
	}
	// PATH:keys projects a map's key names only (see keysField).
	keys := false
	if base, form, ok := strings.Cut(path, ":"); ok {
		if form != keysForm {
			return fail(fmt.Sprintf("field path %s: unknown form %q after ':'", ps.text, form),
				"the one form is :"+keysForm+", the key names of a map field, as in .data:keys; otherwise name the field alone")
		}
		path, keys = base, true
	}
	segs := strings.Split(strings.TrimPrefix(path, "."), ".")
	node := root
	var jsonNames []string
	for i, seg := range segs {
		sofar := "." + strings.Join(jsonNames, ".")
		if i == 0 {
			sofar = p.Kind.Name
		}
		if seg == "" {
			return fail(fmt.Sprintf("malformed field path %q", ps.text), "e.g. .spec.replicas; separate paths with ';'")
		}
		found, candidates := findField(node.source, seg)
		if found == nil {
			return fail(fmt.Sprintf("field path %s does not exist: %s has no field %q", path, sofar, seg), didYouMean(seg, candidates...))
		}
		if found.ignored {
			return fail(fmt.Sprintf("field path %s: field %s is tagged json:\"-\", so it is never filled from the server", path, seg), "project a field the server sends")
		}
		if i == 0 && len(found.jsonPath) > 0 && slices.Contains([]string{"metadata", "apiVersion", "kind"}, found.jsonPath[0]) {
			return fail(fmt.Sprintf("field path %s: %s is always kept whole in a projection", path, found.jsonPath[0]),
				"remove it from fields=: every projection holds the object's metadata, apiVersion and kind")
		}
		if len(found.jsonPath) != 1 {
			return fail(fmt.Sprintf("field path %s: %s reaches through the embedded struct %s, which JSON does not inline", path, seg, found.goPath[0]),
				"name the embedded struct's JSON field first")
		}
		jsonName := found.jsonPath[0]
		jsonNames = append(jsonNames, jsonName)
		here := "." + strings.Join(jsonNames, ".")
		last := i == len(segs)-1
		var existing *ProjField
		for _, f := range node.Fields {
			if jsonTagName(f) == jsonName {
				existing = f
			}
		}
		goName := found.goPath[len(found.goPath)-1]
		if last && keys {
			goName += "Keys"
		}
		if existing == nil && slices.ContainsFunc(node.Fields, func(f *ProjField) bool { return f.GoName == goName }) {
			return fail(fmt.Sprintf("field path %s: its field %s has the Go name of another projected field with another JSON name", path, goName),
				"project only one of them")
		}
		if last && keys {
			return node.keysField(found, existing, goName, here, ps.pos)
		}
		if last {
			if existing != nil {
				if existing.keys {
					return fail(fmt.Sprintf("field path %s: its key names are projected too (%s:%s)", path, here, keysForm),
						"project the map whole or its key names, not both")
				}
				if existing.Nested != nil {
					return fail(fmt.Sprintf("field path %s overlaps the paths projected inside it", path),
						"project "+here+" whole, or only fields inside it, not both")
				}
				return fail(fmt.Sprintf("field path %s is given twice", path), "")
			}
			tag, _ := reflect.StructTag(node.tagOf(found)).Lookup("json")
			node.Fields = append(node.Fields, &ProjField{GoName: goName, JSONTag: tag, typ: found.typ, path: here, pos: ps.pos, pbNum: node.protobufNumber(found)})
			return here, nil
		}
		if existing != nil {
			if existing.Nested == nil {
				return fail(fmt.Sprintf("field path %s is inside %s, which is projected whole", path, here),
					"project "+here+" whole, or only fields inside it, not both")
			}
			node = existing.Nested
			continue
		}
		t, shape := found.typ, "value"
		if ptr, ok := t.(*types.Pointer); ok {
			t, shape = ptr.Elem(), "pointer"
		} else if sl, ok := t.Underlying().(*types.Slice); ok {
			t, shape = sl.Elem(), "slice"
		}
		st, ok := t.Underlying().(*types.Struct)
		if !ok {
			return fail(fmt.Sprintf("field path %s: %s is %s, not a struct", path, here, types.TypeString(found.typ, qualifier)), "")
		}
		if m := decodesItself(t); m != "" {
			// Istio's specs (protobuf messages read with protojson) are
			// such types: their wire names are not their json tags.
			return fail(fmt.Sprintf("field path %s: %s is %s, which decodes itself (%s), so a generated struct holding some of its fields would not decode as it does", path, here, types.TypeString(t, qualifier), m),
				"project "+here+" whole")
		}
		nested := &ProjStruct{source: st, sourceType: t, path: here, elems: shape == "slice"} // named by nameNested
		if n, isNamed := t.(*types.Named); isNamed && shape == "slice" {
			nested.elemName = n.Obj().Name()
		}
		tag, _ := reflect.StructTag(node.tagOf(found)).Lookup("json")
		node.Fields = append(node.Fields, &ProjField{GoName: goName, JSONTag: tag, Nested: nested, Shape: shape, pbNum: node.protobufNumber(found)})
		p.Structs = append(p.Structs, nested)
		node = nested
	}
	return "." + strings.Join(jsonNames, "."), nil
}

// projectionsPath is the import path of the generated projections package of
// a version.
func projectionsPath(outputPkg string, v *Version) string {
	return outputPkg + "/projections/" + v.Group.PkgName + "/" + v.Name
}

// synthesize builds the projection's types with go/types, in pkg (standing
// for the generated projections package), for the decoder stage, which plans
// from go/types. It leaves p.named nil when the kind's metav1 types cannot be
// found (the projection then has no generated decoder).
func (p *Projection) synthesize(pkg *types.Package) {
	st := p.Kind.named.Underlying().(*types.Struct)
	om := findObjectMeta(st)
	if len(om.steps) == 0 {
		return
	}
	omType := om.steps[len(om.steps)-1].field().Type()
	omNamed, ok := omType.(*types.Named)
	if !ok {
		return
	}
	tm, ok := omNamed.Obj().Pkg().Scope().Lookup("TypeMeta").(*types.TypeName)
	if !ok {
		return
	}
	named := map[*ProjStruct]*types.Named{}
	for _, s := range p.Structs {
		tn := types.NewTypeName(token.NoPos, pkg, s.Name, nil)
		named[s] = types.NewNamed(tn, nil, nil)
	}
	for _, s := range p.Structs {
		var fields []*types.Var
		var tags []string
		if s.Root {
			fields = append(fields,
				types.NewField(token.NoPos, pkg, "TypeMeta", tm.Type(), true),
				types.NewField(token.NoPos, pkg, "ObjectMeta", omType, true))
			tags = append(tags, `json:",inline"`, `json:"metadata,omitempty"`)
		}
		for _, f := range s.Fields {
			t := f.typ
			if f.Nested != nil {
				t = named[f.Nested]
				switch f.Shape {
				case "pointer":
					t = types.NewPointer(t)
				case "slice":
					t = types.NewSlice(t)
				}
			}
			fields = append(fields, types.NewField(token.NoPos, pkg, f.GoName, t, false))
			tags = append(tags, f.Tag())
		}
		named[s].SetUnderlying(types.NewStruct(fields, tags))
	}
	p.named = named[p.Structs[0]]
	p.inheritIndexes()
}

// inheritIndexes gives the projection every field index of its kind whose
// path it holds (func indexes take the kind's type and are not inherited).
func (p *Projection) inheritIndexes() {
	for _, ix := range p.Kind.Indexes {
		if ix.Field == nil {
			continue
		}
		fp, _, d := resolveFieldPath(p.named, markerArg{value: ix.Source})
		if d != nil {
			continue // the projection does not hold the path
		}
		c := *ix
		c.Field, c.Projection = fp, p
		p.Indexes = append(p.Indexes, &c)
	}
}

// Tag is the generated field's struct tag, without backquotes: the source's
// json tag, or none.
func (f *ProjField) Tag() string {
	if f.JSONTag == "" {
		return ""
	}
	return fmt.Sprintf("json:%q", f.JSONTag)
}

// projectionCollisions reports the projections of one group-version whose
// generated names collide: with a kind (its lister and informer), with
// another projection, through their plural accessors, or through the nested
// struct types of the projections package.
func projectionCollisions(kinds []*Kind) Diagnostics {
	var diags Diagnostics
	kindNames, plurals := map[string]string{}, map[string]string{}
	for _, k := range kinds {
		kindNames[k.Name] = "kind " + k.Name
		plurals[k.Plural] = "kind " + k.Name
	}
	types := map[string]string{} // generated type names of the projections package
	for _, k := range kinds {
		for _, p := range k.Projections {
			at := " at " + posString(p.pos)
			if p.pos.Filename == "" {
				at = ""
			}
			what := "projection " + p.Name + " of " + k.Name + at
			d := func(msg, hint string) {
				diags = append(diags, Diagnostic{Pos: p.pos, Subject: p.subject, Message: msg, Hint: hint})
			}
			switch {
			case kindNames[p.Name] != "":
				d(fmt.Sprintf("projection name %s is the name of %s in the same group-version", p.Name, kindNames[p.Name]),
					"their listers and informers would collide; choose another name")
			case types[p.Name] != "":
				d(fmt.Sprintf("projection name %s is already taken by %s", p.Name, types[p.Name]), "choose another name")
			case plurals[p.Plural] != "":
				d(fmt.Sprintf("projection %s's accessor %s() collides with that of %s", p.Name, p.Plural, plurals[p.Plural]),
					"choose another name")
			}
			types[p.Name], plurals[p.Plural] = what, what
			own := map[string]*ProjStruct{}
			for _, s := range p.Structs[1:] {
				if o := own[s.Name]; o != nil {
					// FooSummary + Spec + TemplateX and FooSummary + SpecTemplate + X:
					// two parts of the one projection; renaming it does not help.
					d(fmt.Sprintf("projection %s's nested types for %s and %s are both named %s", p.Name, o.path, s.path, s.Name),
						"project one of the two parts whole")
					continue
				}
				own[s.Name] = s
				if prev := cmp.Or(kindNames[s.Name], types[s.Name]); prev != "" {
					d(fmt.Sprintf("projection %s's nested type %s collides with %s", p.Name, s.Name, prev),
						"rename the projection")
					continue
				}
				types[s.Name] = "a nested type of " + what
			}
		}
	}
	return diags
}

// addFlagProjections adds the --projection flags naming a kind of mp's
// package to that kind.
func addFlagProjections(mp markedPackage, kinds []*Kind, flags []ProjectionFlag, namers kindNamers) Diagnostics {
	var diags Diagnostics
	for _, pf := range flags {
		if pf.Package != mp.pkg.PkgPath {
			continue
		}
		spec := projSpec{name: pf.Name, subject: "--projection " + pf.Flag}
		for _, p := range pf.Paths {
			spec.paths = append(spec.paths, projPathSpec{text: p})
		}
		i := slices.IndexFunc(kinds, func(k *Kind) bool { return k.Name == pf.Kind })
		if i < 0 {
			var names []string
			for _, k := range kinds {
				names = append(names, k.Name)
			}
			msg := fmt.Sprintf("package %s has no kind %s that informer-gen generates for", pf.Package, pf.Kind)
			if _, isType := mp.pkg.Types.Scope().Lookup(pf.Kind).(*types.TypeName); isType {
				msg = fmt.Sprintf("type %s of package %s is not selected for generation", pf.Kind, pf.Package)
			}
			diags = append(diags, Diagnostic{Subject: spec.subject, Message: msg,
				Hint: cmp.Or(didYouMean(pf.Kind, names...), "kinds: "+strings.Join(names, ", "))})
			continue
		}
		diags = append(diags, addProjection(kinds[i], spec, namers)...)
	}
	return diags
}

// unmatchedFlagProjections reports --projection flags whose package was not
// loaded (the load stage says why: it does not exist, or does not compile).
func unmatchedFlagProjections(in *marked, flags []ProjectionFlag) Diagnostics {
	var diags Diagnostics
	for _, pf := range flags {
		if !slices.ContainsFunc(in.pkgs, func(mp markedPackage) bool { return mp.pkg.PkgPath == pf.Package }) {
			diags = append(diags, Diagnostic{Subject: "--projection " + pf.Flag,
				Message: fmt.Sprintf("package %s could not be loaded, so its projection is not generated", pf.Package),
				Hint:    "see the error reported for " + pf.Package + "; packages named by --projection are loaded beside the inputs"})
		}
	}
	return diags
}
