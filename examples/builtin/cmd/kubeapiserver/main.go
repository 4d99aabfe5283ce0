// Command kubeapiserver runs a local kube-apiserver with an embedded etcd
// (package kubeapiserver) until SIGINT or SIGTERM, for benchmarks that need
// the server in a process of its own. It writes the admin kubeconfig to
// -kubeconfig, prints "ready" on stdout once the server answers, and on
// exit (a signal, or a failed start) removes its temporary directory.
//
//	kubeapiserver -kubeconfig /tmp/kc -feature-gates WatchList=false
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/informer-gen/informer-gen/examples/builtin/kubeapiserver"
)

func main() {
	os.Exit(run())
}

func run() int {
	var opts kubeapiserver.Options
	var gates string
	var noWatchCache bool
	flag.StringVar(&opts.KubeconfigPath, "kubeconfig", "", "where to write the admin kubeconfig (mode 0600); required")
	flag.StringVar(&gates, "feature-gates", "", "comma-separated NAME=BOOL feature gates, e.g. WatchList=false,ShardedListAndWatch=true")
	flag.BoolVar(&noWatchCache, "no-watch-cache", false, "run with --watch-cache=false")
	flag.Parse()
	if opts.KubeconfigPath == "" || flag.NArg() > 0 {
		flag.Usage()
		return 2
	}
	opts.DisableWatchCache = noWatchCache
	var err error
	if opts.FeatureGates, err = parseGates(gates); err != nil {
		fmt.Fprintln(os.Stderr, "-feature-gates:", err)
		return 2
	}
	kubeapiserver.QuietKlog()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	s, err := kubeapiserver.Start(startCtx, opts)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "starting kube-apiserver:", err)
		return 1
	}
	fmt.Println("ready")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Stop(stopCtx); err != nil {
		fmt.Fprintln(os.Stderr, "stopping kube-apiserver:", err)
		return 1
	}
	return 0
}

func parseGates(s string) (map[string]bool, error) {
	if s == "" {
		return nil, nil
	}
	gates := map[string]bool{}
	for kv := range strings.SplitSeq(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		b, err := strconv.ParseBool(v)
		if !ok || k == "" || err != nil {
			return nil, fmt.Errorf("%q is not NAME=BOOL", kv)
		}
		gates[k] = b
	}
	return gates, nil
}
