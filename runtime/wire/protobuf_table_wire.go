package wire

import (
	"errors"
	"io"
)

// Reading the protobuf wire format at an offset, as the generated Unmarshal
// methods of k8s.io/api do.

var (
	errPBInvalidLength = errors.New("proto: negative length found during unmarshaling")
	errPBIntOverflow   = errors.New("proto: integer overflow")
)

// pbVarintAt reads a varint at b[i:], as the generated code does.
func pbVarintAt(b []byte, i int) (uint64, int, error) {
	if i < len(b) && b[i] < 0x80 {
		return uint64(b[i]), i + 1, nil
	}
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, i, errPBIntOverflow
		}
		if i >= len(b) {
			return 0, i, io.ErrUnexpectedEOF
		}
		c := b[i]
		i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, i, nil
		}
	}
}

// pbLengthAt reads a length at b[i:] and returns the end of the value it
// precedes, which must not be past len(b).
func pbLengthAt(b []byte, i int) (start, end int, err error) {
	n, i, err := pbVarintAt(b, i)
	if err != nil {
		return 0, 0, err
	}
	ln := int(n)
	if ln < 0 {
		return 0, 0, errPBInvalidLength
	}
	end = i + ln
	if end < 0 {
		return 0, 0, errPBInvalidLength
	}
	if end > len(b) {
		return 0, 0, io.ErrUnexpectedEOF
	}
	return i, end, nil
}

// pbSkipAt skips the field whose tag starts at b[i:], as skipGenerated
// does, returning the offset after it.
func pbSkipAt(b []byte, i int) (int, error) {
	p := pbBytes{b: b, i: i}
	v, err := p.varint()
	if err != nil {
		return 0, err
	}
	if err := p.skip(int(v & 7)); err != nil {
		return 0, err
	}
	return p.i, nil
}

// pbRunEnd returns the end of the run of fields with tag tag that starts
// at b[i:] (at a tag), and how many fields it holds; a malformed field ends
// the run before it.
func pbRunEnd(b []byte, i int, tag uint64) (end, n int) {
	end = i
	for end < len(b) {
		v, j, err := pbVarintAt(b, end)
		if err != nil || v != tag {
			break
		}
		_, e, err := pbLengthAt(b, j)
		if err != nil {
			break
		}
		end = e
		n++
	}
	return end, n
}
