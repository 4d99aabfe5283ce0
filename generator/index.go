package generator

import (
	"cmp"
	"fmt"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// buildIndex checks one +informer-gen:index marker against the type and
// returns the Index, or diagnostics.
func buildIndex(pkg *packages.Package, named *types.Named, m marker) (*Index, Diagnostics) {
	var diags Diagnostics
	for _, a := range m.args {
		if !slices.Contains(indexArgs, a.key) {
			diags = append(diags, Diagnostic{Pos: a.pos,
				Message: fmt.Sprintf("+informer-gen:index: unknown argument %q", a.key),
				Hint:    cmp.Or(didYouMean(a.key, indexArgs...), "known arguments: "+strings.Join(indexArgs, ", "))})
		}
	}
	name, hasName := m.arg("name")
	field, hasField := m.arg("field")
	fn, hasFunc := m.arg("func")
	switch {
	case !hasName || name.value == "":
		diags = append(diags, Diagnostic{Pos: m.pos, Message: "+informer-gen:index needs name=",
			Hint: "e.g. +informer-gen:index:name=Node,field=.spec.nodeName"})
	case !token.IsIdentifier(name.value):
		diags = append(diags, Diagnostic{Pos: name.pos,
			Message: fmt.Sprintf("+informer-gen:index: name %q is not a Go identifier", name.value),
			Hint:    "it becomes part of the lister method By<Name>"})
	case name.value == "namespace" || upperFirst(name.value) == "Index":
		// "namespace" is the store's built-in index; ByIndex is the
		// generic lister method the typed ones call.
		diags = append(diags, Diagnostic{Pos: name.pos,
			Message: fmt.Sprintf("+informer-gen:index: name %q is reserved", name.value),
			Hint:    "choose another name"})
	}
	if hasField == hasFunc {
		diags = append(diags, Diagnostic{Pos: m.pos, Message: "+informer-gen:index needs exactly one of field= and func="})
	}
	if len(diags) > 0 {
		return nil, diags
	}
	ix := &Index{Name: name.value, GoName: upperFirst(name.value), pos: m.pos}
	if hasFunc {
		if d := checkIndexFunc(pkg, named, fn); d != nil {
			return nil, Diagnostics{*d}
		}
		ix.Func, ix.Source = fn.value, fn.value
		ix.Match = "for which " + fn.value + " returns"
		return ix, nil
	}
	fp, jsonPath, d := resolveFieldPath(named, field)
	if d != nil {
		return nil, Diagnostics{*d}
	}
	ix.Field = fp
	// Docs spell the path as the server sends it, however the marker does.
	ix.Source = jsonPath
	ix.Match = "whose " + ix.Source + " is"
	if fp.Leaf == LeafSlice || fp.Leaf == LeafPointerSlice {
		ix.Match = "whose " + ix.Source + " contains"
	}
	return ix, nil
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func normalizePath(p string) string {
	p = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(p), "{"), "}")
	if !strings.HasPrefix(p, ".") {
		p = "." + p
	}
	return p
}

// checkIndexFunc checks that fn names a func(*T) ([]string, error) in the API
// package.
func checkIndexFunc(pkg *packages.Package, named *types.Named, fn markerArg) *Diagnostic {
	scope := pkg.Types.Scope()
	obj, ok := scope.Lookup(fn.value).(*types.Func)
	if !ok {
		var funcs []string
		for _, n := range scope.Names() {
			if _, ok := scope.Lookup(n).(*types.Func); ok {
				funcs = append(funcs, n)
			}
		}
		return &Diagnostic{Pos: fn.pos,
			Message: fmt.Sprintf("+informer-gen:index: func %s is not declared in package %s", fn.value, pkg.Types.Name()),
			Hint:    didYouMean(fn.value, funcs...)}
	}
	want := fmt.Sprintf("func(*%s) ([]string, error)", named.Obj().Name())
	sig := obj.Type().(*types.Signature)
	ok = obj.Exported() && sig.Params().Len() == 1 && sig.Results().Len() == 2 && !sig.Variadic() &&
		types.Identical(sig.Params().At(0).Type(), types.NewPointer(named)) &&
		types.Identical(sig.Results().At(0).Type(), types.NewSlice(types.Typ[types.String])) &&
		types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
	if ok {
		return nil
	}
	got := types.TypeString(sig, types.RelativeTo(pkg.Types))
	msg := fmt.Sprintf("+informer-gen:index: func %s has signature %s, want %s", fn.value, got, want)
	if !obj.Exported() {
		msg = fmt.Sprintf("+informer-gen:index: func %s is not exported", fn.value)
	}
	return &Diagnostic{Pos: fn.pos, Message: msg}
}

