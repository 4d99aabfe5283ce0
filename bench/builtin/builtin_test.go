package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// TestMain lets the test binary play the server role, so that the smoke
// test starts the server from it like the driver binary does.
func TestMain(m *testing.M) {
	if done, code := runRole(); done {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole harness at a tiny size: every contender once per
// kind with WatchList on and off. runDriver checks each run — the cache holds
// exactly the objects created, the handler saw one add per object — and
// fails the run otherwise; the test checks that every run is there, that the
// measurements were taken, the requests each mode makes, and the content
// type each contender was answered with.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts kube-apiserver and 28 client processes")
	}
	bin := filepath.Join(t.TempDir(), "contender")
	build := exec.Command("go", append(append([]string{"build"}, raceFlags...), "-o", bin, "./contender")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the contender: %v\n%s", err, out)
	}
	// Waits as long as a correct run may take on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const pods, secrets = 200, 50
	profiles := t.TempDir()
	cfg := driverConfig{
		Pods:             []int{pods},
		Secrets:          []int{secrets},
		SecretBytes:      16 << 10,
		Runs:             1,
		RunsOff:          -1,
		Contenders:       proto.Contenders,
		WatchList:        []bool{true, false},
		Writers:          16,
		Settle:           100 * time.Millisecond,
		Timeout:          5 * time.Minute,
		ContenderExe:     bin,
		ServerProfileDir: profiles,
		ClientProfileDir: profiles,
	}
	var log strings.Builder
	res, err := runDriver(ctx, cfg, &log)
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(proto.Contenders) * 2 * 2; len(res) != want {
		t.Fatalf("got %d runs, want %d", len(res), want)
	}
	seen := map[string]bool{}
	for _, r := range res {
		key := r.Resource + " " + r.Contender + map[bool]string{true: " watchlist", false: " list"}[r.WatchList]
		seen[key] = true
		size := map[string]int{proto.Pods: pods, proto.Secrets: secrets}[r.Resource]
		if r.Size != size || r.Sync.Objects != size || r.Sync.Adds != int64(size) {
			t.Errorf("%s: synced %d objects with %d adds, want %d", key, r.Sync.Objects, r.Sync.Adds, size)
		}
		if r.Sync.CPUSeconds <= 0 || r.Sync.MaxRSSBytes <= 0 || r.Sync.HeapAfterGC == 0 || r.Sync.BaselineHeap == 0 || r.Sync.BaselineHeap >= r.Sync.HeapAfterGC || r.TotalCPU <= 0 || r.MaxRSS <= 0 || r.Sync.WireBytes <= 0 {
			t.Errorf("%s: missing client measurements: %+v", key, r)
		}
		// Every contender opens one watch; with WatchList off it lists
		// first, with it on it does not list at all.
		if r.Watches < 1 {
			t.Errorf("%s: %d WATCH requests counted, want at least 1", key, r.Watches)
		}
		if r.WatchList && r.Lists != 0 {
			t.Errorf("%s: %d LIST requests with WatchList on, want 0", key, r.Lists)
		}
		if !r.WatchList && r.Lists < 1 {
			t.Errorf("%s: %d LIST requests with WatchList off, want at least 1", key, r.Lists)
		}
		// Everyone but a projection reads protobuf (a projection asks for
		// what its generated Type asks for: JSON, or protobuf where the
		// generator writes a protobuf decoder for it).
		projection := r.Contender == proto.OursProjection || r.Contender == proto.OursProjectionInterned
		if !projection && r.Sync.Wire != "application/vnd.kubernetes.protobuf" {
			t.Errorf("%s: answered with %q, want protobuf only", key, r.Sync.Wire)
		}
		if projection && r.Sync.Wire != "application/vnd.kubernetes.protobuf" && r.Sync.Wire != "application/json" {
			t.Errorf("%s: answered with %q, want one content type, protobuf or JSON", key, r.Sync.Wire)
		}
		name := r.Resource + "200-r0-" + r.Contender
		if r.Resource == proto.Secrets {
			name = r.Resource + "50-r0-" + r.Contender
		}
		for _, what := range []string{"server-sync", "client-sync", "client-heap"} {
			p := filepath.Join(profiles, name+"-"+map[bool]string{true: "true", false: "false"}[r.WatchList]+"."+what+".pprof")
			if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
				t.Errorf("%s: no %s profile: %v", key, what, err)
			}
		}
	}
	if len(seen) != len(res) {
		t.Errorf("runs repeat a contender and mode: %v", seen)
	}
	var table strings.Builder
	printTables(&table, cfg, res)
	for _, want := range []string{"200 pods, WatchList on", "50 secrets, WatchList off", "typed/ours", "typed/proj", "responses: ours application/vnd.kubernetes.protobuf"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table without %q:\n%s", want, table.String())
		}
	}
	t.Log(table.String())
}
