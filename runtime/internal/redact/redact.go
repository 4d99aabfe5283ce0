// Package redact is the runtime's one rule for what an error or a log line
// made from input may say (docs/guide.md, "What reaches a log or an error"):
// the resource, the object's key, resourceVersion, apiVersion and kind, byte
// offsets, field paths and Go types — never a value read from an object, nor
// text that user code made while holding one (a transform's error, a panic
// value). It imports nothing of the runtime, so every stage can use it.
package redact

import (
	"errors"
	"fmt"
	"runtime"
)

// Panic describes a recovered panic value by its type alone, never its
// contents: a handler or a reconcile that panics with the object it was given
// (panic(obj), panic(fmt.Sprint(obj)), log.Panicf) would otherwise put every
// field of it in the log. A runtime.Error (nil dereference, index out of
// range, a failed type assertion) keeps its message, which the Go runtime
// makes from types and numbers only.
func Panic(r any) string {
	if re, ok := r.(runtime.Error); ok {
		return "panic: " + re.Error()
	}
	return fmt.Sprintf("panic with a value of type %T (value not shown: it may hold the object)", r)
}

// PanicError is the error made from a recovered panic value. Its message is
// Panic's; Value is the value itself, for code that wants it (never logged
// by the runtime).
type PanicError struct {
	// What says what panicked, e.g. `reconcile of key "ns/a"`.
	What  string
	Value any
	// Stack is debug.Stack() where the panic was recovered, for the log
	// line; it is not part of the message.
	Stack []byte
}

func (e *PanicError) Error() string { return e.What + ": " + Panic(e.Value) }

// Unwrap returns the panic value when it is an error, so errors.Is and
// errors.As still see it.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// Withheld is an error made by user code that had an object in hand (a
// transform's), reported by the runtime by its type only: its text may quote
// the object. Err stays reachable through errors.Is, errors.As and Unwrap,
// for code that wants it.
type Withheld struct {
	Err error
}

// Withhold returns err as a *Withheld, or nil for nil. An error that holds a
// *Withheld already is returned as it is: only the runtime makes one, and
// wraps it in text of its own (the factory's "transform pods.v1 ns/a: "),
// which an informer's options then hand on.
func Withhold(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*Withheld](err); ok {
		return err
	}
	return &Withheld{Err: err}
}

func (e *Withheld) Error() string {
	return fmt.Sprintf("error of type %T (text not shown: it may quote the object)", e.Err)
}

func (e *Withheld) Unwrap() error { return e.Err }
