package main

import (
	"strings"
	"testing"

	"github.com/informer-gen/informer-gen/bench/builtin/internal/proto"
)

// TestTableAnchors: a contender from the next binary is read against
// client-go-typed from the same binary, and client-go-typed@next against
// client-go-typed.
func TestTableAnchors(t *testing.T) {
	contenders := []string{proto.Ours, proto.Typed, proto.Typed + proto.NextSuffix, proto.Ours + proto.NextSuffix}
	heap := map[string]uint64{proto.Ours: 100e6, proto.Typed: 300e6, proto.Typed + proto.NextSuffix: 200e6, proto.Ours + proto.NextSuffix: 50e6}
	var res []runResult
	for _, c := range contenders {
		r := runResult{Resource: proto.Pods, Size: 10, Contender: c, WatchList: true}
		r.Sync.HeapAfterGC = heap[c]
		res = append(res, r)
	}
	var out strings.Builder
	printTables(&out, driverConfig{Pods: []int{10}, Contenders: contenders, WatchList: []bool{true}}, res)
	var header, row []string
	for _, l := range strings.Split(out.String(), "\n") {
		l = strings.TrimSpace(l) // the columns are aligned right
		switch f := strings.Fields(l); {
		case len(f) > 0 && f[0] == "metric":
			header = f
		case strings.HasPrefix(l, "heap after GC (MB)"):
			row = strings.Fields(strings.TrimPrefix(l, "heap after GC (MB)"))
		}
	}
	want := []string{"metric", "ours", "client-go-typed", "client-go-typed@next", "ours@next", "typed/ours", "typed/typed@next", "typed@next/ours@next"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Fatalf("header %q, want %q\n%s", header, want, out.String())
	}
	if len(row) != 7 {
		t.Fatalf("heap row %q, want 7 columns\n%s", row, out.String())
	}
	if got, want := strings.Join(row[4:], " "), "3.00x 1.50x 4.00x"; got != want {
		t.Errorf("heap ratios %q, want %q\n%s", got, want, out.String())
	}
}

// TestTableDied: a contender whose run died is a column that says so and a
// line with its last peak RSS and why; the others' figures stay.
func TestTableDied(t *testing.T) {
	contenders := []string{proto.Ours, proto.Typed}
	ok := runResult{Resource: proto.Pods, Size: 10, Contender: proto.Ours, WatchList: true}
	ok.Sync.HeapAfterGC = 100e6
	died := runResult{Resource: proto.Pods, Size: 10, Contender: proto.Typed, WatchList: true, MaxRSS: 2048e6, Error: "contender exited before SYNCED: signal: killed"}
	var out strings.Builder
	printTables(&out, driverConfig{Pods: []int{10}, Contenders: contenders, WatchList: []bool{true}}, []runResult{ok, died})
	var row []string
	for _, l := range strings.Split(out.String(), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "heap after GC (MB)") {
			row = strings.Fields(strings.TrimPrefix(l, "heap after GC (MB)"))
		}
	}
	if strings.Join(row, " ") != "100.0 died -" {
		t.Errorf("heap row %q, want ours' figure, died, no ratio\n%s", row, out.String())
	}
	if !strings.Contains(out.String(), "client-go-typed died (last peak RSS 2048 MB): contender exited before SYNCED: signal: killed") {
		t.Errorf("no line for the run that died:\n%s", out.String())
	}
}
