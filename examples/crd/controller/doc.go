// Package controller is the example controller: the control loop described in
// the informer articles this project started from, on informer-gen's
// generated informers and the runtime's WorkQueue.
//
//	informer handlers ──keys──▶ rate-limited WorkQueue ──▶ N workers
//	                                                        │ read: generated Listers (the cache)
//	                                                        │ index: fooLister.ByHost(name)
//	                                                        └ write: PUT …/status (REST client)
//
// What it reconciles:
//   - Foo.status.availableReplicas = min(spec.replicas, Host.spec.capacity)
//     for the Host named by spec.hostName (0 when there is none), and
//     status.observedGeneration = metadata.generation.
//   - Host.status.foos = the number of Foos, in all namespaces, whose
//     spec.hostName names the Host. It is counted with the generated index
//     (FooLister.ByHost), not by scanning every Foo.
//
// Design choices that are not obvious:
//   - One queue for both kinds, keyed by a small comparable struct (Key), so
//     the workers, the backoff and the one-worker-per-key guarantee are shared.
//   - Workers never read from the API server: everything comes from the
//     Listers. A status write that loses a race (409 Conflict) is not retried
//     in place; the key is requeued with backoff and the next attempt reads the
//     newer object from the cache.
//   - Status is written with a REST client built from the API package's scheme
//     (no generated clientset), to the status subresource, so a status write
//     never bumps metadata.generation.
//   - Shutdown: cancelling Run's ctx shuts the queue down; workers finish their
//     current key, drain what is queued (reconciles with a cancelled ctx fail
//     fast and are not requeued), and Run returns once every worker exited.
package controller
