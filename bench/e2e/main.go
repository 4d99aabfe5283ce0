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
	"debug/buildinfo"
	"flag"
	"fmt"
	"maps"
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
	flag.StringVar(&contenders, "contenders", strings.Join(proto.Contenders, ","), "contenders to run; ours:MODE is a variant of ours, for measuring candidates (-h lists them)")
	flag.StringVar(&modes, "watchlist", "on,off", "WatchList modes to run: on, off or both")
	flag.IntVar(&cfg.Writers, "writers", 32, "parallel writers for creates and updates")
	flag.DurationVar(&cfg.Timeout, "timeout", 5*time.Minute, "timeout of one contender run")
	flag.DurationVar(&cfg.Settle, "settle", time.Second, "pause before each run, for the server to settle")
	flag.BoolVar(&cfg.Verbose, "v", false, "print every run as JSON")
	flag.StringVar(&cfg.ContenderExe, "contender-bin", "", "the contender binary (go build ./contender); required")
	flag.StringVar(&cfg.ContenderNextExe, "contender-bin-next", "", "a second contender binary, built on the next Kubernetes minor (go build -modfile=next.mod ./contender), which runs the contenders named NAME"+proto.NextSuffix+" in -contenders")
	flag.StringVar(&cfg.Write, "write", "patch", "how updates are written: patch (a JSON merge patch of one label) or put (an Update of the whole object at the resourceVersion of a LIST before the run)")
	flag.StringVar(&cfg.ServerProfileDir, "server-cpuprofile", "", "directory for a CPU profile of the server per run: RUN.server-sync.pprof (contender start → synced) and RUN.server-updates.pprof")
	flag.StringVar(&cfg.ClientProfileDir, "client-cpuprofile", "", "directory for a CPU profile of every contender per run, start → synced: RUN.client-sync.pprof")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "Usage of %s:\n", os.Args[0])
		flag.PrintDefaults()
		fmt.Fprintln(flag.CommandLine.Output(), "\nVariants of ours (-contenders ours:MODE):")
		for _, m := range slices.Sorted(maps.Keys(proto.OursModes)) {
			fmt.Fprintf(flag.CommandLine.Output(), "  %-10s %s\n", m, proto.OursModes[m])
		}
	}
	flag.Parse()
	var err error
	if cfg.Sizes, err = parseInts(sizes); err != nil {
		fmt.Fprintln(os.Stderr, "-sizes:", err)
		os.Exit(2)
	}
	cfg.Contenders = splitList(contenders)
	for _, c := range cfg.Contenders {
		contender, next := proto.CutNext(c)
		base, mode, _ := strings.Cut(contender, ":")
		if _, known := proto.OursModes[mode]; !slices.Contains(proto.Contenders, base) || (mode != "" && (base != proto.Ours || !known)) {
			fmt.Fprintf(os.Stderr, "-contenders: unknown contender %q (known: %s, each also as NAME%s)\n", c, strings.Join(proto.Contenders, ","), proto.NextSuffix)
			os.Exit(2)
		}
		if next && cfg.ContenderNextExe == "" {
			fmt.Fprintf(os.Stderr, "-contenders: %q runs from -contender-bin-next, which is not set\n", c)
			os.Exit(2)
		}
	}
	if cfg.Write != "patch" && cfg.Write != "put" {
		fmt.Fprintf(os.Stderr, "-write: %q is neither patch nor put\n", cfg.Write)
		os.Exit(2)
	}
	for _, dir := range []string{cfg.ServerProfileDir, cfg.ClientProfileDir} {
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
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
	for _, bin := range []struct{ flag, path string }{{"-contender-bin", cfg.ContenderExe}, {"-contender-bin-next", cfg.ContenderNextExe}} {
		if bin.path != "" {
			fmt.Printf("%s: %s\n", bin.flag, clientLibraries(bin.path))
		}
	}
	res, err := runDriver(ctx, cfg, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-e2e:", err)
		os.Exit(1)
	}
	printTables(os.Stdout, cfg, res)
}

// clientLibraries names the Go and the client libraries a contender binary
// was built with, from its build information, for the tables' header.
func clientLibraries(path string) string {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("%s (no build information: %v)", path, err)
	}
	out := []string{bi.GoVersion}
	for _, d := range bi.Deps {
		switch d.Path {
		case "k8s.io/client-go", "sigs.k8s.io/controller-runtime":
			if d.Replace != nil {
				d = d.Replace
			}
			out = append(out, d.Path+" "+d.Version)
		}
	}
	return strings.Join(out, ", ")
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
