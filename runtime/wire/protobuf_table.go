package wire

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The table-driven protobuf decoder of built-in kinds: a pbTable per Go
// struct type, built once by reflection over the `protobuf:"…"` struct tags
// go-to-protobuf writes on every k8s.io/api type, says for each field number
// where the field lives (its offset) and how to read it. pbTableDecoder
// (protobuf_table_decode.go) walks an object's bytes with those tables,
// writing through the offsets, with the rules of the gogo-generated
// Unmarshal methods it replaces. It is compiled once, here, for every type,
// and it allocates less than the generated code: strings repeated across
// objects are interned, identical maps shared, Quantities reused.
//
// A struct the tables cannot describe (one with unexported fields, or no
// protobuf-tagged field: resource.Quantity, metav1.Time, and any type whose
// Unmarshal is written by hand; a tag of a kind not described below) is
// decoded by its own Unmarshal method, as a whole, wherever it appears.

// pbKind is what one value of a field is on the wire and in memory.
type pbKind uint8

const (
	pbKString   pbKind = iota + 1 // string (or a string type), length-delimited
	pbKBytes                      // []byte, length-delimited
	pbKBool                       // bool, varint
	pbKInt32                      // int32 (or an int32 type), varint
	pbKInt64                      // int64, varint
	pbKUint32                     // uint32, varint
	pbKUint64                     // uint64, varint
	pbKInt                        // int, varint
	pbKFloat64                    // float64, fixed64
	pbKFloat32                    // float32, fixed32
	pbKMessage                    // a struct with a table
	pbKCustom                     // a value with its own Unmarshal method
	pbKQuantity                   // resource.Quantity (its own Unmarshal; reused by bytes)
	pbKMap                        // a map; the field is repeated entries
	pbKSkip                       // a length-delimited field skipped (managedFields)
)

// pbCard is how many values a field holds and how.
type pbCard uint8

const (
	pbSingle   pbCard = iota // T
	pbPointer                // *T, allocated when first read
	pbRepeated               // []T, appended to
)

// pbField describes one field of a pbTable.
type pbField struct {
	name string // the Go field's name, for errors
	off  uintptr
	kind pbKind
	card pbCard
	wt   int // the wire type of one value
	// intern: string values are interned (see pbInternExempt).
	intern bool
	// share: the field's value is shared between objects whose bytes for
	// it are equal (pbTableDecoder.shareable): a pointer to a message, or
	// a repeated field of messages or strings.
	share  bool
	typ    reflect.Type // the Go field's type
	elem   reflect.Type // one value's type (typ, or its element)
	msg    *pbTable     // pbKMessage
	custom func(p unsafe.Pointer, b []byte) error
	mp     *pbMapField // pbKMap
}

// pbMapField describes a map field: its key (a string type) and value.
type pbMapField struct {
	val *pbField // the value, a pbSingle field at offset 0 of its own memory
	// fast paths, by the value's kind: map[~string]~string,
	// map[~string][]byte, map[~string]resource.Quantity.
	stringString, stringBytes, stringQuantity bool
}

// pbTable is the table of one struct type.
type pbTable struct {
	typ    reflect.Type
	fields []*pbField // by field number; nil: unknown, skipped
}

func (t *pbTable) field(n int32) *pbField {
	if int(n) < len(t.fields) {
		return t.fields[n]
	}
	return nil
}

var (
	pbTablesMu sync.Mutex
	pbTables   = map[reflect.Type]*pbTable{} // nil value: no table
)

// pbTableOf returns the table of the struct type t, or nil when t is
// decoded by its own Unmarshal (or cannot be decoded at all).
func pbTableOf(t reflect.Type) *pbTable {
	pbTablesMu.Lock()
	defer pbTablesMu.Unlock()
	return pbBuildTableLocked(t, map[reflect.Type]*pbTable{})
}

var (
	pbQuantityType = reflect.TypeFor[resource.Quantity]()
	pbTimeType     = reflect.TypeFor[metav1.Time]()
	pbMicroType    = reflect.TypeFor[metav1.MicroTime]()
)

// pbInternExempt are the string fields whose values are unique to an
// object, which interning would only churn: "pkgpath.Type.Field".
var pbInternExempt = map[string]bool{
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta.Name":            true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta.UID":             true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta.ResourceVersion": true,
	"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta.SelfLink":        true,
	"k8s.io/api/core/v1.PodStatus.PodIP":                              true,
	"k8s.io/api/core/v1.PodIP.IP":                                     true,
	"k8s.io/api/core/v1.ContainerStatus.ContainerID":                  true,
}

