// Command builtin measures informers of built-in kinds end to end against a
// real kube-apiserver (examples/builtin/kubeapiserver: k8s.io/kubernetes
// v1.37.2 with an embedded etcd, RBAC, default admission, watch cache on):
// ours (the generated informers of examples/builtin, protobuf), ours with a
// projection (PodSummary, SecretKeys), client-go's typed informer over a
// protobuf clientset (as kube-controller-manager configures it),
// controller-runtime's cache (protobuf for built-ins) and its metadata-only
// cache, and client-go's metadata informer — over realistic Pods and 16 KB
// Secrets, each contender in a fresh process, alternated, WatchList on and
// off. See hack/bench-e2e-builtin.sh. The method is bench/e2e's (the CRD
// benchmark): the same measurements, read the same way.
//
// This binary is the driver (parses flags, starts the others, writes the
// objects, prints the tables) and, with BENCHBUILTIN_ROLE=server in its
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
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

func main() {
	if done, code := runRole(); done {
		os.Exit(code)
	}
	var cfg driverConfig
	var err error
	var pods, secrets, contenders, modes string
	flag.StringVar(&pods, "pods", "50000", "comma-separated Pod counts, increasing (objects accumulate); empty skips Pods")
	flag.StringVar(&secrets, "secrets", "10000", "comma-separated Secret counts, increasing (objects accumulate); empty skips Secrets")
	flag.IntVar(&cfg.SecretBytes, "secret-bytes", 16<<10, "data bytes of one Secret (four keys)")
	flag.IntVar(&cfg.Runs, "runs", 3, "runs of every contender per size with WatchList on (medians are reported)")
	flag.IntVar(&cfg.RunsOff, "runs-off", -1, "runs of every contender per size with WatchList off; -1: as -runs")
	flag.StringVar(&contenders, "contenders", strings.Join(proto.Contenders, ","), "contenders to run, in table order")
	flag.StringVar(&modes, "watchlist", "on,off", "WatchList modes to run: on, off or both")
	flag.IntVar(&cfg.Writers, "writers", 32, "parallel writers for creating the objects")
	flag.DurationVar(&cfg.Timeout, "timeout", 10*time.Minute, "timeout of one contender run")
	flag.DurationVar(&cfg.Settle, "settle", time.Second, "pause before each run, for the server to settle")
	flag.BoolVar(&cfg.Verbose, "v", false, "print every run as JSON")
	flag.StringVar(&cfg.ContenderExe, "contender-bin", "", "the contender binary (go build ./contender); required")
	flag.StringVar(&cfg.ContenderNextExe, "contender-bin-next", "", "a second contender binary, built on the next Kubernetes minor (go build -modfile=next.mod ./contender), which runs the contenders named NAME"+proto.NextSuffix+" in -contenders")
	flag.StringVar(&cfg.ServerProfileDir, "server-cpuprofile", "", "directory for a CPU profile of the server per run: RUN.server-sync.pprof (contender start → synced)")
	flag.StringVar(&cfg.ClientProfileDir, "client-cpuprofile", "", "directory for a CPU profile of every contender per run, start → synced: RUN.client-sync.pprof, and a heap profile once synced, after a forced GC (GODEBUG=memprofilerate=1 for every allocation): RUN.client-heap.pprof")
	flag.BoolVar(&cfg.DisableCompression, "disable-compression", false, "every contender's client asks for uncompressed responses (rest.Config.DisableCompression), for measuring what gzip costs; the default is client-go's (gzip)")
	flag.StringVar(&cfg.JSON, "json", "", "write every run's measurements into this file as JSON (rewritten after each run), for hack/plotscale")
	flag.StringVar(&cfg.Seed, "seed", seedEtcd, "how Pods are written: etcd (straight into the etcd of a new server per Pod size, before its kube-apiserver starts, as kube-apiserver stores them; the server then reads them with one LIST), etcd-live (into the running server's etcd, one Pod per transaction; the watch cache takes each in: hundreds per second) or api (create, then status, through the API; hundreds per second)")
	flag.IntVar(&cfg.SeedBatch, "seed-batch", 1, "with -seed etcd: Pods per etcd transaction (those of one transaction share its revision, i.e. resourceVersion; 1 gives each Pod its own, as a real cluster does)")
	flag.StringVar(&cfg.PodShape, "pod-shape", shapeRealistic, "Pods to write: realistic (two containers and an init container, ~10 labels, a status with conditions) or small (one container, four labels, a short status)")
	flag.BoolVar(&cfg.Relist, "relist", false, "force a relist on every synced contender (through a loopback proxy that ends its watch and answers the re-watch with 410 Expired) and report its RSS before, its peak RSS during the relist (VmHWM reset through /proc/PID/clear_refs) and the time until it has relisted")
	flag.Float64Var(&cfg.RelistChange, "relist-change", 0, "with -relist: percent of the Pods changed (one label, through the API) after each contender's watch ends and before its relist, so the relist brings that many changed objects (0: none change)")
	flag.BoolVar(&cfg.Hold, "hold", false, "after the runs, keep the seeded server up (print its kubeconfig) until interrupted, for running ./contender by hand")
	flag.IntVar(&cfg.ContenderMemMaxMiB, "contender-memmax", 0, "runs every contender in a memory cgroup (under -memlimit-cgroup-root) with this hard limit in MiB and no GOMEMLIMIT, so that a contender that outgrows it is OOM-killed (a row that says so, with its last RSS) rather than the server or the machine's other processes; 0: no limit")
	var serverFlags string
	flag.StringVar(&serverFlags, "server-flags", "", "extra kube-apiserver flags for every server, space-separated (e.g. \"--watch-cache-sizes=pods#100 --max-requests-inflight=50\"); the server's own are in examples/builtin/kubeapiserver")
	flag.StringVar(&cfg.Server.GOGC, "server-gogc", "", "GOGC of the server process (kube-apiserver and its etcd) only; empty: the driver's environment's")
	flag.StringVar(&cfg.Server.GOMEMLIMIT, "server-gomemlimit", "", "GOMEMLIMIT of the server process only (e.g. 12GiB); empty: the driver's environment's")
	flag.StringVar(&cfg.ServerHeapProfileDir, "server-heapprofile", "", "directory for a heap profile of the server (after a GC) once it is ready (ready.server-heap.pprof) and after every run (RUN.server-heap.pprof); the server's memory (RSS anonymous and file-backed, Go heap) is logged then either way at ready")
	var ladder string
	flag.StringVar(&ladder, "memlimit", "", "memory-limited start instead of the runs: comma-separated hard limits in MiB, increasing; each contender runs in a memory cgroup at the limits a bisection of this ladder picks, until the smallest at which it syncs the Pods and stays up for -memlimit-hold under updates (Pods only, the first -watchlist mode; see hack/bench-memlimit.sh)")
	flag.IntVar(&cfg.MemLimit.GoMemLimitPercent, "memlimit-gomemlimit", 90, "with -memlimit: the contender's GOMEMLIMIT, percent of the hard limit")
	flag.DurationVar(&cfg.MemLimit.Hold, "memlimit-hold", time.Minute, "with -memlimit: how long a synced contender must stay up under updates")
	flag.IntVar(&cfg.MemLimit.UpdateRate, "memlimit-update-rate", 100, "with -memlimit: Pod updates per second during the hold (a merge patch of one annotation, round-robin)")
	flag.DurationVar(&cfg.MemLimit.SyncTimeout, "memlimit-sync-timeout", 5*time.Minute, "with -memlimit: a contender not synced by then fails at that limit")
	flag.StringVar(&cfg.MemLimit.CgroupRoot, "memlimit-cgroup-root", "/sys/fs/cgroup/memory", "with -memlimit: where to make the trials' memory cgroups (cgroup v1: the memory controller's mount; v2: e.g. /sys/fs/cgroup, with memory in its cgroup.subtree_control)")
	flag.StringVar(&cfg.MemLimit.BaseExe, "memlimit-base-bin", "", "with -memlimit: a second contender binary (e.g. built from another commit) that runs the contenders named NAME"+BaseSuffix+" in -contenders")
	flag.Parse()
	if cfg.MemLimit.Ladder, err = parseInts(ladder); err != nil {
		fmt.Fprintln(os.Stderr, "-memlimit:", err)
		os.Exit(2)
	}
	cfg.MemLimitOut = os.Stdout
	if !slices.Contains(seedModes, cfg.Seed) {
		fmt.Fprintf(os.Stderr, "-seed: %q is not one of %s\n", cfg.Seed, strings.Join(seedModes, ", "))
		os.Exit(2)
	}
	if !slices.Contains(podShapes, cfg.PodShape) {
		fmt.Fprintf(os.Stderr, "-pod-shape: %q is not one of %s\n", cfg.PodShape, strings.Join(podShapes, ", "))
		os.Exit(2)
	}
	if cfg.Pods, err = parseInts(pods); err != nil {
		fmt.Fprintln(os.Stderr, "-pods:", err)
		os.Exit(2)
	}
	if cfg.Secrets, err = parseInts(secrets); err != nil {
		fmt.Fprintln(os.Stderr, "-secrets:", err)
		os.Exit(2)
	}
	if len(cfg.Pods)+len(cfg.Secrets) == 0 {
		fmt.Fprintln(os.Stderr, "-pods and -secrets are both empty: nothing to measure")
		os.Exit(2)
	}
	cfg.Contenders = splitList(contenders)
	for _, c := range cfg.Contenders {
		if b, ok := strings.CutSuffix(c, BaseSuffix); ok && len(cfg.MemLimit.Ladder) > 0 {
			if cfg.MemLimit.BaseExe == "" {
				fmt.Fprintf(os.Stderr, "-contenders: %q runs from -memlimit-base-bin, which is not set\n", c)
				os.Exit(2)
			}
			c = b
		}
		base, next := proto.CutNext(c)
		if !slices.Contains(proto.Contenders, base) {
			fmt.Fprintf(os.Stderr, "-contenders: unknown contender %q (known: %s, each also as NAME%s)\n", c, strings.Join(proto.Contenders, ","), proto.NextSuffix)
			os.Exit(2)
		}
		if next && cfg.ContenderNextExe == "" {
			fmt.Fprintf(os.Stderr, "-contenders: %q runs from -contender-bin-next, which is not set\n", c)
			os.Exit(2)
		}
	}
	if len(cfg.Contenders) == 0 {
		fmt.Fprintln(os.Stderr, "-contenders: none")
		os.Exit(2)
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
	cfg.Server.Flags = strings.Fields(serverFlags)
	for _, dir := range []string{cfg.ServerProfileDir, cfg.ClientProfileDir, cfg.ServerHeapProfileDir} {
		if dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, bin := range []struct{ flag, path string }{{"-contender-bin", cfg.ContenderExe}, {"-contender-bin-next", cfg.ContenderNextExe}} {
		if bin.path != "" {
			fmt.Printf("%s: %s\n", bin.flag, clientLibraries(bin.path))
		}
	}
	start := time.Now()
	res, err := runDriver(ctx, cfg, os.Stderr)
	if len(cfg.MemLimit.Ladder) > 0 {
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-builtin:", err)
			os.Exit(1)
		}
		fmt.Printf("\nwall time %s\n", time.Since(start).Round(time.Second))
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-builtin:", err)
		printTables(os.Stdout, cfg, res)
		os.Exit(1)
	}
	printTables(os.Stdout, cfg, res)
	fmt.Printf("\nwall time %s\n", time.Since(start).Round(time.Second))
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

// parseInts parses a comma-separated list of increasing positive integers
// (empty: none).
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive integer", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%d after %d: list sizes in increasing order", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	return out, nil
}
