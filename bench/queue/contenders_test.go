package queue_test

import (
	"strconv"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	ourwq "github.com/informer-gen/informer-gen/runtime/workqueue"
)

// queueUT is what the benchmarks need of a queue: adds at two priorities
// (low for an initial list's adds, normal for changes), Get, Done, Forget
// and shutdown. Queues without priorities add both the same way.
type queueUT interface {
	AddLow(key string)
	Add(key string)
	Get() (string, bool)
	Done(key string)
	Forget(key string)
	ShutDownWithDrain()
	ShutDown()
}

type contender struct {
	name string
	new  func() queueUT
}

type ours struct{ *ourwq.Queue[string] }

func (q ours) AddLow(k string) { q.AddWithOpts(ourwq.AddOpts{Priority: ourwq.LowPriority}, k) }

type oursFIFO struct{ *ourwq.Queue[string] }

func (q oursFIFO) AddLow(k string) { q.Add(k) }

type clientGo struct {
	workqueue.TypedRateLimitingInterface[string]
}

func (q clientGo) AddLow(k string) { q.Add(k) }

type crPriority struct {
	priorityqueue.PriorityQueue[string]
}

var crLow = priorityqueue.AddOpts{Priority: new(-100)} // handler.LowPriority

func (q crPriority) AddLow(k string) { q.AddWithOpts(crLow, k) }

var (
	oursPriority = contender{"ours-priority", func() queueUT { return ours{ourwq.New(ourwq.Options[string]{})} }}
	oursFIFOQ    = contender{"ours-fifo", func() queueUT { return oursFIFO{ourwq.New(ourwq.Options[string]{})} }}
	clientGoQ    = contender{"client-go", func() queueUT {
		return clientGo{workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	}}
	crPriorityQ = contender{"controller-runtime-priority", func() queueUT {
		return crPriority{priorityqueue.New[string]("")} // no name: no metrics, as the others
	}}
)

// keys returns n distinct "namespace/name" keys.
func keys(n int) []string {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = "namespace-" + strconv.Itoa(i%100) + "/object-" + strconv.Itoa(i)
	}
	return ks
}

// spin burns about d of CPU (the work of a reconcile that computes, not one
// that waits).
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	end := time.Now().Add(d)
	for time.Now().Before(end) {
	}
}
