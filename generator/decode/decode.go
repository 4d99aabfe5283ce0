// Package decode is informer-gen's decoder stage: for the object types it
// generates informers for, it plans type-specific JSON decode functions (the
// object type and every struct type reachable from it, in any package) that
// read from runtime/wire's *JSONDecoder, as plain data for the "decode"
// template. The render stage executes the template; runtime/wire's codec
// calls the functions through factory.Type.DecodeJSON.
//
// The plan only takes a fast path where it is sure of encoding/json v1's
// semantics as runtime/wire's codec applies them: plain structs (exported
// fields, tags with no option beyond omitempty, omitzero and the inline of an
// embedded struct, no two fields with one JSON name), strings, bools,
// integers, floats, pointers, slices, string-keyed maps, and the apimachinery
// types the codec decodes itself (metav1.Time, MicroTime, FieldsV1, string
// maps, managedFields). Everything else (a type with an UnmarshalJSON,
// UnmarshalJSONFrom or UnmarshalText method, an interface, []byte, an array,
// a struct with a `string` tag or conflicting names, a type generated code
// cannot name) is decoded by (*wire.JSONDecoder).DecodeDefault: the codec's
// own reflective decoder, from the same position.
package decode

import (
	"go/types"
	"path"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/types/typeutil"
)

// WirePath is the import path of the runtime package generated decoders use.
const WirePath = "github.com/informer-gen/informer-gen/runtime/wire"

const metav1Path = "k8s.io/apimachinery/pkg/apis/meta/v1"

// Importer returns the name the generated file refers to the package at
// path by (adding the import); name is the package's declared name.
type Importer func(path, name string) string

// File is the data of one generated decode.go (or of a shared decoder
// package's file, see SharedFiles).
type File struct {
	// Wire qualifies runtime/wire's names in the functions: "wire." (the
	// package's alias and a dot), or "" in package wire itself.
	Wire     string
	Structs  []*Struct
	Wrappers []*Wrapper
	// Shared are the aliases of the shared decoder packages other than
	// runtime/wire that the functions call (wirecorev1), sorted: a
	// generated decode.go passes each one's X.Current to wire.CheckedDecoder.
	Shared []string
	// Methods are, in a shared decoder package other than runtime/wire, the
	// exported methods on its Decoders type that generated packages call
	// (through its X), one per table entry, sorted by name.
	Methods []*Method
}

// Struct is the decode function of one struct type.
type Struct struct {
	// Func is how the planned file refers to the function: its name
	// (jsonCorev1Pod), or for a method of runtime/wire's JSONDecoder (a
	// shared decoder planned in package wire) the method expression
	// ((*JSONDecoder).DecodeObjectMeta).
	Func string
	// Name is the declared name; Method reports a method of
	// *JSONDecoder rather than a function.
	Name   string
	Method bool
	Type   string // corev1.Pod
	Fields []*Field
	typ    types.Type
}

// Method is an exported method of a shared decoder package's Decoders type:
// Name (PodSpec) decodes Type (corev1.PodSpec) by calling Func (jsonPodSpec).
type Method struct {
	Name, Type, Func string
}

// NamesQ is the struct's JSON member names, comma-separated, as a Go string
// literal: what wire.CheckedDecoder compares with the compiled type.
func (s *Struct) NamesQ() string { return strconv.Quote(s.names()) }

// names are the JSON members the function reads, comma-separated.
func (s *Struct) names() string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ",")
}

// Seen reports whether a field needs the seen array (not every field is
// Default).
func (s *Struct) Seen() bool {
	for _, f := range s.Fields {
		if !f.Default() {
			return true
		}
	}
	return false
}

// Count is the number of fields, for the seen array.
func (s *Struct) Count() int { return len(s.Fields) }

// Field is one JSON member of a struct (possibly promoted from an embedded
// struct).
type Field struct {
	Name  string // the JSON name
	Index int    // in the seen array
	Path  string // Go selector from the struct: TypeMeta.Kind
	Func  string // decode function of the field's type
	wire  string // File.Wire
}

