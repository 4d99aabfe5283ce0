package redact_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/informer-gen/informer-gen/runtime/internal/redact"
)

type secret struct{ Data string }

// A panic value is named by its type; a runtime.Error keeps its message,
// which holds no values; the value stays reachable for code that asks.
func TestPanic(t *testing.T) {
	const canary = "cAnArY"
	for _, v := range []any{&secret{canary}, canary, fmt.Errorf("bad %s", canary), []string{canary}} {
		err := &redact.PanicError{What: "handler", Value: v}
		if strings.Contains(err.Error(), canary) {
			t.Errorf("panic(%#v): %q quotes the value", v, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%T", v)) {
			t.Errorf("panic(%#v): %q does not name its type", v, err)
		}
	}
	wrapped := fmt.Errorf("bad %s: %w", canary, io.EOF)
	if err := (&redact.PanicError{Value: wrapped}); !errors.Is(err, io.EOF) {
		t.Errorf("errors.Is(%v, io.EOF) = false: the panic value is an error and wraps it", err)
	}
	var nilMap map[string]int
	func() {
		defer func() {
			r := recover()
			if got := redact.Panic(r); !strings.Contains(got, "assignment to entry in nil map") {
				t.Errorf("Panic(%v) = %q, want the runtime error's message", r, got)
			}
		}()
		nilMap["a"] = 1
	}()
}

func TestWithhold(t *testing.T) {
	if redact.Withhold(nil) != nil {
		t.Fatal("Withhold(nil) != nil")
	}
	inner := fmt.Errorf("cannot transform %v: %w", &secret{"cAnArY"}, io.ErrUnexpectedEOF)
	err := redact.Withhold(inner)
	if strings.Contains(err.Error(), "cAnArY") || !strings.Contains(err.Error(), "*fmt.wrapError") {
		t.Errorf("Withhold: %q, want the type and no text", err)
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.Is(err, inner) {
		t.Errorf("Withhold(%v) hides the error from errors.Is", inner)
	}
	if redact.Withhold(err) != err {
		t.Errorf("Withhold of a *Withheld wraps it again")
	}
	// The runtime's own context around a withheld error stays readable.
	wrapped := fmt.Errorf("transform pods.v1 ns/a: %w", err)
	if got := redact.Withhold(wrapped); got != wrapped || !strings.Contains(got.Error(), "transform pods.v1 ns/a") {
		t.Errorf("Withhold(%q) = %q, want it as it is", wrapped, got)
	}
}
