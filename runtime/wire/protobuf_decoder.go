package wire

import (
	"errors"
	"fmt"
	"io"
	"iter"
	"reflect"
	"strconv"
	"strings"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ProtobufDecoder reads one object's protobuf bytes for the projection
// decoders informer-gen generates (factory.Type.DecodeProtobuf): a generated
// function per projected struct walks its message field by field with Next
// and Field, descends with Message only into fields on a projected path,
// reads the kept leaves (String, Varint, Unmarshal, …) and skips every other
// field with Skip — one length or varint read, its contents never looked at.
//
// The rules, and the errors for malformed input, are those of the
// gogo-generated Unmarshal methods of k8s.io/api (tags, varints, lengths,
// wire types, the last of a repeated scalar field winning, repeated fields
// appending, a repeated message field merging, map entries), so that a
// projection decoded from an object's bytes equals the full object decoded
// with its Unmarshal and then projected. Bytes inside a skipped field are
// not checked: an object the full Unmarshal rejects for a field the
// projection does not keep may decode.
//
// Errors are sticky: after the first, Next reports false and the reads
// return zero values; Err returns it, naming the path of field numbers and
// the byte offset in the object. Nothing panics on any input. A
// ProtobufDecoder is used by one goroutine at a time; the codec reuses it.
type ProtobufDecoder struct {
	b     []byte
	i     int // next byte
	end   int // end of the message being read
	field int32
	wt    int
	start int // offset of the current field's tag
	err   error
	// ends and fields are the ends and field numbers of the messages
	// Message entered, for Next to leave them and errors to name them.
	ends   []int
	fields []int32

	skipMF bool
	// intern shares the strings repeated across objects (owners, images,
	// a Secret's type) that String reads, as the JSON codec does; the
	// codec keeps one ProtobufDecoder, and its cache, from one object to
	// the next.
	intern *internCache
	// table decodes the metadata (ObjectMeta) as the kind's own codec
	// does: with metav1.ObjectMeta's table, interning the strings that
	// repeat across objects but not the names, UIDs and resourceVersions
	// unique to each, sharing label and annotation maps encoded with the
	// same bytes (unless the codec was built with DistinctMaps), and
	// skipping managedFields natively.
	table *pbTableDecoder
}

// reset makes d read obj from its start, a new object: the maps the
// previous object shares are forgotten (see pbTableDecoder.shared).
func (d *ProtobufDecoder) reset(obj []byte, skipManagedFields bool) {
	*d = ProtobufDecoder{b: obj, end: len(obj), ends: d.ends[:0], fields: d.fields[:0], skipMF: skipManagedFields, intern: d.intern, table: d.table}
	if d.intern == nil {
		d.intern = new(internCache)
	}
	if d.table == nil {
		d.table = newPBTableDecoder()
	}
	d.table.beginObject()
}

// Err returns the first error, or nil.
func (d *ProtobufDecoder) Err() error { return d.err }

// SkipManagedFields reports whether metadata.managedFields are skipped
// rather than decoded (see NewProtobufProjection).
func (d *ProtobufDecoder) SkipManagedFields() bool { return d.skipMF }

// fail records err as the decoder's error, naming the field being read.
func (d *ProtobufDecoder) fail(err error) {
	if d.err != nil {
		return
	}
	path := make([]string, 0, len(d.fields)+1)
	for _, f := range d.fields {
		path = append(path, strconv.Itoa(int(f)))
	}
	if d.field > 0 {
		path = append(path, strconv.Itoa(int(d.field)))
	}
	where := "protobuf"
	if len(path) > 0 {
		where = "protobuf field " + strings.Join(path, ".")
	}
	d.err = &protobufFieldError{Path: where, Offset: d.start, Err: err}
}

// protobufFieldError is the error of a generated projection decoder: the
// field (a path of field numbers from the object's top, "2.10.1") and the
// byte offset of its tag in the object.
type protobufFieldError struct {
	Path   string // "protobuf field 2.10.1"
	Offset int
	Err    error
}

func (e *protobufFieldError) Error() string {
	return fmt.Sprintf("%s at byte %d: %v", e.Path, e.Offset, e.Err)
}

func (e *protobufFieldError) Unwrap() error { return e.Err }

var errPBWrongWireType = errors.New("wrong wire type")

// varint reads a varint bounded by limit.
func (d *ProtobufDecoder) varint(limit int) uint64 {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			d.fail(errPBVarintOverflow)
			return 0
		}
		if d.i >= limit {
			d.fail(io.ErrUnexpectedEOF)
			return 0
		}
		c := d.b[d.i]
		d.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
}

