package wire

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// pbTableDecoder decodes objects with pbTables, keeping what objects
// decoded by it may share: interned strings, maps, sub-objects and
// Quantities. One
// decodes the objects of one codec (so of one informer), one object at a
// time; what it keeps is bounded (pbInternMax…), and dropped whole when a
// bound is reached.
//
// Sharing is what the objects of an informer's cache are for: they are
// read-only. Two objects whose maps (labels, annotations, a container's
// resource requests, a node selector) were encoded with the same bytes hold
// the same map; so do two whose share fields (a pointer to a message, a
// repeated field of messages or strings) were: a caller that writes to a
// map, a slice element or a pointed-to struct of a cached object changes
// every object sharing it. What the decoder itself writes after a shared
// value in the same object never reaches it: a later entry of a shared map
// goes to a copy (unshare), a shared slice's capacity is its length (an
// append copies), and a second occurrence of a shared pointer field (which
// the generated code merges into the message) first gives the field a
// private copy (mergePointer). Strings are immutable, and a Quantity is
// shared by value only when it holds no pointer (no inf.Dec).
type pbTableDecoder struct {
	strings     map[string]string
	stringBytes int
	quantities  map[string]resource.Quantity
	// maps holds the shared maps by the bytes of their entries, per map
	// field; seen the hashes of runs of entries seen once (a map is kept
	// for sharing the second time its bytes are seen, so that maps unique
	// to an object cost no copy of their bytes).
	maps     map[*pbMapField]map[string]unsafe.Pointer
	mapCount int
	mapBytes int
	seen     map[uint64]struct{}
	seed     maphash.Seed
	// shared are the addresses of the map fields of the object being
	// decoded that hold a shared map: an entry that follows is written to
	// a copy.
	shared []unsafe.Pointer
	// noSharedMaps turns map and sub-object sharing off
	// (codecopts.Options.DistinctMaps).
	noSharedMaps bool
	// objs holds the shared sub-objects (the values of share fields) by
	// their bytes on the wire, per field: the slice header of a repeated
	// field (its capacity its length, so that an append copies), the
	// pointer of a pointer field (in data). Kept the second time their
	// bytes are seen, as maps are.
	objs     map[*pbField]map[string]pbSliceHeader
	objCount int
	objBytes int
	// sharedPtrs are the pointer fields of the object being decoded that
	// hold a shared message, with the bytes it was decoded from: a second
	// occurrence of the field (merged into the message by the generated
	// code) first gives the field a private copy decoded from those bytes.
	sharedPtrs []pbSharedPtr
	// private > 0 while such a copy is decoded: nothing in it is shared.
	private int
	// noSharedObjs turns sub-object sharing off alone (for measuring what
	// it saves: TestProtobufTableRetainedHeap).
	noSharedObjs bool
}

// pbSharedPtr is a pointer field holding a shared message (see
// pbTableDecoder.sharedPtrs).
type pbSharedPtr struct {
	fp    unsafe.Pointer
	first []byte
}

// Bounds of what a pbTableDecoder keeps.
const (
	pbInternMaxLen     = 1 << 10 // longer strings are not interned
	pbInternMaxEntries = 1 << 16
	pbInternMaxBytes   = 4 << 20
	pbQuantityMax      = 1 << 12
	pbShareMaxRun      = 2 << 10 // the entries of a longer map are not shared
	pbShareMaxEntries  = 1 << 14
	pbShareMaxBytes    = 8 << 20
	pbSeenMax          = 1 << 16
	pbShareObjMaxRun   = 16 << 10 // the bytes of a larger sub-object are not shared
	pbShareObjEntries  = 1 << 14
	pbShareObjBytes    = 16 << 20
)

func newPBTableDecoder() *pbTableDecoder {
	return &pbTableDecoder{
		strings:    map[string]string{},
		quantities: map[string]resource.Quantity{},
		maps:       map[*pbMapField]map[string]unsafe.Pointer{},
		objs:       map[*pbField]map[string]pbSliceHeader{},
		seen:       map[uint64]struct{}{},
		seed:       maphash.MakeSeed(),
	}
}

// decode decodes obj, an object's bytes, into the struct at p of table tab.
func (d *pbTableDecoder) decode(tab *pbTable, p unsafe.Pointer, obj []byte) error {
	d.beginObject()
	err := d.message(tab, p, obj)
	d.beginObject()
	return err
}

// beginObject forgets what the previous object shares (shared, sharedPtrs).
func (d *pbTableDecoder) beginObject() {
	clear(d.shared)
	d.shared = d.shared[:0]
	clear(d.sharedPtrs)
	d.sharedPtrs = d.sharedPtrs[:0]
	d.private = 0
}

type pbSliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// message decodes b, one message, into the struct at p of table tab,
// merging into what it holds as the generated Unmarshal does.
func (d *pbTableDecoder) message(tab *pbTable, p unsafe.Pointer, b []byte) error {
	l := len(b)
	i := 0
	for i < l {
		tagStart := i
		tag, j, err := pbVarintAt(b, i)
		if err != nil {
			return err
		}
		i = j
		num, wt := int32(tag>>3), int(tag&7)
		if wt == wireEndGroup {
			return fmt.Errorf("proto: %s: wiretype end group for non-group", tab.typ.Name())
		}
		if num <= 0 {
			return fmt.Errorf("proto: %s: illegal tag %d (wire type %d)", tab.typ.Name(), num, tag)
		}
		f := tab.field(num)
		if f == nil {
			if i, err = pbSkipAt(b, tagStart); err != nil {
				return err
			}
			continue
		}
		fp := unsafe.Add(p, f.off)
		if f.card == pbRepeated && f.wt != wireBytes && wt == wireBytes {
			if i, err = d.packed(f, fp, b, i); err != nil {
				return err
			}
			continue
		}
		if wt != f.wt {
			return fmt.Errorf("proto: wrong wireType = %d for field %s", wt, f.name)
		}
		switch f.wt {
		case wireVarint:
			v, j, err := pbVarintAt(b, i)
			if err != nil {
				return err
			}
			i = j
			d.setVarint(f, fp, v)
			continue
		case wireFixed64:
			if i+8 > l {
				return io.ErrUnexpectedEOF
			}
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
			i += 8
			switch f.card {
			case pbSingle:
				*(*float64)(fp) = v
			case pbPointer:
				*(**float64)(fp) = &v
			case pbRepeated:
				*(*[]float64)(fp) = append(*(*[]float64)(fp), v)
			}
			continue
		case wireFixed32:
			if i+4 > l {
				return io.ErrUnexpectedEOF
			}
			v := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
			i += 4
			switch f.card {
			case pbSingle:
				*(*float32)(fp) = v
			case pbPointer:
				*(**float32)(fp) = &v
			case pbRepeated:
				*(*[]float32)(fp) = append(*(*[]float32)(fp), v)
			}
			continue
		}
		start, end, err := pbLengthAt(b, i)
		if err != nil {
			return err
		}
		switch f.kind {
		case pbKSkip:
			i = end
			continue
		case pbKMap:
			if i, err = d.mapField(f, fp, b, tagStart, tag); err != nil {
				return err
			}
			continue
		}
		if f.share && f.card == pbRepeated && (*pbSliceHeader)(fp).cap == 0 && d.sharing() && !d.noSharedObjs {
			j, done, err := d.sharedRun(f, fp, b, tagStart, tag)
			if err != nil {
				return err
			}
			if done {
				i = j
				continue
			}
		}
		v := b[start:end]
		i = end
		switch f.card {
		case pbSingle:
			err = d.value(f, fp, v)
		case pbPointer:
			vp := *(*unsafe.Pointer)(fp)
			switch {
			case vp == nil && f.share && d.sharing() && !d.noSharedObjs:
				err = d.sharedPointer(f, fp, v)
			case vp == nil:
				vp = reflect.New(f.elem).UnsafePointer()
				*(*unsafe.Pointer)(fp) = vp
				err = d.value(f, vp, v)
			case f.share:
				err = d.mergePointer(f, fp, v)
			default:
				err = d.value(f, vp, v)
			}
		case pbRepeated:
			err = d.value(f, d.appendElem(f, fp, b, tagStart, tag), v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// appendElem appends a zero element to the slice at fp and returns its
// address. A nil slice is made with room for the run of fields of tag tag
// starting at b[at:], so that a repeated field written in one run (as
// every encoder does) is allocated once.
func (d *pbTableDecoder) appendElem(f *pbField, fp unsafe.Pointer, b []byte, at int, tag uint64) unsafe.Pointer {
	sh := (*pbSliceHeader)(fp)
	if sh.len == sh.cap {
		n := 1
		if sh.cap == 0 {
			_, n = pbRunEnd(b, at, tag)
		}
		n = max(n, 2*sh.cap, 1)
		grown := reflect.MakeSlice(f.typ, sh.len, n)
		if sh.len > 0 {
			reflect.Copy(grown, reflect.NewAt(f.typ, fp).Elem())
		}
		// The slice at fp takes grown's array (n > 0 elements, so
		// UnsafePointer is its first).
		sh.data, sh.cap = grown.UnsafePointer(), n
	}
	sh.len++
	return unsafe.Add(sh.data, uintptr(sh.len-1)*f.elem.Size())
}

// value decodes v, one length-delimited value of f, into the memory at p
// (f's value type).
func (d *pbTableDecoder) value(f *pbField, p unsafe.Pointer, v []byte) error {
	switch f.kind {
	case pbKString:
		if f.intern {
			*(*string)(p) = d.intern(v)
		} else {
			*(*string)(p) = string(v)
		}
	case pbKBytes:
		if f.card == pbRepeated {
			*(*[]byte)(p) = append([]byte{}, v...)
			return nil
		}
		dst := append((*(*[]byte)(p))[:0], v...)
		if dst == nil {
			dst = []byte{}
		}
		*(*[]byte)(p) = dst
	case pbKMessage:
		return d.message(f.msg, p, v)
	case pbKCustom:
		return f.custom(p, v)
	case pbKQuantity:
		return d.quantity((*resource.Quantity)(p), v)
	default:
		return fmt.Errorf("proto: field %s: no length-delimited value", f.name)
	}
	return nil
}

// setVarint stores v, a varint of f, truncated to f's type.
func (d *pbTableDecoder) setVarint(f *pbField, fp unsafe.Pointer, v uint64) {
	switch f.card {
	case pbSingle:
		pbStoreVarint(f.kind, fp, v)
	case pbPointer:
		vp := reflect.New(f.elem).UnsafePointer()
		pbStoreVarint(f.kind, vp, v)
		*(*unsafe.Pointer)(fp) = vp
	case pbRepeated:
		switch f.kind {
		case pbKBool:
			*(*[]bool)(fp) = append(*(*[]bool)(fp), v != 0)
		case pbKInt32:
			*(*[]int32)(fp) = append(*(*[]int32)(fp), int32(v))
		case pbKInt64:
			*(*[]int64)(fp) = append(*(*[]int64)(fp), int64(v))
		case pbKUint32:
			*(*[]uint32)(fp) = append(*(*[]uint32)(fp), uint32(v))
		case pbKUint64:
			*(*[]uint64)(fp) = append(*(*[]uint64)(fp), v)
		case pbKInt:
			*(*[]int)(fp) = append(*(*[]int)(fp), int(v))
		}
	}
}

func pbStoreVarint(k pbKind, p unsafe.Pointer, v uint64) {
	switch k {
	case pbKBool:
		*(*bool)(p) = v != 0
	case pbKInt32:
		*(*int32)(p) = int32(v)
	case pbKInt64:
		*(*int64)(p) = int64(v)
	case pbKUint32:
		*(*uint32)(p) = uint32(v)
	case pbKUint64:
		*(*uint64)(p) = v
	case pbKInt:
		*(*int)(p) = int(v)
	}
}

// packed reads a packed repeated scalar field whose length starts at b[i:].
// As in the generated code, a varint may end past the field's end (within
// the message): reading goes on from there.
func (d *pbTableDecoder) packed(f *pbField, fp unsafe.Pointer, b []byte, i int) (int, error) {
	start, end, err := pbLengthAt(b, i)
	if err != nil {
		return 0, err
	}
	i = start
	switch f.wt {
	case wireVarint:
		for i < end {
			v, j, err := pbVarintAt(b, i)
			if err != nil {
				return 0, err
			}
			i = j
			d.setVarint(f, fp, v)
		}
	case wireFixed64:
		for ; i+8 <= end; i += 8 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[i:]))
			*(*[]float64)(fp) = append(*(*[]float64)(fp), v)
		}
	case wireFixed32:
		for ; i+4 <= end; i += 4 {
			v := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
			*(*[]float32)(fp) = append(*(*[]float32)(fp), v)
		}
	}
	return max(i, end), nil
}

// mapField reads the map entries of field f that start at b[at:] (a tag,
// tag): the whole run of them when the map is still nil, shared with an
// earlier object whose entries had the same bytes when there was one; one
// entry otherwise. It returns the offset after what it read.
func (d *pbTableDecoder) mapField(f *pbField, fp unsafe.Pointer, b []byte, at int, tag uint64) (int, error) {
	mp := f.mp
	if *(*unsafe.Pointer)(fp) != nil {
		d.unshare(f, fp)
		i, _, err := d.mapEntry(f, fp, b, at)
		return i, err
	}
	runEnd, n := pbRunEnd(b, at, tag)
	run := b[at:runEnd]
	share := d.sharing() && len(run) <= pbShareMaxRun && runEnd > at
	var h uint64
	if share {
		if m, ok := d.maps[mp][string(run)]; ok {
			*(*unsafe.Pointer)(fp) = m
			d.shared = append(d.shared, fp)
			return runEnd, nil
		}
		h = maphash.Bytes(d.seed, run)
	}
	m := reflect.MakeMapWithSize(f.typ, max(n, 1))
	*(*unsafe.Pointer)(fp) = m.UnsafePointer()
	i := at
	clean := true
	for i < runEnd || i == at {
		j, overran, err := d.mapEntry(f, fp, b, i)
		if err != nil {
			return 0, err
		}
		if overran || j > runEnd || j <= i {
			clean = false // an entry read past the run: do not share
		}
		i = j
		if !clean {
			break
		}
	}
	if !share || !clean || i != runEnd {
		return i, nil
	}
	if _, ok := d.seen[h]; !ok {
		if len(d.seen) >= pbSeenMax {
			clear(d.seen)
		}
		d.seen[h] = struct{}{}
		return i, nil
	}
	if d.mapCount >= pbShareMaxEntries || d.mapBytes+len(run) > pbShareMaxBytes {
		clear(d.maps)
		d.mapCount, d.mapBytes = 0, 0
	}
	byRun := d.maps[mp]
	if byRun == nil {
		byRun = map[string]unsafe.Pointer{}
		d.maps[mp] = byRun
	}
	byRun[string(run)] = *(*unsafe.Pointer)(fp)
	d.mapCount++
	d.mapBytes += len(run)
	d.shared = append(d.shared, fp)
	return i, nil
}

// mapEntry reads the map entry of field f whose tag is at b[at:] into the
// (non-nil) map at fp, as the generated code reads it: the entry's fields
// are read whatever their wire type says, their values bounded by the
// enclosing message (b) rather than the entry, a message value decoded at
// each occurrence (the last one kept); other fields are skipped. It returns
// the offset after the entry, and whether a value ran past the entry's end.
func (d *pbTableDecoder) mapEntry(f *pbField, fp unsafe.Pointer, b []byte, at int) (int, bool, error) {
	_, i, err := pbVarintAt(b, at)
	if err != nil {
		return 0, false, err
	}
	start, post, err := pbLengthAt(b, i)
	if err != nil {
		return 0, false, err
	}
	mp := f.mp
	var (
		key, val []byte
		isVal    bool
		overran  bool
		q        resource.Quantity
		vp       reflect.Value
	)
	i = start
	for i < post {
		entryPre := i
		v, j, err := pbVarintAt(b, i)
		if err != nil {
			return 0, false, err
		}
		i = j
		switch int32(v >> 3) {
		case 1:
			s, e, err := pbLengthAt(b, i)
			if err != nil {
				return 0, false, err
			}
			key, i = b[s:e], e
		case 2:
			s, e, err := pbLengthAt(b, i)
			if err != nil {
				return 0, false, err
			}
			val, isVal, i = b[s:e], true, e
			switch {
			case mp.stringString, mp.stringBytes:
			case mp.stringQuantity:
				q = resource.Quantity{}
				if err := d.quantity(&q, val); err != nil {
					return 0, false, err
				}
			default:
				vp = pbNewMapValue(mp.val.elem)
				if err := d.value(mp.val, vp.UnsafePointer(), val); err != nil {
					return 0, false, err
				}
			}
		default:
			e, err := pbSkipAt(b, entryPre)
			if err != nil {
				return 0, false, err
			}
			if e > post {
				return 0, false, io.ErrUnexpectedEOF
			}
			i = e
		}
		if i > post {
			overran = true
		}
	}
	k := d.intern(key)
	switch {
	case mp.stringString:
		var s string
		if isVal {
			s = d.intern(val)
		}
		(*(*map[string]string)(fp))[k] = s
	case mp.stringBytes:
		bs := []byte{}
		if isVal {
			bs = make([]byte, len(val))
			copy(bs, val)
		}
		(*(*map[string][]byte)(fp))[k] = bs
	case mp.stringQuantity:
		(*(*map[string]resource.Quantity)(fp))[k] = q
	default:
		if !vp.IsValid() {
			vp = pbNewMapValue(mp.val.elem)
		}
		kv := reflect.New(f.typ.Key()).Elem()
		kv.SetString(k)
		reflect.NewAt(f.typ, fp).Elem().SetMapIndex(kv, vp.Elem())
	}
	return post, overran, nil
}

// pbNewMapValue returns a pointer to a new map value of type t, as the
// generated code makes it (&V{}): a slice type's is empty, not nil.
func pbNewMapValue(t reflect.Type) reflect.Value {
	v := reflect.New(t)
	if t.Kind() == reflect.Slice {
		v.Elem().Set(reflect.MakeSlice(t, 0, 0))
	}
	return v
}
