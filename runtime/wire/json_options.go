package wire

import (
	"errors"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