// NameQ is the JSON name as a Go string literal.
func (f *Field) NameQ() string { return strconv.Quote(f.Name) }

// Default reports a field decoded by (*wire.JSONDecoder).DecodeDefault,
// which the template calls directly: a repeat would go to DecodeDefault too,
// so the field needs no DecodeField (and DecodeDefault, which takes any
// pointer, is never a func value).
func (f *Field) Default() bool { return f.Func == defaultRef(f.wire) }

// defaultRef is the reference the planner gives a type decoded by the
// codec's reflective decoder.
func defaultRef(wire string) string { return "(*" + wire + "JSONDecoder).DecodeDefault" }

// Wrapper is the decode function of a pointer, slice or map type: one call
// of a runtime/wire helper with the element's decode function.
type Wrapper struct {
	Func   string // jsonSliceCorev1Container, or a method expression (Struct.Func)
	Name   string // the declared name
	Method bool   // a method of *JSONDecoder (Struct.Method)
	Type   string // []corev1.Container
	Helper string // wire.DecodeSlice
	Elem   string // jsonCorev1Container
	// ElemType is set for a pointer type (*metav1.Time: metav1.Time), whose
	// function is written out rather than a call of a generic helper over the
	// element type (see JSONDecoder.DecodeDefault on shapes).
	ElemType string
	typ      types.Type
}

// Plan returns the decode functions of roots (named struct types) and of
// every type reachable from them, and the name of each root's function (""
// for a root that is decoded by the default decoder, or that has its own
// UnmarshalJSON, which the codec's decoder calls). Types a shared decoder
// package decodes for every generated package (sharedSets: runtime/wire for
// metav1.ObjectMeta and the like, runtime/wire/corev1 for PodTemplateSpec,
// PodSpec and what they reach) are referred to there, not planned again; a
// root may itself be such a type.
func Plan(roots []*types.Named, imp Importer) (*File, []string) {
	ts := make([]types.Type, len(roots))
	for i, r := range roots {
		ts[i] = r
	}
	return plan(ts, imp, nil)
}

// plan plans roots for a generated package (home nil) or for the shared
// decoder package home.
func plan(roots []types.Type, imp Importer, home *sharedSet) (*File, []string) {
	p := &planner{imp: imp, home: home, self: home == wireSet, names: map[string]bool{}}
	if !p.self {
		p.wire = imp(WirePath, "wire") + "."
	}
	p.file.Wire = p.wire
	var out []string
	for _, r := range roots {
		f := p.ref(r)
		if f == p.def() || f == p.wire+"DecodeMethod" {
			// Decoded by the codec's own decoder, which calls a root's
			// UnmarshalJSON as DecodeMethod would (Zalando's Postgresql
			// has one); DecodeMethod is generic, and a root's decoder
			// must name a func of its pointer type.
			f = ""
		}
		out = append(out, f)
	}
	for len(p.queue) > 0 {
		s := p.queue[0]
		p.queue = p.queue[1:]
		p.fill(s)
	}
	slices.SortFunc(p.file.Structs, func(a, b *Struct) int { return strings.Compare(a.Func, b.Func) })
	slices.SortFunc(p.file.Wrappers, func(a, b *Wrapper) int { return strings.Compare(a.Func, b.Func) })
	slices.Sort(p.file.Shared)
	return &p.file, out
}

type planner struct {
	imp   Importer
	home  *sharedSet   // the shared decoder package planned, or nil
	self  bool         // planning runtime/wire's shared decoders, in package wire
	wire  string       // "wire.", or "" when self
	refs  typeutil.Map // types.Type -> string (function reference)
	names map[string]bool
	file  File
	queue []pending
}

type pending struct {
	s  *Struct
	st *types.Struct
}

func (p *planner) def() string { return defaultRef(p.wire) }

// method returns the reference to the method name of *wire.JSONDecoder.
func (p *planner) method(name string) string { return "(*" + p.wire + "JSONDecoder)." + name }

