package wire

import (
	"encoding/binary"
	"reflect"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// withoutManagedFields returns a codec like c that does not build each
// object's metadata.managedFields (the SkipManagedFields Option): an informer
// that drops them anyway (no transform of its own reads them first) asks for
// it.
//
// The object's bytes are copied without the managedFields entries of its
// metadata (field 1, when T's field 1 is metav1.ObjectMeta; otherwise c is
// returned as is) before its generated Unmarshal reads them: one copy of
// the object instead of decoding, allocating and then dropping entries that
// are often the largest part of the metadata (a Pod's are a third of its
// bytes). Bytes inside a skipped entry are not checked, as for a projection
// and for the JSON codec's SkipManagedFields; everything else is decoded,
// and rejected, exactly as before, with one exception no server writes: a
// labels or annotations entry whose value runs past the entry's end, which
// the generated Unmarshal reads up to the metadata's end (into the
// managedFields that follow), fails here instead of decoding those bytes.
func (c *protobufCodec[T]) withoutManagedFields() *protobufCodec[T] {
	if c.skipsManagedFields || !pbMetadataIsField1(reflect.TypeOf(c.newT())) {
		return c
	}
	s := *c
	s.skipsManagedFields = true
	unmarshal := c.unmarshal
	s.unmarshal = func(t T, b []byte) error {
		bp := pbStripBuffers.Get().(*[]byte)
		out, stripped := pbWithoutManagedFields(b, (*bp)[:0])
		err := unmarshal(t, out)
		if stripped && cap(out) <= pbKeepScratch {
			*bp = out[:0] // the generated Unmarshal copies what it keeps
		}
		pbStripBuffers.Put(bp)
		return err
	}
	return &s
}

// pbStripBuffers hold the copies pbWithoutManagedFields writes.
var pbStripBuffers = sync.Pool{New: func() any { return new([]byte) }}

// pbMetadataIsField1 reports whether typ (a pointer to a struct) has a field
// of type metav1.ObjectMeta that is its protobuf field 1, as every
// k8s.io/api kind has.
func pbMetadataIsField1(typ reflect.Type) bool {
	if typ == nil || typ.Kind() != reflect.Pointer || typ.Elem().Kind() != reflect.Struct {
		return false
	}
	st := typ.Elem()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.Type != reflect.TypeFor[metav1.ObjectMeta]() {
			continue
		}
		tag := strings.Split(f.Tag.Get("protobuf"), ",")
		return len(tag) >= 2 && tag[0] == "bytes" && tag[1] == "1"
	}
	return false
}

// pbObjectMetaManagedFields is metav1.ObjectMeta's protobuf field number of
// managedFields.
const pbObjectMetaManagedFields = 17

// pbWithoutManagedFields returns obj, an object's protobuf bytes, without
// the managedFields (field 17, length-delimited) of its metadata (field 1,
// length-delimited, possibly more than once), written over buf (or a new
// slice when buf is shorter than obj), and true;
// or obj itself and false when it has none, or when obj is malformed up to
// where it was read (the generated Unmarshal then rejects it as it would
// have). A field 17 of another wire type is kept, for the generated
// Unmarshal to reject.
func pbWithoutManagedFields(obj, buf []byte) ([]byte, bool) {
	if !pbHasManagedFields(obj) {
		return obj, false
	}
	out := buf[:0]
	if cap(out) < len(obj) {
		out = make([]byte, 0, len(obj)) // the copy is shorter than obj
	}
	p := pbBytes{b: obj}
	for !p.done() {
		start := p.i
		field, wt, err := p.tag()
		if err != nil {
			return obj, false
		}
		if field != 1 || wt != wireBytes {
			if err := p.skip(wt); err != nil {
				return obj, false
			}
			out = append(out, obj[start:p.i]...)
			continue
		}
		meta, err := p.bytes()
		if err != nil {
			return obj, false
		}
		// Measure the metadata without its managedFields, then copy it.
		n := 0
		m := pbBytes{b: meta}
		for !m.done() {
			fs := m.i
			f, fwt, err := m.tag()
			if err != nil {
				return obj, false
			}
			if err := m.skip(fwt); err != nil {
				return obj, false
			}
			if f != pbObjectMetaManagedFields || fwt != wireBytes {
				n += m.i - fs
			}
		}
		out = append(out, 1<<3|wireBytes)
		out = binary.AppendUvarint(out, uint64(n))
		m = pbBytes{b: meta}
		for !m.done() {
			fs := m.i
			f, fwt, _ := m.tag()
			_ = m.skip(fwt)
			if f != pbObjectMetaManagedFields || fwt != wireBytes {
				out = append(out, meta[fs:m.i]...)
			}
		}
	}
	return out, true
}

// pbHasManagedFields reports whether obj's metadata holds a managedFields
// entry, reading as far as the first one (false when obj is malformed
// before it).
func pbHasManagedFields(obj []byte) bool {
	found := false
	pbEachMetadata(obj, func(meta []byte) bool {
		m := pbBytes{b: meta}
		for !m.done() {
			f, fwt, err := m.tag()
			if err != nil {
				return true
			}
			if f == pbObjectMetaManagedFields && fwt == wireBytes {
				found = true
				return true
			}
			if m.skip(fwt) != nil {
				return true
			}
		}
		return false
	})
	return found
}

// pbEachMetadata calls fn with the bytes of each metadata message (field 1,
// length-delimited: ObjectMeta in every Kubernetes object) of obj, an
// object's protobuf bytes, in order, until fn returns true or obj ends or
// is malformed.
func pbEachMetadata(obj []byte, fn func(meta []byte) (stop bool)) {
	p := pbBytes{b: obj}
	for !p.done() {
		field, wt, err := p.tag()
		if err != nil {
			return
		}
		if field != 1 || wt != wireBytes {
			if p.skip(wt) != nil {
				return
			}
			continue
		}
		meta, err := p.bytes()
		if err != nil || fn(meta) {
			return
		}
	}
}
