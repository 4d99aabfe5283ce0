// Command e2e measures informers end to end against the example's local API
// server (etcd + apiextensions-apiserver): ours (the generated factory of
// examples/crd), client-go's typed informer as code-generator writes it,
// client-go's dynamic informer and controller-runtime's cache, each in a
// fresh process, alternated, WatchList on and off. See hack/bench-e2e.sh
// and docs/performance.md ("End to end").
//
// This binary is the driver (parses flags, starts the others, writes the
// objects, prints the tables) and, with BENCHE2E_ROLE=server in its
// environment, the API server, in a process of its own so that its CPU can
// be read from /proc around each run. The contenders run from a second
// binary, ./contender, that links the client libraries only. The test binary
// of this package plays the server role too.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

func main() {
	if done, code := runRole(); done {
		os.Exit(code)
	}
	var cfg driverConfig
	var sizes, contenders, modes string
	flag.StringVar(&sizes, "sizes", "10000,50000", "comma-separated object counts; objects accumulate, so list them in increasing order")
	flag.IntVar(&cfg.Runs, "runs", 3, "runs of every contender and mode per size (medians are reported)")
	flag.IntVar(&cfg.Updates, "updates", 2000, "updates written after each sync (steady state; each costs the server ~3 ms of CPU); 0 skips the phase")
	flag.StringVar(&contenders, "contenders", strings.Join(proto.Contenders, ","), "contenders to run; ours:MODE is ours with its LIST options overridden (for measuring candidates): ours:rv0 (resourceVersion \"0\"), ours:paged (\"\", limit 500), ours:unpaged (\"\", no limit), ours:nogzip (defaults, responses not compressed)")
	flag.StringVar(&modes, "watchlist", "on,off", "WatchList modes to run: on, off or both")
	flag.IntVar(&cfg.Writers, "writers", 32, "parallel writers for creates and updates")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "timeout of one contender run")
	flag.DurationVar(&cfg.Settle, "settle", time.Second, "pause before each run, for the server to settle")
	flag.BoolVar(&cfg.Verbose, "v", false, "print every run as JSON")
	flag.StringVar(&cfg.ContenderExe, "contender-bin", "", "the contender binary (go build ./contender); required")
	flag.Parse()
	var err error
	if cfg.Sizes, err = parseInts(sizes); err != nil {
		fmt.Fprintln(os.Stderr, "-sizes:", err)
		os.Exit(2)
	}
	cfg.Contenders = splitList(contenders)
	for _, c := range cfg.Contenders {
		base, mode, _ := strings.Cut(c, ":")
		if !slices.Contains(proto.Contenders, base) || (mode != "" && (base != proto.Ours || !slices.Contains([]string{"rv0", "paged", "unpaged", "nogzip"}, mode))) {
			fmt.Fprintf(os.Stderr, "-contenders: unknown contender %q (known: %s)\n", c, strings.Join(proto.Contenders, ","))
			os.Exit(2)
		}
	}
	for _, m := range splitList(modes) {
		switch m {
		case "on":
			cfg.WatchList = append(cfg.WatchList, true)
		case "off":
			cfg.WatchList = append(cfg.WatchList, false)
		default:
			fmt.Fprintf(os.Stderr, "-watchlist: %q is neither on nor off\n", m)
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res, err := runDriver(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e:", err)
		os.Exit(1)
	}
	printTables(os.Stdout, cfg, res)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no sizes")
	}
	return out, nil
}
