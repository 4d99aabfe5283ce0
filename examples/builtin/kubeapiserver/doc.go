// Package kubeapiserver runs a real kube-apiserver (k8s.io/kubernetes
// v1.37.2, built from Go modules, no downloaded binaries) with an embedded
// etcd, in the current process: for tests on built-in kinds (Pods, Secrets,
// Leases, RBAC) and, through cmd/kubeapiserver, as a process of its own for
// benchmarks. Nothing here is meant for production.
//
// What it runs and why:
//
//   - etcd (go.etcd.io/etcd/server/v3/embed) serves clients on a unix socket
//     in the server's temporary directory (mode 0700), so only this user can
//     reach the data; its loopback peer port is TLS that demands a client
//     certificate no one can have.
//   - kube-apiserver binds 127.0.0.1 only, serves a self-signed certificate
//     and authenticates bearer tokens only: the admin token (a member of
//     system:masters) and service account tokens; anonymous requests get
//     401. Authorization is RBAC with the default bootstrap roles, admission
//     the default plugin set (ServiceAccount, NamespaceLifecycle, PodSecurity,
//     ResourceQuota, ...), storage protobuf.
//   - NewUser mints a user bound to a Role or ClusterRole: a ServiceAccount
//     with a TokenRequest token, so its requests meet the real authenticator
//     and authorizer, and RBAC's 403 messages name it.
//   - No controllers run (no kube-controller-manager): no garbage
//     collection, a deleted namespace stays Terminating, and a namespace has
//     no ServiceAccount "default" unless CreateNamespace made it (the
//     ServiceAccount admission plugin rejects Pods without one).
//   - Feature gates are process-wide in k8s.io/apiserver: Options.FeatureGates
//     is applied to the global gate by the first Start, and every later
//     server of the process must ask for the same gates. Tests that need
//     different gates live in test binaries of their own.
//   - Stop takes about a second even with watches open (the generic
//     server's ShutdownTimeout is cut from 60 s to 1 s) and removes the
//     temporary directory (etcd's data, the certificates, the token file);
//     so does a Start that fails.
//   - etcd logs only fatal errors (it logs spurious ones on a fast start and
//     at shutdown); QuietKlog silences kube-apiserver's klog output for
//     programs that log through their own logger.
package kubeapiserver
