package wire

import (
	"hash/maphash"
	"maps"
	"reflect"
	"unsafe"

	"k8s.io/apimachinery/pkg/api/resource"
)

// What the table decoder shares between the objects it decodes (see
// pbTableDecoder): sub-objects and maps by their bytes on the wire, strings
// by their value; and the private copy a shared map gets before it changes.

// sharing reports whether maps and sub-objects are shared now.
func (d *pbTableDecoder) sharing() bool { return !d.noSharedMaps && d.private == 0 }

// sharedObj returns the shared value of field f for the bytes run, if any;
// otherwise (ok false) the hash of run for keepObj, or 0 when run is not to
// be shared. An empty run (a pointer field's empty message, such as the
// `securityContext: {}` the API server's defaulting writes into every Pod)
// is shared as any other: it is the same value in every object.
func (d *pbTableDecoder) sharedObj(f *pbField, run []byte) (v pbSliceHeader, h uint64, ok bool) {
	if len(run) > pbShareObjMaxRun {
		return v, 0, false
	}
	if v, ok := d.objs[f][string(run)]; ok {
		return v, 0, true
	}
	return v, maphash.Bytes(d.seed, run) | 1, false
}

// keepObj keeps v, field f's value decoded from run (h its hash from
// sharedObj), for sharing when run was seen before, and reports whether it
// did.
func (d *pbTableDecoder) keepObj(f *pbField, run []byte, h uint64, v pbSliceHeader) bool {
	if h == 0 {
		return false
	}
	if _, ok := d.seen[h]; !ok {
		if len(d.seen) >= pbSeenMax {
			clear(d.seen)
		}
		d.seen[h] = struct{}{}
		return false
	}
	if d.objCount >= pbShareObjEntries || d.objBytes+len(run) > pbShareObjBytes {
		clear(d.objs)
		d.objCount, d.objBytes = 0, 0
	}
	byRun := d.objs[f]
	if byRun == nil {
		byRun = map[string]pbSliceHeader{}
		d.objs[f] = byRun
	}
	byRun[string(run)] = v
	d.objCount++
	d.objBytes += len(run)
	return true
}

// sharedRun decodes the run of repeated field f (messages or strings) that
// starts at b[at:] (a tag, tag) into the nil slice at fp, or gives it the
// slice of an earlier object whose run had the same bytes. It returns the
// offset after the run, and false (having read nothing) when the run is
// not to be shared: too long, or malformed (read field by field then, for
// the generated code's errors).
func (d *pbTableDecoder) sharedRun(f *pbField, fp unsafe.Pointer, b []byte, at int, tag uint64) (int, bool, error) {
	runEnd, n := pbRunEnd(b, at, tag)
	if n == 0 {
		return 0, false, nil
	}
	run := b[at:runEnd]
	v, h, ok := d.sharedObj(f, run)
	if ok {
		*(*pbSliceHeader)(fp) = v
		return runEnd, true, nil
	}
	if h == 0 {
		return 0, false, nil
	}
	i := at
	for i < runEnd {
		_, j, err := pbVarintAt(b, i)
		if err != nil {
			return 0, false, err
		}
		start, end, err := pbLengthAt(b, j)
		if err != nil {
			return 0, false, err
		}
		if err := d.value(f, d.appendElem(f, fp, b, at, tag), b[start:end]); err != nil {
			return 0, false, err
		}
		i = end
	}
	sh := (*pbSliceHeader)(fp)
	sh.cap = sh.len // an append (a later run of the field) copies
	d.keepObj(f, run, h, *sh)
	return runEnd, true, nil
}

// sharedPointer decodes v, the first occurrence of pointer field f, into
// a new message at the nil pointer at fp, or points it to the message of an
// earlier object whose bytes were the same.
func (d *pbTableDecoder) sharedPointer(f *pbField, fp unsafe.Pointer, v []byte) error {
	sv, h, ok := d.sharedObj(f, v)
	if ok {
		*(*unsafe.Pointer)(fp) = sv.data
		d.sharedPtrs = append(d.sharedPtrs, pbSharedPtr{fp: fp, first: v})
		return nil
	}
	vp := reflect.New(f.elem).UnsafePointer()
	*(*unsafe.Pointer)(fp) = vp
	if err := d.value(f, vp, v); err != nil {
		return err
	}
	if d.keepObj(f, v, h, pbSliceHeader{data: vp}) {
		d.sharedPtrs = append(d.sharedPtrs, pbSharedPtr{fp: fp, first: v})
	}
	return nil
}

