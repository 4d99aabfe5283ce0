package generator

import (
	"fmt"
	"go/types"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/informer-gen/informer-gen/generator/decode"
)

// Protobuf decoders of projections. A projection of a kind whose Go type has
// the Unmarshal method go-to-protobuf generates (every k8s.io/api kind) gets,
// besides its JSON decoder, a decoder that reads the kind's protobuf bytes
// field by field (decode_protobuf.go of the informers package), so that the
// factory can ask the API server for protobuf, as for the full object, and
// build only the projection. It descends only into the messages on a
// projected path, reads the kept leaves (the field numbers come from the
// source fields' protobuf tags) and skips every other field on the wire.
//
// A projection gets none, and is read as JSON, when a projected field has no
// protobuf tag, is reached through an embedded struct, or has a type the
// plan below does not read (the leaf forms are those of the k8s.io/api
// types: strings, bools, integers, bytes, messages with an Unmarshal method,
// pointers and slices of them, string-keyed maps of strings or messages,
// and the key names of string-keyed maps of strings, bytes or messages).

// protobufNumber returns the protobuf field number of the field found in
// s.source, or 0 when it has none or is reached through an embedded struct.
func (s *ProjStruct) protobufNumber(found *foundField) int32 {
	if len(found.goPath) != 1 {
		return 0
	}
	return protobufTagNumber(s.tagOf(found))
}

// protobufTagNumber reads the field number of a protobuf struct tag
// (`protobuf:"bytes,2,opt,name=spec"`); 0 when there is none.
func protobufTagNumber(tag string) int32 {
	pb, ok := reflect.StructTag(tag).Lookup("protobuf")
	if !ok {
		return 0
	}
	parts := strings.Split(pb, ",")
	if len(parts) < 2 {
		return 0
	}
	n, err := strconv.ParseInt(parts[1], 10, 32)
	if err != nil || n <= 0 {
		return 0
	}
	return int32(n)
}

type (
	// protobufData is one group-version's decode_protobuf.go.
	protobufData struct {
		Package string
		Imports []importSpec
		Version *Version
		Wire    string
		Reflect string
		Structs []*pbStruct
		Roots   []decodeRoot
		// Checks are the source struct types and the fields (Go name and
		// number) the decoders read, for wire.CheckedProtobufDecoder.
		Checks []pbCheck
	}
	pbStruct struct {
		Func, Type string
		// Meta is set on a projection's own struct: the field number of
		// its kind's ObjectMeta.
		Meta   int32
		Fields []*pbField
	}
	// pbField is one projected field as the decoder reads it: its number,
	// Go name and Form (see the template), the Go types it names (Type;
	// Elem, the element of a pointer or slice) and, for a nested struct,
	// its function.
	pbField struct {
		Num              int32
		GoName, Form     string
		Type, Elem, Func string
		// Conv is the type a string, bool or varint read is converted to
		// (the field's, or its element's); "" when the read returns it.
		Conv string
	}
	pbCheck struct{ Type, Fields string }
)

// FieldsQ is the checked fields as a Go string literal.
func (c pbCheck) FieldsQ() string { return strconv.Quote(c.Fields) }

// protobufFile plans the protobuf decoders of a version's projections of
// kinds with generated protobuf methods; nil when none has one. reserved
// are the package-level names of the informers package.
func protobufFile(v *Version, reserved []string) *protobufData {
	im := newImports(append(reserved, "protobufFields")...)
	q := func(pkg *types.Package) string {
		name := pkg.Name()
		if len(name) > 1 && name[0] == 'v' && name[1] >= '0' && name[1] <= '9' {
			name = path.Base(path.Dir(pkg.Path())) + name // corev1, as upstream's generators name it
		}
		return im.add(pkg.Path(), name)
	}
	d := &protobufData{Package: v.Name, Version: v}
	for _, p := range v.Projections() {
		structs, checks, ok := planProtobuf(p, q)
		if !ok {
			continue
		}
		d.Structs = append(d.Structs, structs...)
		for _, c := range checks {
			d.addCheck(c)
		}
		d.Roots = append(d.Roots, decodeRoot{Kind: p.Name, Var: p.LowerName() + "DecodeProtobuf", Func: structs[0].Func})
	}
	if len(d.Roots) == 0 {
		return nil
	}
	d.Wire = im.add(decode.WirePath, "wire")
	d.Reflect = im.add("reflect", "reflect")
	d.Imports = im.specs()
	return d
}

// addCheck adds the fields of c to those checked of its type: one entry
// per type (two projections, or .spec.containers and .spec.initContainers,
// may read the same type).
func (d *protobufData) addCheck(c pbCheck) {
	for i, have := range d.Checks {
		if have.Type != c.Type {
			continue
		}
		fields := strings.Split(have.Fields, ",")
		for f := range strings.SplitSeq(c.Fields, ",") {
			if !slices.Contains(fields, f) {
				fields = append(fields, f)
			}
		}
		d.Checks[i].Fields = strings.Join(fields, ",")
		return
	}
	d.Checks = append(d.Checks, c)
}