// length reads the length of a length-delimited value that must end by
// limit, and returns the value's end.
func (d *ProtobufDecoder) length(limit int) (int, bool) {
	n := d.varint(limit)
	switch {
	case d.err != nil:
		return 0, false
	case int(n) < 0 || d.i+int(n) < 0:
		d.fail(errPBBadLength)
		return 0, false
	case d.i+int(n) > limit:
		d.fail(io.ErrUnexpectedEOF)
		return 0, false
	}
	return d.i + int(n), true
}

// Next reads the tag of the next field of the message being read and
// reports true, or reports false at the message's end (leaving it, back in
// the message that holds it) or after an error.
func (d *ProtobufDecoder) Next() bool {
	if d.err != nil {
		return false
	}
	if d.i >= d.end {
		if n := len(d.ends); n > 0 {
			d.end, d.field = d.ends[n-1], d.fields[n-1]
			d.ends, d.fields = d.ends[:n-1], d.fields[:n-1]
		}
		return false
	}
	d.start, d.field = d.i, 0
	v := d.varint(d.end)
	if d.err != nil {
		return false
	}
	d.field, d.wt = int32(v>>3), int(v&7)
	switch {
	case d.wt == wireEndGroup:
		d.fail(errPBEndGroup)
		return false
	case d.field <= 0:
		d.fail(fmt.Errorf("protobuf: illegal tag %d (wire type %d)", d.field, d.wt))
		return false
	}
	return true
}

// Field is the number of the field Next read.
func (d *ProtobufDecoder) Field() int32 { return d.field }

// Skip skips the field Next read: one varint, one length, a fixed size or a
// group.
func (d *ProtobufDecoder) Skip() {
	if d.err != nil {
		return
	}
	p := pbBytes{b: d.b[:d.end], i: d.i}
	if err := p.skip(d.wt); err != nil {
		d.fail(err)
		return
	}
	d.i = p.i
}

// wire checks that the field Next read has wire type wt.
func (d *ProtobufDecoder) wire(wt int) bool {
	if d.err != nil {
		return false
	}
	if d.wt != wt {
		d.fail(fmt.Errorf("%w %d", errPBWrongWireType, d.wt))
		return false
	}
	return true
}

// Message enters the field Next read, a message: the following calls of
// Next read its fields, until the Next that reports its end. It reports
// false after an error (the caller then reads nothing).
func (d *ProtobufDecoder) Message() bool {
	if !d.wire(wireBytes) {
		return false
	}
	end, ok := d.length(d.end)
	if !ok {
		return false
	}
	d.ends, d.fields = append(d.ends, d.end), append(d.fields, d.field)
	d.end, d.field = end, 0
	return true
}

// value returns the bytes of the length-delimited field Next read, aliasing
// the object's.
func (d *ProtobufDecoder) value() []byte {
	if !d.wire(wireBytes) {
		return nil
	}
	end, ok := d.length(d.end)
	if !ok {
		return nil
	}
	v := d.b[d.i:end]
	d.i = end
	return v
}

// String reads the field Next read, a string (or a string-typed enum).
func (d *ProtobufDecoder) String() string { return d.intern.intern(d.value()) }

// Bytes reads the field Next read, bytes, into dst[:0] (a non-nil slice, as
// the generated Unmarshal leaves it).
func (d *ProtobufDecoder) Bytes(dst []byte) []byte {
	v := d.value()
	if d.err != nil {
		return nil
	}
	dst = append(dst[:0], v...)
	if dst == nil {
		dst = []byte{}
	}
	return dst
}

// Varint reads the field Next read, a varint: generated code converts it to
// the field's type (int32, int64, …), truncating as the generated Unmarshal
// does.
func (d *ProtobufDecoder) Varint() uint64 {
	if !d.wire(wireVarint) {
		return 0
	}
	return d.varint(d.end)
}

// Bool reads the field Next read, a bool.
func (d *ProtobufDecoder) Bool() bool { return d.Varint() != 0 }

