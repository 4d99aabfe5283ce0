package listpage_test

import (
	"testing"

	"github.com/informer-gen/informer-gen/runtime/internal/listpage"
)

// Reserve sizes the list once, on its first page, from the server's
// remainingItemCount, which is only a hint: a negative count is ignored and
// an absurd one is bounded by MaxReserve.
func TestReserveTrustsTheCountWithinBounds(t *testing.T) {
	count := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		name    string
		items   []int
		p       listpage.Page
		wantCap int
	}{
		{"first page with a count", nil, listpage.Page{Continue: "x", RemainingItemCount: count(7)}, 10},
		{"last page", nil, listpage.Page{RemainingItemCount: count(7)}, 0},
		{"no count", nil, listpage.Page{Continue: "x"}, 0},
		{"zero count", nil, listpage.Page{Continue: "x", RemainingItemCount: count(0)}, 0},
		{"negative count", nil, listpage.Page{Continue: "x", RemainingItemCount: count(-5)}, 0},
		{"most negative count", nil, listpage.Page{Continue: "x", RemainingItemCount: count(-1 << 63)}, 0},
		{"absurd count", nil, listpage.Page{Continue: "x", RemainingItemCount: count(1 << 62)}, 3 + listpage.MaxReserve},
		{"later page", make([]int, 3, 4), listpage.Page{Continue: "x", RemainingItemCount: count(7)}, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := listpage.Reserve(tc.items, 3, tc.p)
			if cap(got) != tc.wantCap || len(got) != len(tc.items) {
				t.Errorf("Reserve: len %d cap %d, want len %d cap %d", len(got), cap(got), len(tc.items), tc.wantCap)
			}
		})
	}
}
