package wire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// The protobuf wire format as far as the envelopes need it: tags, varints,
// length-delimited fields and skipping unknown fields (groups included). The
// rules, and the errors for malformed input, follow the gogo-generated
// Unmarshal methods of k8s.io/apimachinery (runtime/generated.pb.go:
// Unknown.Unmarshal and skipGenerated), so a body the generated code rejects
// is rejected here too.

// Protobuf wire types.
const (
	wireVarint     = 0
	wireFixed64    = 1
	wireBytes      = 2
	wireStartGroup = 3
	wireEndGroup   = 4
	wireFixed32    = 5
)

var (
	errPBVarintOverflow = errors.New("protobuf: varint overflows 64 bits")
	errPBBadLength      = errors.New("protobuf: length beyond the enclosing message")
	errPBEndGroup       = errors.New("protobuf: end of group without its start")
)

// pbBytes reads protobuf fields from a message held in memory.
type pbBytes struct {
	b []byte
	i int
}

func (p *pbBytes) done() bool { return p.i >= len(p.b) }

func (p *pbBytes) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, errPBVarintOverflow
		}
		if p.i >= len(p.b) {
			return 0, io.ErrUnexpectedEOF
		}
		c := p.b[p.i]
		p.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
}

// tag reads a field's tag. Like the generated code it refuses an end-group
// outside a group and a field number that is not positive.
func (p *pbBytes) tag() (field int32, wt int, err error) {
	v, err := p.varint()
	if err != nil {
		return 0, 0, err
	}
	return pbCheckTag(v)
}

func pbCheckTag(v uint64) (int32, int, error) {
	field, wt := int32(v>>3), int(v&7)
	if wt == wireEndGroup {
		return 0, 0, errPBEndGroup
	}
	if field <= 0 {
		return 0, 0, fmt.Errorf("protobuf: illegal tag %d (wire type %d)", field, wt)
	}
	return field, wt, nil
}

// bytes reads the value of a length-delimited field; it aliases p.b.
func (p *pbBytes) bytes() ([]byte, error) {
	n, err := p.varint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(p.b)-p.i) {
		if int64(n) < 0 {
			return nil, errPBBadLength
		}
		return nil, io.ErrUnexpectedEOF
	}
	v := p.b[p.i : p.i+int(n)]
	p.i += int(n)
	return v, nil
}

// skip skips the value of a field of wire type wt whose tag was just read.
func (p *pbBytes) skip(wt int) error {
	depth := 0
	for {
		switch wt {
		case wireVarint:
			if _, err := p.varint(); err != nil {
				return err
			}
		case wireFixed64:
			if len(p.b)-p.i < 8 {
				return io.ErrUnexpectedEOF
			}
			p.i += 8
		case wireBytes:
			if _, err := p.bytes(); err != nil {
				return err
			}
		case wireStartGroup:
			depth++
		case wireEndGroup:
			if depth == 0 {
				return errPBEndGroup
			}
			depth--
		case wireFixed32:
			if len(p.b)-p.i < 4 {
				return io.ErrUnexpectedEOF
			}
			p.i += 4
		default:
			return fmt.Errorf("protobuf: illegal wire type %d", wt)
		}
		if depth == 0 {
			return nil
		}
		v, err := p.varint()
		if err != nil {
			return err
		}
		wt = int(v & 7)
	}
}

// wrongWireType is the error for a known field with an unexpected wire type.
func wrongWireType(msg string, field int32, wt int) error {
	return fmt.Errorf("protobuf: wrong wire type %d for field %d of %s", wt, field, msg)
}

// pbTypeMeta is the runtime.TypeMeta of a runtime.Unknown: apiVersion (1) and
// kind (2). The fields alias the message they were read from.
type pbTypeMeta struct {
	apiVersion, kind []byte
}

