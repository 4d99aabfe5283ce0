package queue_test

import (
	"strconv"
	"testing"
	"time"

	ourwq "github.com/informer-gen/informer-gen/runtime/workqueue"
)

// BenchmarkPriorityCost is what priorities cost our queue: BenchmarkHarness's
// rounds (one producer adding harnessKeys distinct keys; workers Get → work
// → Forget → Done) alternated between our queue with every key at priority
// 0 (ours-fifo: the FIFO path) and the same queue in priority mode
// (ours-priority). In priority mode either 7 of every 8 keys go in at
// LowPriority and the 8th at 0 (mix=7-low-1-normal: two lanes, the higher
// one drained as fast as it fills), or every key at LowPriority
// (mix=all-low: one busy lane, Get still looking at two). Both sides of
// each ratio ran back to back in one process on the same keys. It reports
// each side's median keys per second and CPU time per key (the work's
// included), and the median, lowest and highest per-round ratio
// ours-priority ÷ ours-fifo.
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkPriorityCost' -benchtime 1x .
func BenchmarkPriorityCost(b *testing.B) {
	for _, mix := range []string{"7-low-1-normal", "all-low"} {
		for _, workers := range []int{1, 8} {
			for _, work := range []time.Duration{0, 2 * time.Microsecond} {
				name := "mix=" + mix + "/workers=" + strconv.Itoa(workers) + "/work=" + workName(work)
				b.Run(name, func(b *testing.B) { benchPriorityCost(b, mix == "all-low", workers, work) })
			}
		}
	}
}

func benchPriorityCost(b *testing.B, allLow bool, workers int, work time.Duration) {
	s := harnessShape{workers: workers, producers: 1, work: work}
	ks := keys(harnessKeys)
	var fifo, prio, fifoCPU, prioCPU, ratios []float64
	for range b.N {
		for range harnessRounds {
			f, fcpu := harnessRound("ours-fifo", ourwq.New(ourwq.Options[string]{}), ks, s)
			p, pcpu := harnessRound("ours-priority", newLowPriorityAdds(allLow), ks, s)
			fifo, fifoCPU = append(fifo, f), append(fifoCPU, fcpu)
			prio, prioCPU = append(prio, p), append(prioCPU, pcpu)
			ratios = append(ratios, p/f)
		}
	}
	b.ReportMetric(median(fifo), "fifo-items/s")
	b.ReportMetric(median(prio), "priority-items/s")
	b.ReportMetric(median(fifoCPU), "fifo-cpu-ns/key")
	b.ReportMetric(median(prioCPU), "priority-cpu-ns/key")
	reportRatios(b, ratios)
}

// lowPriorityAdds adds keys at LowPriority: all of them with allLow, else
// 7 of every 8, the 8th at priority 0. One producer only: the count is not
// synchronized. It lives in a cache line of its own: beside the queue
// pointer, which every worker's Get, Forget and Done read, each add would
// pull that line from the workers' core.
type lowPriorityAdds struct {
	*ourwq.Queue[string]
	n      *[8]int // n[0] counts adds
	allLow bool
}

func newLowPriorityAdds(allLow bool) *lowPriorityAdds {
	return &lowPriorityAdds{Queue: ourwq.New(ourwq.Options[string]{}), n: new([8]int), allLow: allLow}
}

func (q *lowPriorityAdds) Add(k string) {
	q.n[0]++
	if !q.allLow && q.n[0]%8 == 0 {
		q.Queue.Add(k)
		return
	}
	q.AddWithOpts(ourwq.AddOpts{Priority: ourwq.LowPriority}, k)
}