// resolveFieldPath resolves a field path (JSON names such as .spec.nodeName
// or Go names such as .Spec.NodeName) on named into the FieldPath a nil-safe
// index func reads, and the path spelled in JSON names for docs.
func resolveFieldPath(named *types.Named, field markerArg) (fp *FieldPath, jsonPath string, d *Diagnostic) {
	p := normalizePath(field.value)
	segs := strings.Split(strings.TrimPrefix(p, "."), ".")
	fp = &FieldPath{}
	var jsonNames []string
	selector := "obj"
	var cur types.Type = named
	typeName := named.Obj().Name()
	fail := func(msg, hint string) (*FieldPath, string, *Diagnostic) {
		return nil, "", &Diagnostic{Pos: field.pos, Message: "+informer-gen:index: " + msg, Hint: hint}
	}
	for i, seg := range segs {
		sofar := "." + strings.Join(segs[:i], ".")
		if i == 0 {
			sofar = typeName
		}
		if seg == "" {
			return fail(fmt.Sprintf("malformed field path %q", field.value), "e.g. field=.spec.nodeName")
		}
		if ptr, ok := cur.(*types.Pointer); ok {
			if i > 0 {
				fp.Steps[i-1].Pointer = true
			}
			cur = ptr.Elem()
		}
		st, ok := cur.Underlying().(*types.Struct)
		if !ok {
			if _, isSlice := cur.Underlying().(*types.Slice); isSlice {
				return fail(fmt.Sprintf("field path %s crosses the slice %s", p, sofar),
					"index slice elements with func= instead")
			}
			return fail(fmt.Sprintf("field path %s: %s is %s, not a struct", p, sofar, types.TypeString(cur, qualifier)), "")
		}
		found, candidates := findField(st, seg)
		if found == nil {
			return fail(fmt.Sprintf("field path %s does not exist: %s has no field %q", p, sofar, seg),
				didYouMean(seg, candidates...))
		}
		if found.ignored {
			return fail(fmt.Sprintf("field path %s: field %s is tagged json:\"-\", so it is never filled from the server and the index would be empty", p, seg),
				"index a field the server sends")
		}
		for _, g := range found.goPath {
			selector += "." + g
		}
		jsonNames = append(jsonNames, found.jsonPath...)
		fp.Steps = append(fp.Steps, FieldStep{Selector: selector})
		cur = found.typ
	}
	jsonPath = "." + strings.Join(jsonNames, ".")
	// stringLike reports whether t is a string, and whether it is a named
	// string type the values must be converted from.
	stringLike := func(t types.Type) (ok, convert bool) {
		b, isBasic := t.Underlying().(*types.Basic)
		if !isBasic || b.Kind() != types.String {
			return false, false
		}
		return true, !types.Identical(t, types.Typ[types.String])
	}
	switch t := cur.(type) {
	case *types.Pointer:
		if ok, conv := stringLike(t.Elem()); ok {
			fp.Leaf, fp.Convert = LeafPointer, conv
			return fp, jsonPath, nil
		}
	case *types.Slice:
		if ok, conv := stringLike(t.Elem()); ok {
			fp.Leaf, fp.Convert = LeafSlice, conv
			return fp, jsonPath, nil
		}
		if p, isPtr := t.Elem().(*types.Pointer); isPtr {
			if ok, conv := stringLike(p.Elem()); ok {
				fp.Leaf, fp.Convert = LeafPointerSlice, conv
				return fp, jsonPath, nil
			}
		}
	default:
		if ok, conv := stringLike(t); ok {
			fp.Leaf, fp.Convert = LeafString, conv
			return fp, jsonPath, nil
		}
	}
	return fail(fmt.Sprintf("field %s is %s, not string-like", p, types.TypeString(cur, qualifier)),
		"index a string, *string, []string or a named string type, or use func=")
}

func qualifier(p *types.Package) string { return p.Name() }

// foundField is a field findField found: the Go selector path to it (more
// than one name through embedded structs), its JSON names from the struct
// it was looked up in (none for an inlined embedded struct), its type, and
// whether it is tagged json:"-".
type foundField struct {
	goPath, jsonPath []string
	typ              types.Type
	ignored          bool
}

// findField finds seg in st by JSON name, then by Go name, then in inlined
// embedded structs (and, by Go name, in any embedded struct: Go promotes
// their fields). Without a match it returns the names that were available,
// for a hint.
func findField(st *types.Struct, seg string) (found *foundField, candidates []string) {
	type level struct {
		st               *types.Struct
		goPath, jsonPath []string
		inline           bool // JSON names visible at the top
	}
	queue := []level{{st: st, inline: true}}
	for len(queue) > 0 {
		var next []level
		var byGo *foundField
		for _, lv := range queue {
			for i := range lv.st.NumFields() {
				f := lv.st.Field(i)
				if !f.Exported() {
					continue
				}
				jsonName := jsonName(lv.st.Tag(i), f.Name(), f.Embedded())
				goPath := append(slices.Clone(lv.goPath), f.Name())
				jsonPath := slices.Clone(lv.jsonPath)
				if jsonName != "" && jsonName != "-" {
					jsonPath = append(jsonPath, jsonName)
				}
				if lv.inline && jsonName != "" && jsonName != "-" {
					candidates = append(candidates, jsonName)
					if jsonName == seg {
						return &foundField{goPath: goPath, jsonPath: jsonPath, typ: f.Type()}, nil
					}
				}
				if f.Name() == seg && byGo == nil {
					byGo = &foundField{goPath: goPath, jsonPath: jsonPath, typ: f.Type(), ignored: jsonName == "-"}
				}
				if f.Embedded() {
					et := f.Type()
					if p, ok := et.(*types.Pointer); ok {
						et = p.Elem()
					}
					if est, ok := et.Underlying().(*types.Struct); ok {
						next = append(next, level{est, goPath, jsonPath, lv.inline && jsonName == ""})
					}
				}
			}
		}
		if byGo != nil {
			return byGo, nil
		}
		queue = next
	}
	return nil, candidates
}

// jsonName is the JSON name of a field: the tag name, "" for an inlined
// embedded struct, or the Go name when there is no tag.
func jsonName(tag, goName string, embedded bool) string {
	v, ok := reflect.StructTag(tag).Lookup("json")
	if !ok {
		if embedded {
			return "" // encoding/json inlines untagged embedded structs
		}
		return goName
	}
	// encoding/json (and sigs.k8s.io/json, which apimachinery decodes
	// with) inlines an embedded struct whose tag gives no name, with or
	// without ",inline" (an option only the Kubernetes conventions use);
	// a named field tagged `json:",inline"` is not inlined: its member
	// is its Go name.
	name, _, _ := strings.Cut(v, ",")
	if name == "" {
		if embedded {
			return ""
		}
		return goName
	}
	return name
}