// pbBuildTableLocked builds t's table; building holds the tables under
// construction (for recursive types).
func pbBuildTableLocked(t reflect.Type, building map[reflect.Type]*pbTable) *pbTable {
	if tab, ok := pbTables[t]; ok {
		return tab
	}
	if tab, ok := building[t]; ok {
		return tab
	}
	if t.Kind() != reflect.Struct || t == pbQuantityType || t == pbTimeType || t == pbMicroType {
		return nil
	}
	tab := &pbTable{typ: t}
	building[t] = tab
	ok := true
	tagged := 0
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			ok = false
			break
		}
		tag := sf.Tag.Get("protobuf")
		if tag == "" {
			continue // not on the wire: TypeMeta, RawExtension.Object
		}
		tagged++
		f := pbBuildField(t, sf, tag, building)
		if f == nil {
			ok = false
			break
		}
		parts := strings.Split(tag, ",")
		if len(parts) < 2 {
			ok = false
			break
		}
		num, _ := strconv.Atoi(parts[1])
		if num <= 0 || num > 1<<12 {
			ok = false
			break
		}
		for len(tab.fields) <= num {
			tab.fields = append(tab.fields, nil)
		}
		if tab.fields[num] != nil {
			ok = false
			break
		}
		tab.fields[num] = f
	}
	delete(building, t)
	if !ok || tagged == 0 {
		tab = nil
	}
	pbTables[t] = tab
	return tab
}

// pbBuildField describes the struct field sf of owner with protobuf tag
// tag (owner nil: a field of no struct, a projection's map or slice, whose
// strings are interned), or returns nil when it cannot. Only the tag's field number is used:
// the generated Unmarshal follows the .proto files, which go-to-protobuf
// derives from the Go types, and some hand-edited tags of k8s.io/api say
// otherwise (core/v1 PodSpec's Tolerations are "opt", its Priority
// "bytes", PodStatus's QOSClass "rep"). The Go type says it all: a slice
// (but []byte) is a repeated field, a map repeated entries, a pointer an
// optional value; strings, bytes and structs are length-delimited, bools
// and integers varints, float64 fixed64, float32 fixed32.
func pbBuildField(owner reflect.Type, sf reflect.StructField, tag string, building map[reflect.Type]*pbTable) *pbField {
	f := &pbField{name: sf.Name, off: sf.Offset, typ: sf.Type, elem: sf.Type}
	ft := sf.Type
	switch {
	case ft.Kind() == reflect.Map:
		if ft.Key().Kind() != reflect.String {
			return nil
		}
		val := pbValue(&pbField{name: sf.Name, typ: ft.Elem(), elem: ft.Elem()}, ft.Elem(), building)
		if val == nil || val.wt != wireBytes {
			return nil // a map of scalars: its struct is left to its own Unmarshal
		}
		val.intern = true
		f.kind, f.card, f.wt = pbKMap, pbSingle, wireBytes
		f.mp = &pbMapField{
			val:            val,
			stringString:   val.kind == pbKString,
			stringBytes:    val.kind == pbKBytes,
			stringQuantity: val.kind == pbKQuantity,
		}
		return f
	case ft.Kind() == reflect.Pointer:
		f.card, f.elem = pbPointer, ft.Elem()
	case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
		f.card, f.elem = pbRepeated, ft.Elem()
	}
	if f.card != pbSingle && (f.elem.Kind() == reflect.Pointer || f.elem.Kind() == reflect.Map ||
		f.elem.Kind() == reflect.Slice && f.elem.Elem().Kind() != reflect.Uint8) {
		return nil // *[]T, []*T, [][]T: not in k8s.io/api
	}
	f.intern = owner == nil || !pbInternExempt[owner.PkgPath()+"."+owner.Name()+"."+sf.Name]
	if pbValue(f, f.elem, building) == nil {
		return nil
	}
	f.share = f.card == pbPointer && f.kind == pbKMessage ||
		f.card == pbRepeated && (f.kind == pbKMessage || f.kind == pbKString)
	return f
}

