package main

import (
	"strings"
	"testing"

	"github.com/informer-gen/informer-gen/bench/e2e/internal/proto"
)

// TestTableAnchors: a contender from the next binary is read against
// client-go-typed from the same binary, client-go-typed@next against
// client-go-typed, and the others against client-go-typed.
func TestTableAnchors(t *testing.T) {
	next := func(c string) string { return c + proto.NextSuffix }
	contenders := []string{proto.Ours, proto.Typed, proto.CtrlRtime, next(proto.Typed), next(proto.Ours), next(proto.CtrlRtime)}
	heap := map[string]uint64{proto.Ours: 100e6, proto.Typed: 300e6, proto.CtrlRtime: 600e6, next(proto.Typed): 200e6, next(proto.Ours): 50e6, next(proto.CtrlRtime): 400e6}
	var res []runResult
	for _, c := range contenders {
		r := runResult{Size: 10, Contender: c, WatchList: true}
		r.Sync.HeapAfterGC = heap[c]
		res = append(res, r)
	}
	var out strings.Builder
	printTables(&out, driverConfig{Sizes: []int{10}, Contenders: contenders, WatchList: []bool{true}}, res)
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
	want := []string{"metric", "ours", "client-go-typed", "controller-runtime", "client-go-typed@next", "ours@next", "controller-runtime@next",
		"typed/ours", "typed/cr", "typed/typed@next", "typed@next/ours@next", "typed@next/cr@next"}
	if strings.Join(header, " ") != strings.Join(want, " ") {
		t.Fatalf("header %q, want %q\n%s", header, want, out.String())
	}
	if len(row) != 11 {
		t.Fatalf("heap row %q, want 11 columns\n%s", row, out.String())
	}
	if got, want := strings.Join(row[6:], " "), "3.00x 0.50x 1.50x 4.00x 0.50x"; got != want {
		t.Errorf("heap ratios %q, want %q\n%s", got, want, out.String())
	}
}