// mergePointer decodes v, a later occurrence of pointer field f, into the
// message at fp, merging as the generated code does; when that message is
// shared the field first gets a private copy, decoded from the bytes the
// shared one was.
func (d *pbTableDecoder) mergePointer(f *pbField, fp unsafe.Pointer, v []byte) error {
	for k, s := range d.sharedPtrs {
		if s.fp != fp {
			continue
		}
		d.sharedPtrs = append(d.sharedPtrs[:k], d.sharedPtrs[k+1:]...)
		vp := reflect.New(f.elem).UnsafePointer()
		d.private++
		err := d.value(f, vp, s.first)
		if err == nil {
			err = d.value(f, vp, v)
		}
		d.private--
		*(*unsafe.Pointer)(fp) = vp
		return err
	}
	return d.value(f, *(*unsafe.Pointer)(fp), v)
}

// intern returns string(b), the same string for the same bytes while it is
// kept.
func (d *pbTableDecoder) intern(b []byte) string {
	if len(b) > pbInternMaxLen {
		return string(b)
	}
	if s, ok := d.strings[string(b)]; ok {
		return s
	}
	if len(d.strings) >= pbInternMaxEntries || d.stringBytes+len(b) > pbInternMaxBytes {
		clear(d.strings)
		d.stringBytes = 0
	}
	s := string(b)
	d.strings[s] = s
	d.stringBytes += len(s)
	return s
}

// unshare replaces the map at fp with a copy when it is shared, before an
// entry is added to it.
func (d *pbTableDecoder) unshare(f *pbField, fp unsafe.Pointer) {
	for k, s := range d.shared {
		if s != fp {
			continue
		}
		d.shared = append(d.shared[:k], d.shared[k+1:]...)
		switch {
		case f.mp.stringString:
			*(*map[string]string)(fp) = maps.Clone(*(*map[string]string)(fp))
		case f.mp.stringBytes:
			*(*map[string][]byte)(fp) = maps.Clone(*(*map[string][]byte)(fp))
		case f.mp.stringQuantity:
			*(*map[string]resource.Quantity)(fp) = maps.Clone(*(*map[string]resource.Quantity)(fp))
		default:
			old := reflect.NewAt(f.typ, fp).Elem()
			m := reflect.MakeMapWithSize(f.typ, old.Len())
			iter := old.MapRange()
			for iter.Next() {
				m.SetMapIndex(iter.Key(), iter.Value())
			}
			old.Set(m)
		}
		return
	}
}

// quantity decodes v into q with Quantity's Unmarshal, or copies the
// Quantity decoded from the same bytes before when it holds no pointer.
func (d *pbTableDecoder) quantity(q *resource.Quantity, v []byte) error {
	// Only a message of exactly one field 1 (the string) replaces q whole;
	// anything else (none, unknown fields) is decoded afresh.
	cacheable := len(v) >= 2 && v[0] == 1<<3|wireBytes && int(v[1]) == len(v)-2 && v[1] < 0x80
	if cacheable {
		if c, ok := d.quantities[string(v)]; ok {
			*q = c
			return nil
		}
	}
	if err := q.Unmarshal(v); err != nil {
		return err
	}
	if cacheable && pbQuantityShareable(q) {
		if len(d.quantities) >= pbQuantityMax {
			clear(d.quantities)
		}
		d.quantities[string(v)] = *q
	}
	return nil
}

// pbQuantityDec is the index of Quantity's d field (an infDecAmount, whose
// only field is a *inf.Dec).
var pbQuantityDec = func() int {
	f, ok := pbQuantityType.FieldByName("d")
	if !ok || len(f.Index) != 1 || f.Type.NumField() != 1 || f.Type.Field(0).Type.Kind() != reflect.Pointer {
		return -1
	}
	return f.Index[0]
}()

// pbQuantityShareable reports whether q holds no inf.Dec, so that a copy of
// it aliases nothing mutable (its cached string is immutable).
func pbQuantityShareable(q *resource.Quantity) bool {
	return pbQuantityDec >= 0 && reflect.ValueOf(q).Elem().Field(pbQuantityDec).Field(0).IsNil()
}
