package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"strings"
	"testing"
)

// TestDrawCheckedInRuns draws the runs docs/performance.md's plot is drawn
// from: the SVG parses as XML, holds one line per contender, mode and
// shape that has two sizes or more, and one marker per size that synced.
func TestDrawCheckedInRuns(t *testing.T) {
	var all []series
	markers := 0
	for _, path := range []string{"../../docs/images/scale-realistic.json", "../../docs/images/scale-small.json"} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var r report
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		s := collect(r)
		if len(s) == 0 {
			t.Fatalf("%s: no series", path)
		}
		for _, x := range s {
			for _, p := range x.points {
				if !p.died {
					markers++
				}
			}
		}
		all = append(all, s...)
	}
	var out bytes.Buffer
	draw(&out, "test", all)
	dec := xml.NewDecoder(bytes.NewReader(out.Bytes()))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the SVG is not well-formed: %v", err)
		}
	}
	lines := 0
	for _, s := range all {
		if len(s.points) > 1 {
			lines++
		}
	}
	svg := out.String()
	if got := strings.Count(svg, "<polyline"); got != 3*lines {
		t.Errorf("%d lines drawn, want %d (three panels of %d series)", got, 3*lines, lines)
	}
	if got := strings.Count(svg, "<circle") + strings.Count(svg, `width="7" height="7"`); got != 3*markers+2 {
		t.Errorf("%d markers drawn, want %d (three panels of %d, and the legend's two)", got, 3*markers+2, markers)
	}
	for _, c := range []string{"ours", "ours-projection", "client-go-typed", "client-go-metadata"} {
		if !strings.Contains(svg, ">"+c+"<") {
			t.Errorf("the legend does not name %s", c)
		}
	}
}

// TestDiedInRelistIsAPoint: a run that synced and died afterwards (in its
// relist) is drawn from its sync's figures; one that died before syncing
// is a cross at its last peak RSS.
func TestDiedInRelistIsAPoint(t *testing.T) {
	var r report
	r.PodShape = "small"
	synced := run{Resource: "pods", Size: 1000, Contender: "a", WatchList: true, MaxRSS: 900e6, Error: "OOM-killed during the relist"}
	synced.Sync.Objects, synced.Sync.CPUSeconds, synced.Sync.MaxRSSBytes, synced.Sync.HeapAfterGC = 1000, 0.05, 300e6, 200e6
	killed := run{Resource: "pods", Size: 1000, Contender: "b", WatchList: true, MaxRSS: 800e6, Error: "OOM-killed before SYNCED"}
	r.Runs = []run{synced, killed}
	got := map[string]point{}
	for _, s := range collect(r) {
		if len(s.points) != 1 {
			t.Fatalf("%s: %d points, want 1", s.contender, len(s.points))
		}
		got[s.contender] = s.points[0]
	}
	if p := got["a"]; p.died || p.peakMB != 300 || p.heapMB != 200 || p.cpuPerObjUS != 50 {
		t.Errorf("the run that died in its relist: %+v, want its sync's figures (peak 300 MB, heap 200 MB, 50 µs)", p)
	}
	if p := got["b"]; !p.died || p.lastPeakMB != 800 {
		t.Errorf("the run that died before syncing: %+v, want died at 800 MB", p)
	}
}
