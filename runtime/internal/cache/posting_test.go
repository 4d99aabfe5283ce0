package cache

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPostingAgainstModel drives random adds and removes through every
// representation (inline, sorted slice, bitmap and back) and compares with a
// plain set after each step.
func TestPostingAgainstModel(t *testing.T) {
	for seed := range uint64(9) {
		rng := rand.New(rand.NewPCG(seed, 1))
		universe := []int{4, 100, 3000}[seed%3]
		var p posting
		model := map[uint32]bool{}
		sawBitmap := false
		for step := range 3000 {
			id := uint32(rng.IntN(universe))
			// Bias towards growth in the first half, shrinkage in the second.
			grow := rng.IntN(100) < 70
			if step > 1500 {
				grow = !grow
			}
			if grow {
				if got, want := p.add(id, universe), !model[id]; got != want {
					t.Fatalf("seed %d step %d: add(%d) = %v, want %v", seed, step, id, got, want)
				}
				model[id] = true
			} else {
				if got, want := p.remove(id, universe), model[id]; got != want {
					t.Fatalf("seed %d step %d: remove(%d) = %v, want %v", seed, step, id, got, want)
				}
				delete(model, id)
			}
			if p.big != nil && p.big.bits != nil {
				sawBitmap = true
			}
			if universe < 1000 || step%25 == 0 {
				checkPosting(t, &p, model)
			}
		}
		if universe == 3000 && !sawBitmap {
			t.Errorf("seed %d: the bitmap representation was never exercised", seed)
		}
	}
}

func checkPosting(t *testing.T, p *posting, model map[uint32]bool) {
	t.Helper()
	if p.len() != len(model) {
		t.Fatalf("len = %d, want %d", p.len(), len(model))
	}
	var got []uint32
	p.each(func(id uint32) bool { got = append(got, id); return true })
	want := make([]uint32, 0, len(model))
	for id := range model {
		want = append(want, id)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("members = %v, want %v", got, want)
	}
	for _, id := range want {
		if !p.has(id) {
			t.Fatalf("has(%d) = false for a member", id)
		}
	}
	if p.n == 1 && p.big != nil || p.n >= 2 && p.big == nil {
		t.Fatalf("n = %d with big = %v: wrong representation", p.n, p.big)
	}
}
