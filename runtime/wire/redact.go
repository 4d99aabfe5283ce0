package wire

import (
	"errors"
	"strconv"
	"time"

	json "github.com/go-json-experiment/json"
)

// The rule for decode errors (docs/guide.md, "What reaches a log or an
// error", says it for the whole runtime): a decode error names the object's
// key, resourceVersion, apiVersion and kind as far as they were read, the byte
// offset, the path to the value (JSON member names and indexes), the JSON and
// Go types involved and a reason from a fixed set; never a value read from the
// body, which could be a Secret's. Errors of the libraries a codec calls that
// quote the value they rejected are rewritten by contentFree, on every codec
// (JSON, generated JSON, CBOR, protobuf, projections), and once more by
// DecodeError.Error, so an error that reaches a DecodeError by another way is
// covered too. The original error stays reachable with errors.As.

// contentFree returns err with a message that does not quote the value it
// could not decode: json.SemanticError (the reflective JSON decoder's, and
// the errors of UnmarshalJSON methods it wraps) is rebuilt from its JSON kind,
// Go type and path; time.Parse's and strconv's errors (a malformed timestamp
// read by the generated JSON decoder or CBOR, a number) are replaced by what
// was expected. Syntax and I/O errors name at most one character and are
// left alone.
func contentFree(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*contentFreeError](err); ok {
		return err // made content-free where it was read
	}
	if se, ok := errors.AsType[*json.SemanticError](err); ok {
		msg := "cannot decode"
		if se.JSONKind != 0 {
			msg += " JSON " + kindName(se.JSONKind)
		}
		if se.GoType != nil {
			msg += " into Go " + se.GoType.String()
		}
		if se.JSONPointer != "" {
			msg += " at " + string(se.JSONPointer)
		}
		switch {
		case errors.Is(se.Err, strconv.ErrRange):
			msg += ": value out of range"
		case errors.Is(se.Err, strconv.ErrSyntax):
			msg += ": invalid number syntax"
		case se.Err != nil:
			msg += ": value rejected"
		}
		return &contentFreeError{msg: msg, err: err}
	}
	if pe, ok := errors.AsType[*time.ParseError](err); ok {
		return &contentFreeError{msg: "cannot parse a time as " + strconv.Quote(pe.Layout) + ": value rejected", err: err}
	}
	if ne, ok := errors.AsType[*strconv.NumError](err); ok {
		return &contentFreeError{msg: "cannot parse a number (" + ne.Func + "): " + ne.Err.Error(), err: err}
	}
	return err
}

type contentFreeError struct {
	msg string
	err error
}

func (e *contentFreeError) Error() string { return e.msg }
func (e *contentFreeError) Unwrap() error { return e.err }