func (p *planner) qualifier(pkg *types.Package) string {
	if p.self && pkg.Path() == WirePath {
		return ""
	}
	name := pkg.Name()
	if len(name) > 1 && name[0] == 'v' && name[1] >= '0' && name[1] <= '9' {
		// k8s.io/api/core/v1 as corev1, as upstream's generators name it.
		name = path.Base(path.Dir(pkg.Path())) + name
	}
	return p.imp(pkg.Path(), name)
}

// ref returns the decode function of t, planning it on first use.
func (p *planner) ref(t types.Type) string {
	if r := p.refs.At(t); r != nil {
		return r.(string)
	}
	r := p.plan(t)
	p.refs.Set(t, r)
	return r
}

func (p *planner) plan(t types.Type) string {
	if ref, ok := p.shared(t); ok {
		return ref
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == metav1Path {
		switch n.Obj().Name() {
		case "Time":
			return p.method("DecodeTime")
		case "MicroTime":
			return p.method("DecodeMicroTime")
		case "FieldsV1":
			return p.method("DecodeFieldsV1")
		}
	}
	if _, ptr := t.(*types.Pointer); !ptr && hasUnmarshaler(t) {
		if jsonMethodOnly(t) {
			return p.wire + "DecodeMethod"
		}
		return p.def() // a pointer's element is checked on its own
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Kind() == types.String:
			return p.wire + "DecodeString"
		case u.Kind() == types.Bool:
			return p.wire + "DecodeBool"
		case u.Kind() >= types.Int && u.Kind() <= types.Int64,
			u.Kind() >= types.Uint && u.Kind() <= types.Uint64,
			u.Kind() == types.Float32 || u.Kind() == types.Float64:
			return p.wire + "DecodeNumber"
		}
	case *types.Pointer:
		if _, named := t.(*types.Named); named || !nameable(t) {
			break
		}
		switch u.Elem().Underlying().(type) {
		case *types.Pointer, *types.Interface:
			return p.def()
		}
		return p.wrap(t, "", u.Elem())
	case *types.Slice:
		if b, ok := u.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Uint8 || !nameable(t) {
			break // []byte is base64
		}
		if isManagedFields(t) {
			return p.wrap(t, p.method("DecodeManagedFields"), u.Elem())
		}
		return p.wrap(t, p.wire+"DecodeSlice", u.Elem())
	case *types.Map:
		if _, named := t.(*types.Named); !named && isString(u.Key()) && isString(u.Elem()) {
			return p.method("DecodeStringMap")
		}
		if k, ok := u.Key().Underlying().(*types.Basic); !ok || k.Kind() != types.String || hasUnmarshaler(u.Key()) || !nameable(t) {
			break
		}
		return p.wrap(t, p.wire+"DecodeMap", u.Elem())
	case *types.Struct:
		n, ok := t.(*types.Named)
		if !ok || n.TypeArgs().Len() > 0 || !nameable(t) {
			break
		}
		if _, ok := structFields(u); !ok {
			break
		}
		s := &Struct{Type: types.TypeString(t, p.qualifier), typ: t}
		s.Func, s.Name, s.Method = p.funcName(t)
		p.file.Structs = append(p.file.Structs, s)
		p.refs.Set(t, s.Func) // before the fields: types may be recursive
		p.queue = append(p.queue, pending{s, u})
		return s.Func
	}
	return p.def()
}

// fill plans the fields of a struct.
func (p *planner) fill(q pending) {
	fields, _ := structFields(q.st)
	for i, f := range fields {
		q.s.Fields = append(q.s.Fields, &Field{Name: f.name, Index: i, Path: f.path, Func: p.ref(f.typ), wire: p.wire})
	}
}

