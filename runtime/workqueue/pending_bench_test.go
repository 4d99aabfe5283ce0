package workqueue

import (
	"strconv"
	"testing"
)

// BenchmarkPendingBacklogCycles is the producer's side of one fast
// producer ahead of its workers: distinct keys appended while the backlog
// fills to a peak, is handed out, and fills again (the harness's
// 8-worker shape swings between 0 and about 130,000 keys). It reports
// the producer's ns per key: appends, chunk reuse, flushes and rebuilds.
func BenchmarkPendingBacklogCycles(b *testing.B) {
	for _, peak := range []int{1 << 10, 1 << 14, 130_000} {
		b.Run("peak="+strconv.Itoa(peak), func(b *testing.B) {
			keys := make([]string, 4*peak)
			for i := range keys {
				keys[i] = "default/object-" + strconv.Itoa(i)
			}
			q := New[string](Options[string]{})
			tags := make([]uint32, len(keys))
			for i, k := range keys {
				tags[i] = q.tag(k)
			}
			var p pending[string]
			var inflight inflightSet[string]
			p.init()
			var head, tail uint64
			next := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p.append(keys[next], tags[next], tail, head, &inflight)
				tail++
				if next++; next == len(keys) {
					next = 0
				}
				if tail-head >= uint64(peak) {
					head = tail // the workers caught up
				}
			}
		})
	}
}
