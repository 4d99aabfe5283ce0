// Package listpage is how a LIST page reaches the Reflector's list without
// an intermediate copy: a source that is an Appender appends each page's
// items to the list itself. The runtime's untyped adapter of a typed
// ListerWatcher (untypedlw) is one: it converts each T to the core's
// cache.Obj as it appends, instead of building a []cache.Obj per page that
// the Reflector would then copy again. Only the runtime can implement
// Appender (Page is internal), so a user's ListerWatcher is always read
// through its List.
package listpage

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Page is a LIST page's metadata: reflector.ListResult without its items.
type Page struct {
	ResourceVersion string
	// Continue is the token for the next page; empty on the last page.
	Continue string
	// RemainingItemCount, when the server knows it, is the number of items
	// after this page (a hint: see Reserve).
	RemainingItemCount *int64
}

// Appender is a reflector.ListerWatcher[T] that can also list a page by
// appending its items to a list; the Reflector then uses AppendList instead
// of List.
type Appender[T any] interface {
	// AppendList lists the page opts asks for, as List does, and returns
	// items with that page's items appended (first sized by Reserve), the
	// page's metadata, ok and the source's error. ok is false when the
	// source returned no page (with a nil error only from a broken source:
	// the Reflector reports that). With an error, the page's items need not
	// be appended: the Reflector drops the list.
	AppendList(ctx context.Context, opts metav1.ListOptions, items []T) (_ []T, _ Page, ok bool, _ error)
}

// MaxReserve bounds the room Reserve makes on a server's word: at most this
// many items, so that an absurd remainingItemCount costs no more than
// appending would.
const MaxReserve = 1 << 20

// Reserve returns items ready to take a page of n items with metadata p.
// When items has no room yet (the first page of a list), p has a next page
// and says how many items follow, the result has room for the whole list
// (n + RemainingItemCount, at most MaxReserve past n), so a paged list of
// any length is collected with one allocation; otherwise items itself (the
// append that follows grows it). A negative count is ignored.
func Reserve[T any](items []T, n int, p Page) []T {
	if cap(items) != 0 || p.Continue == "" || p.RemainingItemCount == nil {
		return items
	}
	rest := *p.RemainingItemCount
	if rest <= 0 {
		return items
	}
	return make([]T, 0, n+int(min(rest, MaxReserve)))
}
