package workqueue

// Handler is the informer handler that puts objects' keys into a queue,
// with controller-runtime's priorities: the adds of an informer's initial
// list, and updates whose resourceVersion did not change (resyncs, relists
// that found the object as it was), go in at LowPriority; every other add,
// update and delete at priority 0. After a restart a real change is then
// handed out before the initial list's keys, not behind all of them.
//
// Its methods are those of informer.Handler[T] (the workqueue stage does not
// import the informer), so it is registered as is:
//
//	inf.AddHandler(workqueue.Handler[*v1.Foo, string]{Queue: q, Key: key}, informer.HandlerOptions{})
//
// Queue and Key must be set (a nil one panics in the handler, which the
// informer recovers and reports per event). Key maps an object to its key;
// for a delete it gets the last known state. The methods are safe for
// concurrent use and never block.
//
// T needs only GetResourceVersion, to tell a change from a resync; every
// Kubernetes object (metav1.Object) has it.
type Handler[T interface{ GetResourceVersion() string }, K comparable] struct {
	Queue *Queue[K]
	Key   func(obj T) K
}

// OnAdd queues obj's key, at LowPriority when it is part of the initial list.
func (h Handler[T, K]) OnAdd(obj T, isInInitialList bool) {
	prio := 0
	if isInInitialList {
		prio = LowPriority
	}
	h.Queue.AddWithOpts(AddOpts{Priority: prio}, h.Key(obj))
}

// OnUpdate queues newObj's key, at LowPriority when the resourceVersion is
// unchanged.
func (h Handler[T, K]) OnUpdate(oldObj, newObj T) {
	prio := 0
	if oldObj.GetResourceVersion() == newObj.GetResourceVersion() {
		prio = LowPriority
	}
	h.Queue.AddWithOpts(AddOpts{Priority: prio}, h.Key(newObj))
}

// OnDelete queues obj's key at priority 0.
func (h Handler[T, K]) OnDelete(obj T, finalStateUnknown bool) {
	h.Queue.Add(h.Key(obj))
}
