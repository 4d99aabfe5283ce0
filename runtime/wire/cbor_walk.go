package wire

import (
	"encoding/binary"
	"errors"
	"io"
)

// A minimal CBOR walker (RFC 8949 §3): enough to find where each element of
// a LIST body's "items" array starts and ends. It runs after apimachinery
// decoded the whole body, so the body is known well-formed; it still checks
// every bound, so a bug elsewhere cannot make it read out of range.

var errCBORMalformed = errors.New("cbor: malformed data item")

// cborMaxDepth is apimachinery's MaxNestedLevels for decoding.
const cborMaxDepth = 10000

type cborSpan struct{ start, end int }

// cborHead reads the head of the data item at off: major type, argument
// (or -1 for an indefinite length), and the offset after the head.
func cborHead(data []byte, off int) (major byte, arg uint64, indefinite bool, next int, err error) {
	if off >= len(data) {
		return 0, 0, false, 0, io.ErrUnexpectedEOF
	}
	ib := data[off]
	major, info := ib>>5, ib&0x1f
	off++
	switch {
	case info < 24:
		return major, uint64(info), false, off, nil
	case info <= 27:
		n := 1 << (info - 24)
		if len(data)-off < n {
			return 0, 0, false, 0, io.ErrUnexpectedEOF
		}
		var v uint64
		switch n {
		case 1:
			v = uint64(data[off])
		case 2:
			v = uint64(binary.BigEndian.Uint16(data[off:]))
		case 4:
			v = uint64(binary.BigEndian.Uint32(data[off:]))
		case 8:
			v = binary.BigEndian.Uint64(data[off:])
		}
		return major, v, false, off + n, nil
	case info == 31 && (major >= 2 && major <= 5 || major == 7):
		return major, 0, true, off, nil
	default:
		return 0, 0, false, 0, errCBORMalformed
	}
}

// cborSkip returns the offset after the data item at off.
func cborSkip(data []byte, off, depth int) (int, error) {
	if depth > cborMaxDepth {
		return 0, errCBORMalformed
	}
	major, arg, indef, off, err := cborHead(data, off)
	if err != nil {
		return 0, err
	}
	switch major {
	case 0, 1: // integers
		return off, nil
	case 2, 3: // byte and text strings
		if indef {
			for {
				if off >= len(data) {
					return 0, io.ErrUnexpectedEOF
				}
				if data[off] == 0xff {
					return off + 1, nil
				}
				if off, err = cborSkip(data, off, depth+1); err != nil {
					return 0, err
				}
			}
		}
		if arg > uint64(len(data)-off) {
			return 0, io.ErrUnexpectedEOF
		}
		return off + int(arg), nil
	case 4, 5: // arrays and maps
		per := 1
		if major == 5 {
			per = 2
		}
		if indef {
			for {
				if off >= len(data) {
					return 0, io.ErrUnexpectedEOF
				}
				if data[off] == 0xff {
					return off + 1, nil
				}
				for range per {
					if off, err = cborSkip(data, off, depth+1); err != nil {
						return 0, err
					}
				}
			}
		}
		if arg > uint64(len(data)-off) { // every item takes at least one byte
			return 0, io.ErrUnexpectedEOF
		}
		for range int(arg) * per {
			if off, err = cborSkip(data, off, depth+1); err != nil {
				return 0, err
			}
		}
		return off, nil
	case 6: // tag: its content follows
		return cborSkip(data, off, depth+1)
	default: // 7: simple values and floats (the head is the whole item)
		if indef { // a break outside an indefinite-length item
			return 0, errCBORMalformed
		}
		return off, nil
	}
}

// cborKey reads a map key at off that is a text or byte string (definite
// or chunked) and returns it, or ok false for a key of another type.
func cborKey(data []byte, off int) (key []byte, ok bool, next int, err error) {
	major, arg, indef, p, err := cborHead(data, off)
	if err != nil {
		return nil, false, 0, err
	}
	if major != 2 && major != 3 {
		next, err = cborSkip(data, off, 1)
		return nil, false, next, err
	}
	if !indef {
		if arg > uint64(len(data)-p) {
			return nil, false, 0, io.ErrUnexpectedEOF
		}
		return data[p : p+int(arg)], true, p + int(arg), nil
	}
	for {
		if p >= len(data) {
			return nil, false, 0, io.ErrUnexpectedEOF
		}
		if data[p] == 0xff {
			return key, true, p + 1, nil
		}
		_, n, _, q, err := cborHead(data, p)
		if err != nil {
			return nil, false, 0, err
		}
		if n > uint64(len(data)-q) {
			return nil, false, 0, io.ErrUnexpectedEOF
		}
		key = append(key, data[q:q+int(n)]...)
		p = q + int(n)
	}
}

// cborListItems returns the spans of the elements of the "items" array of
// the map that data holds (after any tags, such as the self-described CBOR
// tag apimachinery writes first). No "items", or items null, is no items; so
// is a body that is null or undefined, which apimachinery decodes into an
// empty list.
func cborListItems(data []byte) ([]cborSpan, error) {
	off := 0
	var major byte
	var arg uint64
	var indef bool
	var err error
	for {
		var next int
		major, arg, indef, next, err = cborHead(data, off)
		if err != nil {
			return nil, err
		}
		if major != 6 {
			off = next
			break
		}
		off = next
	}
	if major == 7 && (arg == 22 || arg == 23) && off == len(data) { // null, undefined
		return nil, nil
	}
	if major != 5 {
		return nil, errCBORMalformed
	}
	for pair := uint64(0); indef || pair < arg; pair++ {
		if indef {
			if off >= len(data) {
				return nil, io.ErrUnexpectedEOF
			}
			if data[off] == 0xff {
				break
			}
		}
		key, ok, next, err := cborKey(data, off)
		if err != nil {
			return nil, err
		}
		off = next
		if !ok || string(key) != "items" {
			if off, err = cborSkip(data, off, 1); err != nil {
				return nil, err
			}
			continue
		}
		return cborArraySpans(data, off)
	}
	return nil, nil
}

// cborArraySpans returns the spans of the elements of the array at off
// (after any tags); null or undefined is an empty list.
func cborArraySpans(data []byte, off int) ([]cborSpan, error) {
	for {
		major, arg, indef, next, err := cborHead(data, off)
		if err != nil {
			return nil, err
		}
		switch {
		case major == 6:
			off = next
			continue
		case major == 7 && (arg == 22 || arg == 23): // null, undefined
			return nil, nil
		case major != 4:
			return nil, errCBORMalformed
		}
		off = next
		var spans []cborSpan
		for i := uint64(0); indef || i < arg; i++ {
			if indef {
				if off >= len(data) {
					return nil, io.ErrUnexpectedEOF
				}
				if data[off] == 0xff {
					break
				}
			}
			end, err := cborSkip(data, off, 2)
			if err != nil {
				return nil, err
			}
			spans = append(spans, cborSpan{off, end})
			off = end
		}
		return spans, nil
	}
}
