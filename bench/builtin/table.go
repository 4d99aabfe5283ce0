package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// metric is one row of a table: how to read it from a run, how to print it,
// and whether less is better (for the ratios).
type metric struct {
	name   string
	value  func(r runResult) float64
	format string
	// lessIsBetter: the ratio columns are client-go-typed/contender, so >1
	// means the contender wins.
	lessIsBetter bool
}

var metrics = []metric{
	{"start → synced (s)", func(r runResult) float64 { return r.Sync.SyncSeconds }, "%.2f", true},
	{"client CPU to sync (s)", func(r runResult) float64 { return r.Sync.CPUSeconds }, "%.2f", true},
	{"client CPU per object (µs)", func(r runResult) float64 { return r.Sync.CPUSeconds / float64(r.Size) * 1e6 }, "%.1f", true},
	{"peak RSS at sync (MB)", func(r runResult) float64 { return float64(r.Sync.MaxRSSBytes) / 1e6 }, "%.0f", true},
	{"heap after GC (MB)", func(r runResult) float64 { return float64(r.Sync.HeapAfterGC) / 1e6 }, "%.1f", true},
	{"  of which baseline, no object (MB)", func(r runResult) float64 { return float64(r.Sync.BaselineHeap) / 1e6 }, "%.1f", false},
	{"heap after GC above baseline (MB)", func(r runResult) float64 {
		return float64(int64(r.Sync.HeapAfterGC)-int64(r.Sync.BaselineHeap)) / 1e6
	}, "%.1f", true},
	{"server CPU during sync (s)", func(r runResult) float64 { return r.ServerCPUSync }, "%.2f", true},
	{"server RSS at sync (MB)", func(r runResult) float64 { return float64(r.ServerRSS) / 1e6 }, "%.0f", false},
	{"server peak RSS during sync (MB)", func(r runResult) float64 { return float64(r.ServerPeakRSS) / 1e6 }, "%.0f", true},
	{"server share of sync CPU (%)", func(r runResult) float64 {
		return 100 * r.ServerCPUSync / (r.ServerCPUSync + r.Sync.CPUSeconds)
	}, "%.0f", false},
	{"LIST requests", func(r runResult) float64 { return float64(r.Lists) }, "%.0f", false},
	{"WATCH requests", func(r runResult) float64 { return float64(r.Watches) }, "%.0f", false},
	{"response bodies to sync (MB)", func(r runResult) float64 { return float64(r.Sync.WireBytes) / 1e6 }, "%.1f", true},
	{"client GCs to sync", func(r runResult) float64 { return float64(r.Sync.GCCycles) }, "%.0f", true},
	{"client GC CPU to sync (s)", func(r runResult) float64 { return r.Sync.GCCPUSeconds }, "%.2f", true},
	{"client CPU total (s)", func(r runResult) float64 { return r.TotalCPU }, "%.2f", true},
	{"peak RSS total (MB)", func(r runResult) float64 { return float64(r.MaxRSS) / 1e6 }, "%.0f", true},
}