// wrap plans the decode function of t, a pointer (helper "": the function
// is written out), slice or map type, calling helper with the decode
// function of elem. When elem is decoded by the codec's reflective decoder,
// so is t, with no function of its own: a wrapper would only add a call.
func (p *planner) wrap(t types.Type, helper string, elem types.Type) string {
	w := &Wrapper{Type: types.TypeString(t, p.qualifier), Helper: helper, typ: t}
	if helper == "" {
		w.ElemType = types.TypeString(elem, p.qualifier)
	}
	w.Func, w.Name, w.Method = p.funcName(t)
	p.refs.Set(t, w.Func) // before the element: types may be recursive
	w.Elem = p.ref(elem)
	if w.Elem == p.def() && !w.Method {
		// Nothing refers to t's function yet: a reference through elem
		// would have planned elem as a function.
		delete(p.names, w.Name)
		p.refs.Set(t, p.def())
		return p.def()
	}
	p.file.Wrappers = append(p.file.Wrappers, w)
	return w.Func
}

// shared returns the reference to t's function in a shared decoder package
// the planned file may call: for a generated package any of them, for a
// shared package those before it in sharedSets (runtime/wire/corev1 calls
// runtime/wire, never the reverse).
func (p *planner) shared(t types.Type) (string, bool) {
	key := sharedKey(t)
	for _, s := range sharedSets {
		if s == p.home {
			return "", false
		}
		name, ok := s.funcs()[key]
		if !ok {
			continue
		}
		if api := s.apiPackage(t); api != nil && !s.current(api) {
			// Generated from another version of s.api: the types
			// are planned here, as any other package's are.
			continue
		}
		if s == wireSet {
			return p.method(name), true
		}
		alias := p.imp(s.path, s.alias)
		if !slices.Contains(p.file.Shared, alias) {
			p.file.Shared = append(p.file.Shared, alias)
		}
		return alias + ".X." + name, true
	}
	return "", false
}

// funcName returns how the planned file refers to t's decode function, its
// declared name, and whether it is a method of *JSONDecoder: in package wire,
// the method SharedTypes names for t; else the function json<mangled type>
// (a shared decoder package other than wire exports it as a method of its
// Decoders, see File.Methods).
func (p *planner) funcName(t types.Type) (ref, name string, method bool) {
	if p.home == wireSet {
		if name, ok := p.home.funcs()[sharedKey(t)]; ok {
			p.names[name] = true
			return p.method(name), name, true
		}
	}
	name = p.name("json" + p.mangle(t))
	return name, name, false
}

// name returns want, or want with a number when it is taken.
func (p *planner) name(want string) string {
	n := want
	for i := 2; p.names[n]; i++ {
		n = want + strconv.Itoa(i)
	}
	p.names[n] = true
	return n
}

