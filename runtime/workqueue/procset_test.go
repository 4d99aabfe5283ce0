package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestProcSetMatchesMap drives procSet across its slice/index switch with
// random adds, flag sets and removals, checking it against a plain map.
// Tags collide on purpose (five tags for many keys), so the linear search
// must compare keys, not just tags.
func TestProcSetMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var p procSet[int]
	model := map[int]bool{}
	for step := range 20000 {
		k := r.IntN(3 * procIndexAt)
		tag := uint32(k%5) + 1
		i := p.find(k, tag)
		again, inModel := model[k]
		if (i >= 0) != inModel {
			t.Fatalf("step %d: find(%d) = %d, model has it: %v", step, k, i, inModel)
		}
		switch {
		case i < 0:
			p.add(k, tag)
			model[k] = false
		case r.IntN(2) == 0:
			p.entries[i].again = true
			model[k] = true
		default:
			if got := p.remove(i); got != again {
				t.Fatalf("step %d: remove(%d) again = %v, want %v", step, k, got, again)
			}
			delete(model, k)
		}
		if p.len() != len(model) {
			t.Fatalf("step %d: len %d, want %d", step, p.len(), len(model))
		}
	}
}
