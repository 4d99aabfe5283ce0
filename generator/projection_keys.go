package generator

import (
	"fmt"
	"go/token"
	"go/types"
	"reflect"

	"github.com/informer-gen/informer-gen/generator/decode"
)

// Key-name projections: a path written PATH:keys (".data:keys") projects the
// key names of the map field at PATH, not the map: the generated field is
// the map's Go name + "Keys" (DataKeys), of type wire.MapKeys (a sorted
// []string of names shared between objects), with the map's JSON tag and
// protobuf number, so that both decoders find it where the map is on the
// wire and read its keys, skipping the values. A Secret projection with
// .data:keys holds "tls.crt", not the certificate.

// keysForm is the form after ':' in PATH:keys.
const keysForm = "keys"

// mapKeysType is runtime/wire's MapKeys as the generated code names it. It
// is declared here, not loaded (the inputs need not import the runtime),
// with the one method the decoder stage looks for: UnmarshalJSONFrom makes
// the generated JSON decoder hand the field to the codec's decoder, which
// calls MapKeys' own method.
var mapKeysType = func() *types.Named {
	pkg := types.NewPackage(decode.WirePath, "wire")
	n := types.NewNamed(types.NewTypeName(token.NoPos, pkg, "MapKeys", nil), types.NewSlice(types.Typ[types.String]), nil)
	jsontext := types.NewPackage("github.com/go-json-experiment/json/jsontext", "jsontext")
	decoder := types.NewNamed(types.NewTypeName(token.NoPos, jsontext, "Decoder", nil), types.NewStruct(nil, nil), nil)
	sig := types.NewSignatureType(types.NewVar(token.NoPos, pkg, "k", types.NewPointer(n)), nil, nil,
		types.NewTuple(types.NewVar(token.NoPos, pkg, "dec", types.NewPointer(decoder))),
		types.NewTuple(types.NewVar(token.NoPos, pkg, "", types.Universe.Lookup("error").Type())), false)
	n.AddMethod(types.NewFunc(token.NoPos, pkg, "UnmarshalJSONFrom", sig))
	return n
}()

// keysField adds the leaf of PATH:keys to s: the key names of the map field
// found (here in JSON names), as goName. existing is the field of s with the
// same JSON name, if any.
func (s *ProjStruct) keysField(found *foundField, existing *ProjField, goName, here string, pos token.Position) (string, *Diagnostic) {
	path := here + ":" + keysForm
	fail := func(msg, hint string) (string, *Diagnostic) {
		return "", &Diagnostic{Message: msg, Hint: hint}
	}
	switch {
	case existing != nil && existing.keys:
		return fail(fmt.Sprintf("field path %s is given twice", path), "")
	case existing != nil:
		return fail(fmt.Sprintf("field path %s: %s is projected too", path, here),
			"project the map whole or its key names, not both")
	}
	m, ok := found.typ.Underlying().(*types.Map)
	if !ok {
		return fail(fmt.Sprintf("field path %s: %s is %s, not a map", path, here, types.TypeString(found.typ, qualifier)),
			":"+keysForm+" projects the key names of a map field; name the field alone to project it whole")
	}
	if k, ok := m.Key().Underlying().(*types.Basic); !ok || k.Kind() != types.String {
		return fail(fmt.Sprintf("field path %s: %s is %s, whose keys are not strings", path, here, types.TypeString(found.typ, qualifier)),
			"name the field alone to project it whole")
	}
	if meth := decodesItself(found.typ); meth != "" {
		return fail(fmt.Sprintf("field path %s: %s is %s, which decodes itself (%s), so its JSON need not be an object of its keys", path, here, types.TypeString(found.typ, qualifier), meth),
			"name the field alone to project it whole")
	}
	tag, _ := reflect.StructTag(s.tagOf(found)).Lookup("json")
	s.Fields = append(s.Fields, &ProjField{GoName: goName, JSONTag: tag, typ: mapKeysType, path: path, pos: pos,
		pbNum: s.protobufNumber(found), keys: true, source: found.goPath[len(found.goPath)-1], sourceType: found.typ})
	return path, nil
}

// keysProtobuf reports whether the protobuf decoder reads the keys of the
// map f projects: string keys (checked by keysField) and values encoded
// length-delimited (strings, bytes, messages), which MapKey skips as the
// generated Unmarshal reads them.
func keysProtobuf(f *ProjField) bool {
	m := f.sourceType.Underlying().(*types.Map)
	switch u := m.Elem().Underlying().(type) {
	case *types.Basic:
		return u.Kind() == types.String
	case *types.Slice:
		b, ok := u.Elem().Underlying().(*types.Basic)
		return ok && b.Kind() == types.Byte
	}
	form, _, ok := leafForm(m.Elem())
	return ok && form == "message"
}