// Varints reads the field Next read, one element of a repeated varint
// field: one value, or several packed into one length-delimited field.
func (d *ProtobufDecoder) Varints() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		switch {
		case d.err != nil:
		case d.wt == wireVarint:
			if v := d.varint(d.end); d.err == nil {
				yield(v)
			}
		case d.wt == wireBytes:
			end, ok := d.length(d.end)
			// As the generated Unmarshal, a varint may end past the packed
			// field's end (within the message); reading goes on from there.
			for ok && d.i < end {
				v := d.varint(d.end)
				if d.err != nil || !yield(v) {
					return
				}
			}
		default:
			d.fail(fmt.Errorf("%w %d", errPBWrongWireType, d.wt))
		}
	}
}

// Unmarshal reads the field Next read, a message, into m with m's generated
// Unmarshal (which merges into what m holds, as the generated Unmarshal of
// the message holding the field does).
func (d *ProtobufDecoder) Unmarshal(m interface{ Unmarshal([]byte) error }) {
	v := d.value()
	if d.err != nil {
		return
	}
	if err := m.Unmarshal(v); err != nil {
		d.fail(err)
	}
}

// mapEntry reads the map entry the field Next read holds, calling key and
// val for its fields 1 and 2, as the generated Unmarshal reads it: the
// entry's fields are read without a check of their wire type, their values
// bounded by the enclosing message rather than the entry, other fields
// skipped.
func (d *ProtobufDecoder) mapEntry(key, val func()) {
	if !d.wire(wireBytes) {
		return
	}
	end, ok := d.length(d.end)
	if !ok {
		return
	}
	for d.err == nil && d.i < end {
		entryStart := d.i
		v := d.varint(d.end)
		if d.err != nil {
			return
		}
		switch int32(v >> 3) {
		case 1:
			key()
		case 2:
			val()
		default:
			d.i = entryStart
			p := pbBytes{b: d.b[:d.end], i: d.i}
			if _, err := p.varint(); err != nil {
				d.fail(err)
				return
			}
			if err := p.skip(int(v & 7)); err != nil {
				d.fail(err)
				return
			}
			if p.i > end {
				d.fail(io.ErrUnexpectedEOF)
				return
			}
			d.i = p.i
		}
	}
	d.i = end
}

// rawValue reads a length-delimited value inside a map entry, bounded by
// the enclosing message.
func (d *ProtobufDecoder) rawValue() []byte {
	end, ok := d.length(d.end)
	if !ok {
		return nil
	}
	v := d.b[d.i:end]
	d.i = end
	return v
}

// tableMap reads the field Next read, the first entry of the map field
// whose map, of type t, is at p, with the table decoder, as the kind's codec
// reads a map: the whole run of the field's entries that starts here, into
// the map of an earlier object whose run had the same bytes when there is
// one (unless the codec has DistinctMaps). It reports false, having read
// nothing, when the caller is to read the entry itself: a map already
// made (made the map's own first, when it was shared), a type the tables
// cannot describe, or an error in the run (which the caller's reading then
// names).
func (d *ProtobufDecoder) tableMap(t reflect.Type, p unsafe.Pointer) bool {
	if d.table == nil || d.wt != wireBytes {
		return false
	}
	f := pbMapFieldOf(t)
	if f == nil {
		return false
	}
	if *(*unsafe.Pointer)(p) != nil {
		d.table.unshare(f, p)
		return false
	}
	i, err := d.table.mapField(f, p, d.b[:d.end], d.start, uint64(d.field)<<3|uint64(d.wt))
	if err != nil {
		*(*unsafe.Pointer)(p) = nil // never shared: mapField shares only what it read whole
		return false
	}
	d.i = i
	return true
}

// ProtobufStringMap reads the field Next read, one entry of a map of strings to
// strings, into *m (made when nil). The first entry read into a nil map reads
// the run of entries it starts, as the kind's codec reads a map: maps whose
// runs were encoded with the same bytes are shared between the objects of
// the codec (see NewProtobufProjection).
func ProtobufStringMap[M ~map[K]V, K, V ~string](d *ProtobufDecoder, m *M) {
	if d.err != nil {
		return
	}
	if d.tableMap(reflect.TypeFor[M](), unsafe.Pointer(m)) {
		return
	}
	if *m == nil {
		*m = M{}
	}
	var key K
	var val V
	d.mapEntry(func() { key = K(d.intern.intern(d.rawValue())) }, func() { val = V(d.intern.intern(d.rawValue())) })
	if d.err == nil {
		(*m)[key] = val
	}
}

