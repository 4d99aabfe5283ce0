// Package e2e holds the tests of integrations/controllerruntime against a
// real API server (examples/crd/localapi): the typed source and the
// Runnable under a manager, controller-runtime's cache on our informers
// (one WATCH), leader election with a warm standby, and the cache
// benchmarks.
package e2e
