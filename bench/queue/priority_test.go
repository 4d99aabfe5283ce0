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
// (ours-priority), with the keys at these priorities:
//   - mix=all-low: every key at LowPriority (one busy lane, Get still
//     looking at two);
//   - mix=7-low-1-normal: 7 of every 8 at LowPriority, the 8th at 0 (two
//     busy lanes, the higher one drained as fast as it fills);
//   - mix=restart: 499 of every 500 at LowPriority, the 500th at 0 (an
//     initial list with a few edits);
//   - mix=resyncs: 1 of every 8 at LowPriority, the rest at 0 (changes with
//     resyncs among them).
//
// Both sides of each ratio ran back to back in one process on the same
// keys. It reports each side's median keys per second and CPU time per key
// (the work's included), and the median, lowest and highest per-round ratio
// ours-priority ÷ ours-fifo.
//
//	cd bench/queue && go test -run '^$' -bench 'BenchmarkPriorityCost' -benchtime 1x .
func BenchmarkPriorityCost(b *testing.B) {
	for _, mix := range priorityMixes {
		for _, workers := range []int{1, 8} {
			for _, work := range []time.Duration{0, 2 * time.Microsecond} {
				name := "mix=" + mix.name + "/workers=" + strconv.Itoa(workers) + "/work=" + workName(work)
				b.Run(name, func(b *testing.B) { benchPriorityCost(b, mix, workers, work) })
			}
		}
	}
}

// priorityMix puts one key in every `every` at priority odd and the others
// at priority rest (every 0: all at rest).
type priorityMix struct {
	name      string
	every     int
	odd, rest int
}

var priorityMixes = []priorityMix{
	{name: "all-low", rest: ourwq.LowPriority},
	{name: "7-low-1-normal", every: 8, odd: 0, rest: ourwq.LowPriority},
	{name: "restart", every: 500, odd: 0, rest: ourwq.LowPriority},
	{name: "resyncs", every: 8, odd: ourwq.LowPriority, rest: 0},
}

func benchPriorityCost(b *testing.B, mix priorityMix, workers int, work time.Duration) {
	s := harnessShape{workers: workers, producers: 1, work: work}
	ks := keys(harnessKeys)
	var fifo, prio, fifoCPU, prioCPU, ratios []float64
	for range b.N {
		for range harnessRounds {
			f, fcpu := harnessRound("ours-fifo", ourwq.New(ourwq.Options[string]{}), ks, s)
			p, pcpu := harnessRound("ours-priority", newMixedAdds(mix), ks, s)
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

// mixedAdds adds keys at the priorities of mix. One producer only: the
// count is not synchronized. It lives in a cache line of its own: beside the
// queue pointer, which every worker's Get, Forget and Done read, each add
// would pull that line from the workers' core.
type mixedAdds struct {
	*ourwq.Queue[string]
	n   *[8]int // n[0] counts adds
	mix priorityMix
}

func newMixedAdds(mix priorityMix) *mixedAdds {
	return &mixedAdds{Queue: ourwq.New(ourwq.Options[string]{}), n: new([8]int), mix: mix}
}

func (q *mixedAdds) Add(k string) {
	q.n[0]++
	prio := q.mix.rest
	if q.mix.every > 0 && q.n[0]%q.mix.every == 0 {
		prio = q.mix.odd
	}
	if prio == 0 {
		q.Queue.Add(k)
		return
	}
	q.AddWithOpts(ourwq.AddOpts{Priority: prio}, k)
}
