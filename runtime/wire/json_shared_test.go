package wire

import (
	"reflect"
	"testing"
)

// TestCheckedDecoderSharedDecoders: a generated decoder that calls a shared
// decoder package (runtime/wire/corev1) is kept only while that package's
// members match the compiled types (its X.Current, passed to
// CheckedDecoder).
func TestCheckedDecoderSharedDecoders(t *testing.T) {
	type part struct {
		A string `json:"a"`
		B int    `json:"b,omitempty"`
	}
	type kind struct {
		P part `json:"p"`
	}
	fields := map[reflect.Type]string{reflect.TypeFor[kind](): "p"}
	fn := func(*JSONDecoder, *kind) error { return nil }
	// What a shared decoder package's Current does with its members.
	currentOf := func(members map[reflect.Type]string) func() bool {
		return func() bool { return CheckedDecoder(members, fn) != nil }
	}
	current := currentOf(map[reflect.Type]string{reflect.TypeFor[part](): "a,b"})
	stale := currentOf(map[reflect.Type]string{reflect.TypeFor[part](): "a"})
	if !current() || stale() {
		t.Fatalf("Current: %v for matching members, %v for a missing one", current(), stale())
	}
	if CheckedDecoder(fields, fn, current) == nil {
		t.Error("CheckedDecoder dropped a decoder whose shared decoders are current")
	}
	if CheckedDecoder(fields, fn, current, stale) != nil {
		t.Error("CheckedDecoder kept a decoder whose shared decoders miss a member")
	}
}
