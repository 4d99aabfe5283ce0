// Package queue holds the workqueue benchmarks that put controller-runtime's
// priority queue beside runtime/workqueue and client-go's workqueue: the
// restart benchmark (edit-to-reconcile latency while 50,000 initial adds
// drain) and the throughput matrix (workers, producers, work per key). It is
// a module of its own so that controller-runtime stays out of the root
// module. See docs/performance.md for the commands and figures.
package queue