// ProtobufMessageMap reads the field Next read, one entry of a map of strings to
// messages, into *m (made when nil); each value is read into a fresh V, as
// the generated Unmarshal of the map's message does. Like ProtobufStringMap,
// a map is shared between objects whose runs of entries have the same bytes.
func ProtobufMessageMap[M ~map[K]V, K ~string, V any, PV interface {
	*V
	Unmarshal([]byte) error
}](d *ProtobufDecoder, m *M) {
	if d.err != nil {
		return
	}
	if d.tableMap(reflect.TypeFor[M](), unsafe.Pointer(m)) {
		return
	}
	if *m == nil {
		*m = M{}
	}
	var key K
	val := new(V)
	d.mapEntry(func() { key = K(d.intern.intern(d.rawValue())) }, func() {
		v := d.rawValue()
		if d.err != nil {
			return
		}
		val = new(V)
		if err := PV(val).Unmarshal(v); err != nil {
			d.fail(err)
		}
	})
	if d.err == nil {
		(*m)[key] = *val
	}
}

// ObjectMeta reads the fields of the metav1.ObjectMeta message
// Message entered into m, as ObjectMeta's generated Unmarshal does, except
// that managedFields are skipped when d.SkipManagedFields(), and leaves the
// message. For generated code.
//
// The metadata is decoded as the kind's own codec (NewProtobuf) decodes it,
// with the same sharing between the objects of the codec: strings that
// repeat across objects (namespaces, label keys and values, owners) are
// interned, those unique to an object (name, UID, resourceVersion) are not;
// a labels or annotations map whose entries were encoded with the same
// bytes as those of an earlier object is that object's map, unless the
// codec was built with DistinctMaps.
func (d *ProtobufDecoder) ObjectMeta(m *metav1.ObjectMeta) {
	if d.err != nil {
		return
	}
	full, withoutMF := pbObjectMetaTables()
	tab := full
	if d.skipMF {
		tab = withoutMF
	}
	if tab == nil || d.table == nil {
		d.objectMetaFields(m)
		return
	}
	start := d.i
	if err := d.table.message(tab, unsafe.Pointer(m), d.b[start:d.end]); err != nil {
		// The table decoder does not say where the error is: reading the
		// same bytes field by field (into a scratch ObjectMeta, m being
		// lost with the object) names the field and its offset.
		d.i = start
		var scratch metav1.ObjectMeta
		d.objectMetaFields(&scratch)
		if d.err == nil {
			d.fail(err)
		}
		return
	}
	d.i = d.end
	d.Next() // leaves the message
}

// objectMetaFields reads the fields of the metav1.ObjectMeta message
// Message entered into m, one by one, as ObjectMeta's generated Unmarshal
// does (managedFields skipped when d.skipMF), and leaves the message.
func (d *ProtobufDecoder) objectMetaFields(m *metav1.ObjectMeta) {
	for d.Next() {
		switch d.Field() {
		case 1:
			m.Name = d.String()
		case 2:
			m.GenerateName = d.String()
		case 3:
			m.Namespace = d.String()
		case 4:
			m.SelfLink = d.String()
		case 5:
			m.UID = types.UID(d.String())
		case 6:
			m.ResourceVersion = d.String()
		case 7:
			m.Generation = int64(d.Varint())
		case 8:
			d.Unmarshal(&m.CreationTimestamp)
		case 9:
			if m.DeletionTimestamp == nil {
				m.DeletionTimestamp = new(metav1.Time)
			}
			d.Unmarshal(m.DeletionTimestamp)
		case 10:
			v := int64(d.Varint())
			m.DeletionGracePeriodSeconds = &v
		case 11:
			ProtobufStringMap(d, &m.Labels)
		case 12:
			ProtobufStringMap(d, &m.Annotations)
		case 13:
			m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{})
			d.Unmarshal(&m.OwnerReferences[len(m.OwnerReferences)-1])
		case 14:
			m.Finalizers = append(m.Finalizers, d.String())
		case 17:
			if d.skipMF {
				d.wire(wireBytes) // the generated Unmarshal checks it
				d.Skip()
				continue
			}
			m.ManagedFields = append(m.ManagedFields, metav1.ManagedFieldsEntry{})
			d.Unmarshal(&m.ManagedFields[len(m.ManagedFields)-1])
		default:
			d.Skip()
		}
	}
}
