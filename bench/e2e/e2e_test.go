package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// TestMain lets the test binary play the server role, so that the smoke
// test starts the server from it like the driver binary does.
func TestMain(m *testing.M) {
	if done, code := runRole(); done {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole harness at a tiny size: every contender once with
// WatchList on and off. runDriver checks each run — the cache holds exactly
// the objects created, the handler saw one add per object and every update —
// and fails the run otherwise; the test checks that every run is there and
// that the measurements were taken.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts an API server and eight client processes")
	}
	bin := filepath.Join(t.TempDir(), "contender")
	build := exec.Command("go", append(append([]string{"build"}, raceFlags...), "-o", bin, "./contender")...)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the contender: %v\n%s", err, out)
	}
	// A safety net for a hung run, not a speed check: race-built, at load
	// ~20 on 2 cores, the server took 14-18 s per run for the 100 updates,
	// and the twelve runs did not fit in the 3 minutes this was.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	const size, updates = 200, 100
	// Every contender, and one transport variant of ours; updates written
	// as Updates (-write put), every process profiled.
	contenders := append(slices.Clone(proto.Contenders), proto.Ours+":h1")
	profiles := t.TempDir()
	cfg := driverConfig{
		Sizes:            []int{size},
		Runs:             1,
		Updates:          updates,
		Write:            "put",
		ServerProfileDir: profiles,
		ClientProfileDir: profiles,
		Contenders:       contenders,
		WatchList:        []bool{true, false},
		Writers:          16,
		Settle:           100 * time.Millisecond,
		Timeout:          5 * time.Minute, // the driver's default; a run took 18 s here at load ~20
		ContenderExe:     bin,
	}
	var log strings.Builder
	res, err := runDriver(ctx, cfg, &log)
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if want := len(contenders) * 2; len(res) != want {
		t.Fatalf("got %d runs, want %d", len(res), want)
	}
	seen := map[string]bool{}
	for _, r := range res {
		key := r.Contender + map[bool]string{true: " watchlist", false: " list"}[r.WatchList]
		seen[key] = true
		if r.Sync.Objects != size || r.Sync.Adds != size {
			t.Errorf("%s: synced %d objects with %d adds, want %d", key, r.Sync.Objects, r.Sync.Adds, size)
		}
		if r.UpdatesCount != updates || r.UpdatesSeen <= 0 {
			t.Errorf("%s: %d updates seen after %.2fs, want %d", key, r.UpdatesCount, r.UpdatesSeen, updates)
		}
		if r.Sync.CPUSeconds <= 0 || r.Sync.MaxRSSBytes <= 0 || r.Sync.HeapAfterGC == 0 || r.TotalCPU <= 0 {
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
		// The phases come from the contender's transport: the first LIST's
		// body (WatchList off) or the WATCH's, before the last add.
		p := r.Sync.Phases
		body := p.ListLastByte
		if r.WatchList {
			body = p.WatchFirstByte
		}
		if p.Connected <= 0 || body <= 0 || p.LastAdd < body || p.LastAdd > r.Sync.SyncSeconds {
			t.Errorf("%s: phases out of order: %+v, synced at %.3fs", key, p, r.Sync.SyncSeconds)
		}
		wantProto := "HTTP/2.0"
		if strings.HasSuffix(r.Contender, ":h1") {
			wantProto = "HTTP/1.1"
		}
		if p.Proto != wantProto {
			t.Errorf("%s: responses over %q, want %q", key, p.Proto, wantProto)
		}
		for _, what := range []string{"server-sync", "server-updates", "client-sync"} {
			name := strings.ReplaceAll(fmt.Sprintf("s%d-r0-%s-%t", size, r.Contender, r.WatchList), ":", "_")
			if fi, err := os.Stat(filepath.Join(profiles, name+"."+what+".pprof")); err != nil || fi.Size() == 0 {
				t.Errorf("%s: no %s profile: %v", key, what, err)
			}
		}
	}
	if len(seen) != len(res) {
		t.Errorf("runs repeat a contender and mode: %v", seen)
	}
	var table strings.Builder
	printTables(&table, cfg, res)
	if !strings.Contains(table.String(), "typed/ours") {
		t.Errorf("table without the ratio column:\n%s", table.String())
	}
	t.Log(table.String())
}
