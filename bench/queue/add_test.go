package queue_test

import (
	"strconv"
	"testing"

	ourwq "github.com/informer-gen/informer-gen/runtime/workqueue"
)

// BenchmarkQueueCost is the queue's own CPU per key on one goroutine, with
// no hand-offs and no scheduler in the way, so that a change to the
// queue's data structures shows above the noise of a busy machine: each op
// adds a distinct key to a queue that holds depth keys and takes the oldest
// one (Get, Done), so the queue stays depth long. depth=all never takes:
// b.N keys pile up, as in a restart's initial list. ns/op is one key;
// cpu-ns/op, the process's CPU time per key (GC included), is steadier than
// ns/op when other processes share the cores.
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkQueueCost' -count 5 .
func BenchmarkQueueCost(b *testing.B) {
	for _, depth := range []int{100, 10000, 100000, -1} {
		name := "depth=" + strconv.Itoa(depth)
		if depth < 0 {
			name = "depth=all"
		}
		b.Run(name, func(b *testing.B) {
			fill := max(depth, 0)
			ks := keys(b.N + fill)
			q := ourwq.New(ourwq.Options[string]{})
			defer q.ShutDown()
			for _, k := range ks[:fill] {
				q.Add(k)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for _, k := range ks[fill:] {
				q.Add(k)
				if depth >= 0 {
					got, _ := q.Get()
					q.Done(got)
				}
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