// pbValue sets f's kind and wire type for a value of Go type vt, or
// returns nil when it cannot describe it.
func pbValue(f *pbField, vt reflect.Type, building map[reflect.Type]*pbTable) *pbField {
	switch vt.Kind() {
	case reflect.Bool:
		f.kind, f.wt = pbKBool, wireVarint
	case reflect.Int32:
		f.kind, f.wt = pbKInt32, wireVarint
	case reflect.Int64:
		f.kind, f.wt = pbKInt64, wireVarint
	case reflect.Uint32:
		f.kind, f.wt = pbKUint32, wireVarint
	case reflect.Uint64:
		f.kind, f.wt = pbKUint64, wireVarint
	case reflect.Int:
		f.kind, f.wt = pbKInt, wireVarint
	case reflect.Float64:
		f.kind, f.wt = pbKFloat64, wireFixed64
	case reflect.Float32:
		f.kind, f.wt = pbKFloat32, wireFixed32
	case reflect.String:
		f.kind, f.wt = pbKString, wireBytes
	case reflect.Slice:
		if vt.Elem().Kind() == reflect.Uint8 && vt.Elem() == reflect.TypeFor[byte]() {
			f.kind, f.wt = pbKBytes, wireBytes
		} else if fn := pbCustomUnmarshal(vt); fn != nil { // a named slice with its own Unmarshal
			f.kind, f.wt, f.custom = pbKCustom, wireBytes, fn
		} else {
			return nil
		}
	case reflect.Struct:
		f.wt = wireBytes
		switch {
		case vt == pbQuantityType:
			f.kind = pbKQuantity
		default:
			if tab := pbBuildTableLocked(vt, building); tab != nil {
				f.kind, f.msg = pbKMessage, tab
			} else if fn := pbCustomUnmarshal(vt); fn != nil {
				f.kind, f.custom = pbKCustom, fn
			} else {
				return nil
			}
		}
	default:
		return nil
	}
	return f
}

// pbCustomUnmarshal returns a function calling the Unmarshal method of *vt
// on the value at p, or nil when *vt has none.
func pbCustomUnmarshal(vt reflect.Type) func(unsafe.Pointer, []byte) error {
	switch vt {
	case pbTimeType:
		return func(p unsafe.Pointer, b []byte) error { return (*metav1.Time)(p).Unmarshal(b) }
	case pbMicroType:
		return func(p unsafe.Pointer, b []byte) error { return (*metav1.MicroTime)(p).Unmarshal(b) }
	}
	if !reflect.PointerTo(vt).Implements(reflect.TypeFor[pbUnmarshaler]()) {
		return nil
	}
	return func(p unsafe.Pointer, b []byte) error {
		return reflect.NewAt(vt, p).Interface().(pbUnmarshaler).Unmarshal(b)
	}
}

// pbWithoutManagedFieldsTable returns a copy of tab, the table of an
// object whose field 1 is its metav1.ObjectMeta, that skips the entries of
// that metadata's managedFields (checking only that they are
// length-delimited), or tab itself when its field 1 is not ObjectMeta.
func pbWithoutManagedFieldsTable(tab *pbTable) *pbTable {
	meta := tab.field(1)
	if meta == nil || meta.kind != pbKMessage || meta.card != pbSingle || meta.elem != reflect.TypeFor[metav1.ObjectMeta]() {
		return tab
	}
	m := *meta
	m.msg = pbObjectMetaWithoutManagedFields(meta.msg)
	out := *tab
	out.fields = append([]*pbField(nil), tab.fields...)
	out.fields[1] = &m
	return &out
}

// pbObjectMetaWithoutManagedFields returns a copy of mt, metav1.ObjectMeta's
// table, that skips the entries of its managedFields (checking only that
// they are length-delimited).
func pbObjectMetaWithoutManagedFields(mt *pbTable) *pbTable {
	out := *mt
	out.fields = append([]*pbField(nil), mt.fields...)
	if mf := out.field(pbObjectMetaManagedFields); mf != nil {
		skip := *mf
		skip.kind, skip.card, skip.wt = pbKSkip, pbSingle, wireBytes
		out.fields[pbObjectMetaManagedFields] = &skip
	}
	return &out
}

// pbObjectMetaTables are metav1.ObjectMeta's table and the one that skips
// managedFields, for the projections' metadata ((*ProtobufDecoder).ObjectMeta);
// nil when the table cannot describe ObjectMeta.
var pbObjectMetaTables = sync.OnceValues(func() (full, withoutManagedFields *pbTable) {
	full = pbTableOf(reflect.TypeFor[metav1.ObjectMeta]())
	if full == nil {
		return nil, nil
	}
	return full, pbObjectMetaWithoutManagedFields(full)
})

// pbMapFields are the map fields of pbMapFieldOf, by map type.
var pbMapFields sync.Map // reflect.Type → *pbField (nil: no table)

// pbMapFieldOf returns the pbField of a map of type t at offset 0 (the map
// fields of projections: ProtobufStringMap, ProtobufMessageMap), or nil
// when the tables cannot describe it.
func pbMapFieldOf(t reflect.Type) *pbField {
	if f, ok := pbMapFields.Load(t); ok {
		return f.(*pbField)
	}
	var f *pbField
	if t.Kind() == reflect.Map {
		pbTablesMu.Lock()
		f = pbBuildField(nil, reflect.StructField{Name: t.String(), Type: t}, "", map[reflect.Type]*pbTable{})
		pbTablesMu.Unlock()
	}
	got, _ := pbMapFields.LoadOrStore(t, f)
	return got.(*pbField)
}
