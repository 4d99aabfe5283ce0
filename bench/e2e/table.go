package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// metric is one row of a table: how to read it from a run, how to print it,
// and whether less is better (for the ratio).
type metric struct {
	name   string
	value  func(r runResult) float64
	format string
	// lessIsBetter: the ratio columns are anchor/contender (client-go-typed
	// over the contender), so >1 means the contender wins either way.
	lessIsBetter bool
}

var metrics = []metric{
	{"start → synced (s)", func(r runResult) float64 { return r.Sync.SyncSeconds }, "%.2f", true},
	{"client CPU to sync (s)", func(r runResult) float64 { return r.Sync.CPUSeconds }, "%.2f", true},
	{"client CPU per object (µs)", func(r runResult) float64 { return r.Sync.CPUSeconds / float64(r.Size) * 1e6 }, "%.1f", true},
	{"peak RSS at sync (MB)", func(r runResult) float64 { return float64(r.Sync.MaxRSSBytes) / 1e6 }, "%.0f", true},
	{"heap after GC (MB)", func(r runResult) float64 { return float64(r.Sync.HeapAfterGC) / 1e6 }, "%.1f", true},
	{"server CPU during sync (s)", func(r runResult) float64 { return r.ServerCPUSync }, "%.2f", true},
	{"server share of sync CPU (%)", func(r runResult) float64 {
		return 100 * r.ServerCPUSync / (r.ServerCPUSync + r.Sync.CPUSeconds)
	}, "%.0f", false},
	{"LIST requests", func(r runResult) float64 { return float64(r.Lists) }, "%.0f", true},
	{"WATCH requests", func(r runResult) float64 { return float64(r.Watches) }, "%.0f", true},
	{"updates: all seen (s)", func(r runResult) float64 { return r.UpdatesSeen }, "%.2f", true},
	{"updates: all written (s)", func(r runResult) float64 { return r.UpdatesWritten }, "%.2f", true},
	{"updates: seen after last write (ms)", func(r runResult) float64 { return 1000 * (r.UpdatesSeen - r.UpdatesWritten) }, "%.0f", true},
	{"client CPU per update (µs)", func(r runResult) float64 {
		if r.UpdatesCount == 0 {
			return 0
		}
		return r.UpdatesClientCPU / float64(r.UpdatesCount) * 1e6
	}, "%.0f", true},
	{"server CPU during updates (s)", func(r runResult) float64 { return r.ServerCPUUpdates }, "%.2f", true},
	{"phase: exec → main (ms)", func(r runResult) float64 { return 1000 * r.Sync.Phases.Exec }, "%.0f", true},
	{"phase: first request (ms)", func(r runResult) float64 { return 1000 * r.Sync.Phases.FirstRequest }, "%.0f", true},
	{"phase: connected (ms)", func(r runResult) float64 { return 1000 * r.Sync.Phases.Connected }, "%.0f", true},
	{"phase: LIST request (s)", func(r runResult) float64 { return r.Sync.Phases.ListRequest }, "%.2f", true},
	{"phase: LIST headers (s)", func(r runResult) float64 { return r.Sync.Phases.ListHeaders }, "%.2f", true},
	{"phase: LIST first byte (s)", func(r runResult) float64 { return r.Sync.Phases.ListFirstByte }, "%.2f", true},
	{"phase: LIST last byte (s)", func(r runResult) float64 { return r.Sync.Phases.ListLastByte }, "%.2f", true},
	{"phase: WATCH request (s)", func(r runResult) float64 { return r.Sync.Phases.WatchRequest }, "%.2f", true},
	{"phase: WATCH first byte (s)", func(r runResult) float64 { return r.Sync.Phases.WatchFirstByte }, "%.2f", true},
	{"phase: WATCH byte before sync (s)", func(r runResult) float64 { return r.Sync.Phases.WatchLastByte }, "%.2f", true},
	{"phase: last add (s)", func(r runResult) float64 { return r.Sync.Phases.LastAdd }, "%.2f", true},
	{"LIST body read (MB)", func(r runResult) float64 { return float64(r.Sync.Phases.ListBytes) / 1e6 }, "%.1f", true},
	{"client GCs to sync", func(r runResult) float64 { return float64(r.Sync.Phases.GCCycles) }, "%.0f", true},
	{"client GC CPU to sync (s)", func(r runResult) float64 { return r.Sync.Phases.GCCPUSeconds }, "%.2f", true},
	{"client CPU total (s)", func(r runResult) float64 { return r.TotalCPU }, "%.2f", true},
	{"peak RSS total (MB)", func(r runResult) float64 { return float64(r.MaxRSS) / 1e6 }, "%.0f", true},
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

// printTables prints one table per size and WatchList mode: the median of
// every metric per contender, then, for every lower-is-better metric,
// anchor/contender for every contender whose anchor ran (">1" means the
// contender is better; see anchor).
func printTables(w io.Writer, cfg driverConfig, res []runResult) {
	for _, size := range cfg.Sizes {
		for _, wl := range cfg.WatchList {
			mode := "off"
			if wl {
				mode = "on"
			}
			runs := 0
			for _, r := range res {
				if r.Size == size && r.WatchList == wl && r.Contender == cfg.Contenders[0] {
					runs++
				}
			}
			fmt.Fprintf(w, "\n%d Foos, WatchList %s, medians of %d runs\n", size, mode, runs)
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
			for _, m := range metrics {
				row := []string{m.name}
				med := map[string]float64{}
				for _, c := range cfg.Contenders {
					var vals []float64
					for _, r := range res {
						if r.Size == size && r.WatchList == wl && r.Contender == c {
							vals = append(vals, m.value(r))
						}
					}
					med[c] = median(vals)
					row = append(row, fmt.Sprintf(m.format, med[c]))
				}
				for _, c := range versus {
					ratio := "-"
					if m.lessIsBetter && med[c] > 0 {
						ratio = fmt.Sprintf("%.2fx", med[anchor(c)]/med[c])
					}
					row = append(row, ratio)
				}
				fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
			}
			tw.Flush()
		}
	}
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
	case proto.Dynamic:
		return "dyn"
	case proto.CtrlRtime:
		return "cr"
	}
	return c
}