// planProtobuf plans the decode functions of p's structs, or reports false
// when p cannot have a protobuf decoder.
func planProtobuf(p *Projection, q types.Qualifier) ([]*pbStruct, []pbCheck, bool) {
	if p.named == nil || !hasProtobufUnmarshal(p.Kind.named) {
		return nil, nil, false
	}
	meta := objectMetaNumber(p.Kind.named.Underlying().(*types.Struct))
	if meta == 0 {
		return nil, nil, false
	}
	projPkg := p.named.Obj().Pkg()
	typeName := func(s *ProjStruct) string { return q(projPkg) + "." + s.Name }
	funcName := func(s *ProjStruct) string { return "pb" + upperFirst(q(projPkg)) + s.Name }
	var structs []*pbStruct
	var checks []pbCheck
	for _, s := range p.Structs {
		ps := &pbStruct{Func: funcName(s), Type: typeName(s)}
		check := []string{}
		if s.Root {
			ps.Meta = meta
			check = append(check, fmt.Sprintf("%s=%d", "ObjectMeta", meta))
		}
		for _, f := range s.Fields {
			if f.pbNum == 0 {
				return nil, nil, false
			}
			pf := &pbField{Num: f.pbNum, GoName: f.GoName}
			if f.keys {
				if !keysProtobuf(f) {
					return nil, nil, false
				}
				pf.Form = "mapKeys"
				ps.Fields = append(ps.Fields, pf)
				check = append(check, fmt.Sprintf("%s=%d", f.source, f.pbNum))
				continue
			}
			if f.Nested != nil {
				pf.Func, pf.Type = funcName(f.Nested), typeName(f.Nested)
				pf.Form = map[string]string{"value": "nested", "pointer": "nestedPointer", "slice": "nestedSlice"}[f.Shape]
			} else {
				form, elem, ok := leafForm(f.typ)
				if !ok {
					return nil, nil, false
				}
				pf.Form, pf.Type, pf.Conv = form, types.TypeString(f.typ, q), types.TypeString(f.typ, q)
				if elem != nil {
					pf.Elem, pf.Conv = types.TypeString(elem, q), types.TypeString(elem, q)
				}
				if strings.HasPrefix(form, "string") && pf.Conv == "string" || strings.HasPrefix(form, "bool") && pf.Conv == "bool" {
					pf.Conv = ""
				}
			}
			ps.Fields = append(ps.Fields, pf)
			check = append(check, fmt.Sprintf("%s=%d", f.GoName, f.pbNum))
		}
		structs = append(structs, ps)
		checks = append(checks, pbCheck{Type: types.TypeString(s.sourceType, q), Fields: strings.Join(check, ",")})
	}
	return structs, checks, true
}

// objectMetaNumber is the protobuf field number of a kind's ObjectMeta, 0
// when it has none.
func objectMetaNumber(st *types.Struct) int32 {
	for i := range st.NumFields() {
		f := st.Field(i)
		if n, ok := f.Type().(*types.Named); ok && n.Obj().Name() == "ObjectMeta" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == metav1Path {
			return protobufTagNumber(st.Tag(i))
		}
	}
	return 0
}

// hasProtobufUnmarshal reports whether *t has an Unmarshal([]byte) error
// method, as go-to-protobuf generates.
func hasProtobufUnmarshal(t types.Type) bool {
	obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, nil, "Unmarshal")
	fn, ok := obj.(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 1 || sig.Results().Len() != 1 {
		return false
	}
	sl, ok := sig.Params().At(0).Type().(*types.Slice)
	if !ok {
		return false
	}
	b, ok := sl.Elem().(*types.Basic)
	return ok && b.Kind() == types.Byte && types.Identical(sig.Results().At(0).Type(), types.Universe.Lookup("error").Type())
}

// leafForm returns how the decoder reads a kept leaf of type t, and the
// element type it names (of a pointer or slice), or ok false for a type it
// does not read. The wire type follows from the Go type as go-to-protobuf
// maps it (strings, bytes, messages and maps length-delimited, bools and
// integers varints); the tags' wire kinds are not read, as some are wrong
// (PodSpec.Priority, an int32, is tagged "bytes").
func leafForm(t types.Type) (form string, elem types.Type, ok bool) {
	scalar := func(t types.Type) string {
		if hasProtobufUnmarshal(t) {
			if _, isStruct := t.Underlying().(*types.Struct); isStruct {
				return "message"
			}
			return ""
		}
		b, isBasic := t.Underlying().(*types.Basic)
		if !isBasic {
			return ""
		}
		switch k := b.Kind(); {
		case k == types.String:
			return "string"
		case k == types.Bool:
			return "bool"
		case k == types.Int32 || k == types.Int64 || k == types.Uint32 || k == types.Uint64:
			return "varint"
		}
		return ""
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		if _, named := t.(*types.Named); named {
			return "", nil, false
		}
		if s := scalar(u.Elem()); s != "" {
			return s + "Pointer", u.Elem(), true
		}
	case *types.Slice:
		if b, isBasic := u.Elem().Underlying().(*types.Basic); isBasic && b.Kind() == types.Byte {
			return "bytes", nil, true
		}
		switch s := scalar(u.Elem()); s {
		case "string", "message", "varint":
			return s + "Slice", u.Elem(), true
		}
	case *types.Map:
		k, isBasic := u.Key().Underlying().(*types.Basic)
		if !isBasic || k.Kind() != types.String {
			return "", nil, false
		}
		if vb, isBasic := u.Elem().Underlying().(*types.Basic); isBasic && vb.Kind() == types.String {
			return "stringMap", nil, true
		}
		if scalar(u.Elem()) == "message" {
			return "messageMap", nil, true
		}
	default:
		if s := scalar(t); s != "" {
			return s, nil, true
		}
	}
	return "", nil, false
}
