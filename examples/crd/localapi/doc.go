// Package localapi runs a real Kubernetes API server for custom resources in
// the current process: an embedded etcd (go.etcd.io/etcd/server/v3/embed) and
// k8s.io/apiextensions-apiserver, both on 127.0.0.1 with random ports. The demo
// and the end-to-end tests use it; nothing here is meant for production.
//
// Design choices that are not obvious:
//
//   - Security is the simplest thing that is safe on one machine: the server
//     binds 127.0.0.1 only and serves a self-signed certificate; it
//     authenticates only the per-server token of the kubeconfig it writes
//     (mode 0600, with the CA), rejects anonymous requests with 401 and
//     authorizes every authenticated one. etcd serves clients on a unix
//     socket in a private (0700) directory, and its loopback peer port is
//     TLS that demands a client certificate no one can have.
//   - StopAPIServer takes about a second even with watches open: the
//     generic server's ShutdownTimeout (how long net/http waits for open
//     requests) is cut from its 60s default to 1s.
//   - The server has no core API (no namespaces, Events, Leases, RBAC). The
//     generic server still insists on a core informer factory; it gets one over
//     a fake clientset that nothing uses, so no request ever leaves the process
//     and nothing retries against an unreachable address.
//   - etcd and the API server have separate lifecycles: StopAPIServer and
//     StartAPIServer restart the API server on the same port, certificate and
//     etcd data, which is how the tests prove that an informer survives an API
//     server restart. CompactEtcd compacts etcd's history so that a watch from
//     an old resourceVersion gets 410 Expired (visible only with the watch cache
//     off: Options.DisableWatchCache).
//   - Feature gates are process-wide in k8s.io/apiserver. Options.FeatureGates
//     is applied to the global gate on Start, and a second server in the same
//     process must ask for the same gates (Start fails otherwise). Tests that
//     need different gates (WatchList off) live in their own test binary.
//   - Nothing is left behind: Stop removes etcd's socket directory (with the
//     peer key) and a temporary data directory, and so does, on every other
//     way the process can end (a panic, a test binary's timeout, SIGKILL), a
//     small /bin/sh child started with the server that waits for the
//     process's end on a pipe (see reaper_unix.go). Programs should still
//     stop servers on SIGINT and SIGTERM, as the demo does.
//   - etcd's zap logger shows fatal errors only and is silenced before Close, since
//     etcd logs spurious errors while shutting down; QuietKlog silences the
//     API server's klog output for programs that log through their own logger.
package localapi
