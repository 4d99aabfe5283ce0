package shard

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkOwns is the per-event cost a Filter and Begin add: one Owns.
// The anchor, time.Now alone, is Owns' fixed cost (the renew deadline check).
func BenchmarkOwns(b *testing.B) {
	b.Run("anchor=time.Now", func(b *testing.B) {
		var t time.Time
		for b.Loop() {
			t = time.Now()
		}
		_ = t
	})
	for _, n := range []int{3, 10, 50} {
		b.Run(fmt.Sprintf("members=%d", n), func(b *testing.B) {
			v := newView(members(n))
			a := &assignment{self: v.members[0], grown: &v, until: time.Now().Add(time.Hour)}
			ks := keys(1024)
			b.ResetTimer()
			owned := 0
			for i := 0; b.Loop(); i++ {
				if a.owns(ks[i&1023]) {
					owned++
				}
			}
			_ = owned
		})
	}
}