// mangle turns a type into the part of a Go identifier that names it.
func (p *planner) mangle(t types.Type) string {
	switch t := t.(type) {
	case *types.Named:
		pkg := ""
		if t.Obj().Pkg() != nil && (p.home == nil || !p.home.exportAll || t.Obj().Pkg().Path() != p.home.api) {
			pkg = upperFirst(p.qualifier(t.Obj().Pkg()))
		}
		return pkg + upperFirst(t.Obj().Name())
	case *types.Basic:
		return upperFirst(t.Name())
	case *types.Pointer:
		return "Ptr" + p.mangle(t.Elem())
	case *types.Slice:
		return "Slice" + p.mangle(t.Elem())
	case *types.Map:
		return "Map" + p.mangle(t.Key()) + "To" + p.mangle(t.Elem())
	}
	return "T"
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func isString(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Kind() == types.String
}

// isManagedFields reports []metav1.ManagedFieldsEntry.
func isManagedFields(t types.Type) bool {
	s, ok := t.(*types.Slice)
	if !ok {
		return false
	}
	n, ok := s.Elem().(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == metav1Path && n.Obj().Name() == "ManagedFieldsEntry"
}

// hasUnmarshaler reports whether t or *t has a method the JSON decoder
// calls instead of decoding the value itself.
func hasUnmarshaler(t types.Type) bool {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return true // an interface: decoded by what it holds
	}
	ms := types.NewMethodSet(t)
	if _, isPtr := t.(*types.Pointer); !isPtr {
		ms = types.NewMethodSet(types.NewPointer(t))
	}
	for _, m := range []string{"UnmarshalJSON", "UnmarshalJSONFrom", "UnmarshalText"} {
		if ms.Lookup(nil, m) != nil {
			return true
		}
		// Methods of unexported names are looked up per package; the
		// exported names above are enough.
	}
	return false
}

// jsonMethodOnly reports a type whose decoding is its UnmarshalJSON method
// alone: *t has UnmarshalJSON and no UnmarshalJSONFrom (which would take
// precedence), and t is not an interface.
func jsonMethodOnly(t types.Type) bool {
	if _, ok := t.Underlying().(*types.Interface); ok {
		return false
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	return ms.Lookup(nil, "UnmarshalJSON") != nil && ms.Lookup(nil, "UnmarshalJSONFrom") == nil
}

// nameable reports whether generated code in another package can spell t:
// no unexported named types, none from internal or vendor packages.
func nameable(t types.Type) bool {
	switch t := t.(type) {
	case *types.Named:
		obj := t.Obj()
		if !obj.Exported() || obj.Pkg() == nil || t.TypeArgs().Len() > 0 {
			return obj.Pkg() == nil && t.TypeArgs().Len() == 0 // error and the like
		}
		for _, part := range strings.Split(obj.Pkg().Path(), "/") {
			if part == "internal" || part == "vendor" || part == "main" {
				return false
			}
		}
		return obj.Pkg().Name() != "main"
	case *types.Basic:
		return true
	case *types.Pointer:
		return nameable(t.Elem())
	case *types.Slice:
		return nameable(t.Elem())
	case *types.Map:
		return nameable(t.Key()) && nameable(t.Elem())
	}
	return false
}

type fieldInfo struct {
	name, path string
	typ        types.Type
}

// structFields returns the JSON members of st as encoding/json v1 (and
// go-json-experiment with v1's options) sees them, with embedded structs'
// fields promoted; ok is false for a struct whose decoding is not plain
// enough to generate (it is then decoded by the default decoder).
func structFields(st *types.Struct) (fields []fieldInfo, ok bool) {
	if !collect(st, "", map[*types.Struct]bool{}, &fields) {
		return nil, false
	}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.name] {
			return nil, false // v1's dominance rules: not worth the risk
		}
		seen[f.name] = true
	}
	return fields, true
}

func collect(st *types.Struct, prefix string, visiting map[*types.Struct]bool, out *[]fieldInfo) bool {
	if visiting[st] {
		return false
	}
	visiting[st] = true
	defer delete(visiting, st)
	for i := range st.NumFields() {
		f := st.Field(i)
		tag := reflect.StructTag(st.Tag(i)).Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		inline := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "", "omitempty", "omitzero":
			case "inline":
				inline = true
			default:
				return false // string, format, unknown, case: not plain
			}
		}
		if f.Embedded() {
			if _, ptr := f.Type().(*types.Pointer); ptr {
				return false
			}
			est, isStruct := f.Type().Underlying().(*types.Struct)
			if !f.Exported() && !isStruct {
				continue // v1 ignores it
			}
			if name == "" && isStruct {
				if !f.Exported() {
					return false
				}
				if !collect(est, prefix+f.Name()+".", visiting, out) {
					return false
				}
				continue
			}
			if !f.Exported() || inline {
				return false
			}
		} else {
			if !f.Exported() {
				continue
			}
			if inline {
				return false // v2 would inline it, v1 not
			}
		}
		if name == "" {
			name = f.Name()
		}
		if !plainName(name) {
			return false
		}
		*out = append(*out, fieldInfo{name: name, path: prefix + f.Name(), typ: f.Type()})
	}
	return true
}

// plainName reports a JSON name both encoding/json versions accept as it
// is.
func plainName(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.', r == '$', r == '/', r == '@':
		default:
			return false
		}
	}
	return s != ""
}
