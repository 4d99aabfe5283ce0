package wire

import (
	"reflect"
	"sync"
	"unsafe"
)

// ProtobufMessages reads the field Next read, one element of a repeated
// message field, into *s, for generated projection decoders. The first
// element read into an empty slice reads the run of elements it starts (the
// field's consecutive occurrences, as every encoder writes a repeated
// field) with the table decoder, as the kind's own codec (NewProtobuf) reads
// it: into a slice made once with the run's length (appending one element
// at a time would leave up to half of its capacity unused), with the strings
// that repeat across objects interned, and shared with an earlier object
// whose run had the same bytes (unless the codec was built with
// DistinctMaps); the slice's capacity is its length, so that an append
// copies. The result equals what E's generated Unmarshal, appending each
// element, makes. A type the tables cannot describe, or an error in the run,
// is read element by element with E's Unmarshal (whose error is the one
// reported).
func ProtobufMessages[S ~[]E, E any, PE interface {
	*E
	Unmarshal([]byte) error
}](d *ProtobufDecoder, s *S) {
	if d.err != nil {
		return
	}
	if d.tableSlice(reflect.TypeFor[S](), unsafe.Pointer(s)) {
		return
	}
	*s = append(*s, *new(E))
	d.Unmarshal(PE(&(*s)[len(*s)-1]))
}

// tableSlice reads the field Next read, an element of the repeated message
// field whose slice, of type t, is at p, with the table decoder: the whole
// run the element starts when the slice is empty, that one element
// otherwise. It reports false, having changed nothing, when the caller is to
// read the element itself: a type the tables cannot describe, or an error.
func (d *ProtobufDecoder) tableSlice(t reflect.Type, p unsafe.Pointer) bool {
	if d.table == nil || d.wt != wireBytes {
		return false
	}
	f := pbSliceFieldOf(t)
	if f == nil {
		return false
	}
	b := d.b[:d.end]
	tag := uint64(d.field)<<3 | wireBytes
	old := *(*pbSliceHeader)(p)
	if old.cap == 0 && d.table.sharing() && !d.table.noSharedObjs {
		i, done, err := d.table.sharedRun(f, p, b, d.start, tag)
		if err != nil {
			*(*pbSliceHeader)(p) = old
			return false
		}
		if done {
			d.i = i
			return true
		}
	}
	start, end, err := pbLengthAt(b, d.i)
	if err != nil {
		return false
	}
	if err := d.table.value(f, d.table.appendElem(f, p, b, d.start, tag), b[start:end]); err != nil {
		*(*pbSliceHeader)(p) = old
		return false
	}
	d.i = end
	return true
}

// pbSliceFields are the fields of pbSliceFieldOf, by slice type.
var pbSliceFields sync.Map // reflect.Type → *pbField (nil: no table)

// pbSliceFieldOf returns the pbField of a repeated message field whose
// slice, of type t, is at offset 0 (the fields of projections read by
// ProtobufMessages), or nil when the tables cannot describe its element.
func pbSliceFieldOf(t reflect.Type) *pbField {
	if f, ok := pbSliceFields.Load(t); ok {
		return f.(*pbField)
	}
	var f *pbField
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		pbTablesMu.Lock()
		f = pbBuildField(nil, reflect.StructField{Name: t.String(), Type: t}, "", map[reflect.Type]*pbTable{})
		pbTablesMu.Unlock()
		if f != nil && (f.card != pbRepeated || f.kind != pbKMessage) {
			f = nil
		}
	}
	got, _ := pbSliceFields.LoadOrStore(t, f)
	return got.(*pbField)
}
