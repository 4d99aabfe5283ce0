package wire

import (
	"errors"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A JSONOption changes what a Codec returned by NewJSON decodes.
type JSONOption func(*jsonConfig)

type jsonConfig struct {
	skipManagedFields bool
	// decode and decodeType are GeneratedDecoder's.
	decode     func(*JSONDecoder, any) error
	decodeType reflect.Type
}

// SkipManagedFields makes the codec skip every object's
// metadata.managedFields instead of decoding it: the objects it returns have
// nil ManagedFields, as if they were decoded and then stripped. It is for
// consumers that drop managedFields anyway (an informer without
// KeepManagedFields): the entries are the bulk of a small object's bytes.
//
// Only the object's own metadata is affected (the managedFields of an
// embedded template's metadata are decoded as usual). The skipped bytes must
// still be valid JSON (they are read, not decoded), and a managedFields that is neither an array nor null
// is still an error; but an array whose entries would not decode into
// ManagedFieldsEntry, an error to apimachinery, is not reported.
func SkipManagedFields() JSONOption {
	return func(c *jsonConfig) { c.skipManagedFields = true }
}

// skipManagedFields is the unmarshaler SkipManagedFields installs. It skips
// the value of a []metav1.ManagedFieldsEntry only where it is the decoded
// object's metadata.managedFields: at the top of a value decoded alone, of a
// watch event's object, or of a LIST item.
func skipManagedFields(dec *jsontext.Decoder, s *[]metav1.ManagedFieldsEntry) error {
	if k := dec.PeekKind(); k != '[' && k != 'n' {
		return errors.ErrUnsupported // let the default unmarshaler report it
	}
	if !isTopManagedFields(string(dec.StackPointer())) {
		return errors.ErrUnsupported
	}
	// ReadValue, not SkipValue: it consumes the value in one pass, where
	// SkipValue reads it token by token.
	if _, err := dec.ReadValue(); err != nil {
		return err
	}
	*s = nil
	return nil
}

// isTopManagedFields reports whether p, the JSON pointer of a member name, is
// /metadata/managedFields, /object/metadata/managedFields or
// /items/<n>/metadata/managedFields.
func isTopManagedFields(p string) bool {
	const suffix = "/metadata/managedFields"
	p, ok := strings.CutSuffix(p, suffix)
	switch {
	case !ok:
		return false
	case p == "" || p == "/object":
		return true
	}
	n, ok := strings.CutPrefix(p, "/items/")
	if !ok || n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] < '0' || n[i] > '9' {
			return false
		}
	}
	return true
}