// relistMetrics are the rows of a run with -relist.
var relistMetrics = []metric{
	{"RSS before relist (MB)", func(r runResult) float64 { return float64(r.Relist.SteadyRSS) / 1e6 }, "%.0f", true},
	{"peak RSS during relist (MB)", func(r runResult) float64 { return float64(r.Relist.PeakRSS) / 1e6 }, "%.0f", true},
	{"relist peak ÷ RSS before", func(r runResult) float64 { return float64(r.Relist.PeakRSS) / float64(r.Relist.SteadyRSS) }, "%.2f", false},
	{"relist → synced again (s)", func(r runResult) float64 { return r.Relist.Seconds }, "%.2f", true},
	{"client CPU of relist (s)", func(r runResult) float64 { return r.Relist.CPUSeconds }, "%.2f", true},
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// printTables prints one table per resource, size and WatchList mode: the
// median of every metric per contender, then, for every lower-is-better
// metric, anchor/contender for every contender whose anchor ran (">1" means
// the contender is better), and the content types the server answered each
// contender with.
func printTables(w io.Writer, cfg driverConfig, res []runResult) {
	for _, kind := range []struct {
		resource string
		sizes    []int
	}{{proto.Pods, cfg.Pods}, {proto.Secrets, cfg.Secrets}} {
		for _, size := range kind.sizes {
			for _, wl := range cfg.WatchList {
				printTable(w, cfg, res, kind.resource, size, wl)
			}
		}
	}
}

func printTable(w io.Writer, cfg driverConfig, res []runResult, resource string, size int, wl bool) {
	mode := "off"
	if wl {
		mode = "on"
	}
	runs := map[string][]runResult{}
	var failed []string
	for _, r := range res {
		if r.Resource == resource && r.Size == size && r.WatchList == wl {
			if r.Error != "" {
				failed = append(failed, fmt.Sprintf("%s died (last peak RSS %.0f MB): %s", r.Contender, float64(r.MaxRSS)/1e6, r.Error))
				continue
			}
			runs[r.Contender] = append(runs[r.Contender], r)
		}
	}
	if len(runs)+len(failed) == 0 {
		return
	}
	defer func() {
		for _, f := range failed {
			fmt.Fprintln(w, f)
		}
	}()
	n := 0
	for _, r := range runs {
		n = max(n, len(r))
	}
	fmt.Fprintf(w, "\n%d %s, WatchList %s, medians of %d runs\n", size, resource, mode, n)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := []string{"metric"}
	header = append(header, cfg.Contenders...)
	var versus []string // the contenders with a ratio column
	for _, c := range cfg.Contenders {
		if a := anchor(c); a != "" && slices.Contains(cfg.Contenders, a) {
			versus = append(versus, c)
			header = append(header, abbrev(a)+"/"+abbrev(c))
		}
	}
	fmt.Fprintln(tw, strings.Join(header, "\t")+"\t")
	rows := metrics
	if cfg.Relist {
		rows = append(slices.Clip(metrics), relistMetrics...)
	}
	for _, m := range rows {
		row := []string{m.name}
		med := map[string]float64{}
		synced := map[string]bool{} // a contender with a run that synced
		for _, c := range cfg.Contenders {
			var vals []float64
			for _, r := range runs[c] {
				vals = append(vals, m.value(r))
			}
			med[c], synced[c] = median(vals), len(vals) > 0
			if len(vals) == 0 {
				row = append(row, "died")
				continue
			}
			row = append(row, fmt.Sprintf(m.format, med[c]))
		}
		for _, c := range versus {
			ratio := "-"
			if m.lessIsBetter && med[c] > 0 && synced[c] && synced[anchor(c)] {
				ratio = fmt.Sprintf("%.2fx", med[anchor(c)]/med[c])
			}
			row = append(row, ratio)
		}
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	var wire []string
	for _, c := range cfg.Contenders {
		var types []string
		for _, r := range runs[c] {
			if !slices.Contains(types, r.Sync.Wire) {
				types = append(types, r.Sync.Wire)
			}
		}
		wire = append(wire, c+" "+strings.Join(types, " | "))
	}
	fmt.Fprintf(w, "responses: %s\n", strings.Join(wire, "; "))
}

// anchor is the contender c's ratios are taken against: client-go-typed
// from c's own binary, so that ours@next is read against client-go on the
// same libraries, and for client-go-typed@next client-go-typed (what the
// next minor's client-go gained by itself). "" for client-go-typed.
func anchor(c string) string {
	switch base, next := proto.CutNext(c); {
	case c == proto.Typed:
		return ""
	case base == proto.Typed || !next:
		return proto.Typed
	}
	return proto.Typed + proto.NextSuffix
}

// abbrev is a contender's short name for a column header.
func abbrev(c string) string {
	if base, next := proto.CutNext(c); next {
		return abbrev(base) + proto.NextSuffix
	}
	switch c {
	case proto.Typed:
		return "typed"
	case proto.OursProjection:
		return "proj"
	case proto.OursProjectionInterned:
		return "proj-int"
	case proto.CtrlRtime:
		return "cr"
	case proto.CtrlRtimeMeta:
		return "cr-meta"
	case proto.Metadata:
		return "meta"
	}
	return c
}