// merge reads a TypeMeta message into m. A field present replaces the value
// read before, as runtime.TypeMeta.Unmarshal does on a message that appears
// more than once.
func (m *pbTypeMeta) merge(b []byte) error {
	p := pbBytes{b: b}
	for !p.done() {
		field, wt, err := p.tag()
		if err != nil {
			return err
		}
		switch field {
		case 1, 2:
			if wt != wireBytes {
				return wrongWireType("TypeMeta", field, wt)
			}
			v, err := p.bytes()
			if err != nil {
				return err
			}
			if field == 1 {
				m.apiVersion = v
			} else {
				m.kind = v
			}
		default:
			if err := p.skip(wt); err != nil {
				return err
			}
		}
	}
	return nil
}

// pbUnknown is a runtime.Unknown read from memory: its TypeMeta and raw (2);
// contentEncoding (3) and contentType (4) are checked for their wire type and
// otherwise ignored, as apimachinery's protobuf serializer ignores them.
type pbUnknown struct {
	pbTypeMeta
	raw []byte
}

func (u *pbUnknown) unmarshal(b []byte) error {
	p := pbBytes{b: b}
	for !p.done() {
		field, wt, err := p.tag()
		if err != nil {
			return err
		}
		switch field {
		case 1, 2, 3, 4:
			if wt != wireBytes {
				return wrongWireType("Unknown", field, wt)
			}
			v, err := p.bytes()
			if err != nil {
				return err
			}
			switch field {
			case 1:
				if err := u.merge(v); err != nil {
					return err
				}
			case 2:
				u.raw = v
			}
		default:
			if err := p.skip(wt); err != nil {
				return err
			}
		}
	}
	return nil
}

// pbObjectKey reads the name, namespace and resourceVersion of an object's
// metadata for an error message, as far as they can be read. It never fails.
func pbObjectKey(obj []byte) (key, rv string) {
	name, ns, rvb := pbObjectMeta(obj)
	if !pbPrintable(name) || !pbPrintable(ns) {
		name, ns = nil, nil
	}
	switch {
	case len(name) == 0:
	case len(ns) == 0:
		key = string(name)
	default:
		key = string(ns) + "/" + string(name)
	}
	if pbPrintable(rvb) {
		rv = string(rvb)
	}
	return key, rv
}

