// Command demo runs the example controller end to end and checks the result.
//
// First it runs informer-gen on the API packages (./apis/...) and checks
// that the result equals generated/, the code the demo is built from. By
// default it then starts a local API server in the process (embedded etcd +
// apiextensions-apiserver on 127.0.0.1), installs the example CRDs, starts the
// generated informer factory and the controller, then creates, updates and
// deletes a batch of Foos and Hosts while printing progress at most once a
// second. At the end it checks that every object's status was reconciled and
// that the informer cache equals a fresh LIST, prints a summary and exits 0,
// or 1 when a check fails.
//
// From the repository root:
//
//	go run -C examples/crd ./cmd/demo [--objects 3000] [--workers 4]
//	go run -C examples/crd ./cmd/demo --kubeconfig ~/.kube/config   # any cluster with the CRDs
//
// Against a real cluster it works in --namespace (default "default") on
// objects labelled with this run's id only, and deletes them at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	var cfg config
	flag.IntVar(&cfg.objects, "objects", 2000, "number of Foos to create")
	flag.IntVar(&cfg.hosts, "hosts", 20, "number of Hosts to create")
	flag.IntVar(&cfg.workers, "workers", 4, "controller workers")
	flag.IntVar(&cfg.clients, "clients", 16, "parallel clients creating, updating and deleting objects")
	flag.StringVar(&cfg.kubeconfig, "kubeconfig", "", "run against this cluster (which must have the CRDs in manifests/) instead of a local API server")
	flag.StringVar(&cfg.namespace, "namespace", "default", "namespace of the Foos")
	flag.Float64Var(&cfg.qps, "qps", 0, "client QPS limit; 0 means unlimited locally and 50 with --kubeconfig")
	flag.DurationVar(&cfg.timeout, "timeout", 0, "give up after this long (0: 10m)")
	flag.IntVar(&cfg.verbosity, "v", 0, "log verbosity of the demo's own logger (klog levels)")
	flag.BoolVar(&cfg.ignoreOwnWrites, "ignore-own-writes", false, "reconcile without waiting for the cache to apply the controller's own last write (to measure what that costs: stale reads)")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, cfg, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}
