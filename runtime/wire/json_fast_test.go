package wire

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// TestInternCacheReturnsItsInput checks the string cache of
// unmarshalStringMap on many strings competing for its 256 slots: every
// string comes back equal to its input, whether it was cached, evicted or
// too long to cache.
func TestInternCacheReturnsItsInput(t *testing.T) {
	c := new(internCache)
	r := rand.New(rand.NewPCG(1, 2))
	var inputs []string
	for i := range 5000 {
		n := r.IntN(80)
		inputs = append(inputs, strings.Repeat("ab", n/2)+fmt.Sprint(i%700)+string(rune('a'+i%26)))
	}
	for range 3 {
		for _, in := range inputs {
			v, err := jsontext.AppendQuote(nil, in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.str(v)
			if err != nil || got != in {
				t.Fatalf("str(%s) = %q, %v; want %q", v, got, err, in)
			}
		}
	}
}