// pbPrintable reports whether b can stand in an error message as a name or
// resourceVersion: short, valid UTF-8, no control characters or spaces.
func pbPrintable(b []byte) bool {
	if len(b) > 253 || !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// pbStream reads protobuf fields from a body as it arrives, keeping count of
// the bytes consumed for error offsets.
type pbStream struct {
	r       *bufio.Reader
	src     *pbErrRecorder
	off     int64
	scratch []byte
}

// pbErrRecorder remembers the first error other than io.EOF its reader
// returned, to tell a failing body from a malformed one.
type pbErrRecorder struct {
	r   io.Reader
	err error
}

func (e *pbErrRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// readErr is the error the body returned, if any (not io.EOF).
func (s *pbStream) readErr() error { return s.src.err }

// pbBufferSize is the read buffer of a LIST or WATCH body: a value that
// fits is returned from the buffer without a copy. A long-lived watch holds
// one, so it is a few typical objects, not the largest.
const pbBufferSize = 32 << 10

// pbKeepScratch is the largest scratch buffer (for a value that does not fit
// the read buffer) kept for the next value; a larger one is dropped after
// use, so one huge object does not pin its size for the life of a watch.
const pbKeepScratch = 1 << 20

func newPBStream(body io.Reader) *pbStream {
	src := &pbErrRecorder{r: body}
	return &pbStream{r: bufio.NewReaderSize(src, pbBufferSize), src: src}
}

// varint reads a varint; io.EOF only when the body ended before its first
// byte, io.ErrUnexpectedEOF when it ended inside it.
func (s *pbStream) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if shift >= 64 {
			return 0, errPBVarintOverflow
		}
		c, err := s.r.ReadByte()
		if err != nil {
			if err == io.EOF && shift > 0 {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		s.off++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
}

// next returns the next n bytes of the body, valid until the next read: from
// the read buffer when they fit in it, else copied into a scratch buffer
// that grows with what actually arrives (a hostile length does not allocate
// its size up front).
func (s *pbStream) next(n int) ([]byte, error) {
	if n <= s.r.Size() {
		b, err := s.r.Peek(n)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			s.off += int64(len(b))
			return nil, err
		}
		s.r.Discard(n) //nolint:errcheck // Peek returned n bytes, so Discard cannot fail
		s.off += int64(n)
		return b, nil
	}
	b, err := pbReadFullGrow(s.r, s.scratch[:0], n)
	s.off += int64(len(b))
	s.scratch = nil
	if cap(b) <= pbKeepScratch {
		s.scratch = b[:0]
	}
	return b, err
}

// discard skips n bytes of the body.
func (s *pbStream) discard(n int64) error {
	m, err := io.CopyN(io.Discard, s.r, n)
	s.off += m
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// pbReadFullGrow appends exactly n bytes from r to buf, growing it at most
// twofold ahead of the bytes read so far.
func pbReadFullGrow(r io.Reader, buf []byte, n int) ([]byte, error) {
	start := len(buf)
	for len(buf)-start < n {
		want := n - (len(buf) - start)
		if free := cap(buf) - len(buf); free < want {
			grow := max(len(buf)-start, 64<<10)
			buf = append(buf[:cap(buf)], make([]byte, min(grow, want-free))...)[:len(buf)]
		}
		chunk := buf[len(buf):min(cap(buf), len(buf)+want)]
		m, err := io.ReadFull(r, chunk)
		buf = buf[:len(buf)+m]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// skip skips the value of a field of wire type wt whose tag was just read;
// limit is the offset the value must not pass.
func (s *pbStream) skip(wt int, limit int64) error {
	depth := 0
	for {
		switch wt {
		case wireVarint:
			if _, err := s.varint(); err != nil {
				return pbEOFIsUnexpected(err)
			}
		case wireFixed64, wireFixed32:
			n := int64(8)
			if wt == wireFixed32 {
				n = 4
			}
			if limit-s.off < n {
				return io.ErrUnexpectedEOF
			}
			if err := s.discard(n); err != nil {
				return err
			}
		case wireBytes:
			n, err := s.varint()
			if err != nil {
				return pbEOFIsUnexpected(err)
			}
			if n > uint64(limit-s.off) {
				return io.ErrUnexpectedEOF
			}
			if err := s.discard(int64(n)); err != nil {
				return err
			}
		case wireStartGroup:
			depth++
		case wireEndGroup:
			if depth == 0 {
				return errPBEndGroup
			}
			depth--
		default:
			return fmt.Errorf("protobuf: illegal wire type %d", wt)
		}
		if s.off > limit {
			return io.ErrUnexpectedEOF
		}
		if depth == 0 {
			return nil
		}
		if s.off == limit {
			return io.ErrUnexpectedEOF
		}
		v, err := s.varint()
		if err != nil {
			return pbEOFIsUnexpected(err)
		}
		wt = int(v & 7)
	}
}

func pbEOFIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// pbObjectMeta returns the name, namespace and resourceVersion in an
// object's metadata (field 1 of every Kubernetes object; ObjectMeta's fields
// 1, 3 and 6), as windows of obj, as far as they can be read (nil
// otherwise). It never fails.
func pbObjectMeta(obj []byte) (name, ns, rv []byte) {
	p := pbBytes{b: obj}
	for !p.done() {
		field, wt, err := p.tag()
		if err != nil {
			break
		}
		if field != 1 || wt != wireBytes {
			if p.skip(wt) != nil {
				break
			}
			continue
		}
		meta, err := p.bytes()
		if err != nil {
			break
		}
		m := pbBytes{b: meta}
		for !m.done() {
			f, wt, err := m.tag()
			if err != nil {
				break
			}
			if wt != wireBytes || (f != 1 && f != 3 && f != 6) {
				if m.skip(wt) != nil {
					break
				}
				continue
			}
			v, err := m.bytes()
			if err != nil {
				break
			}
			switch f {
			case 1:
				name = v
			case 3:
				ns = v
			case 6:
				rv = v
			}
		}
	}
	return name, ns, rv
}
