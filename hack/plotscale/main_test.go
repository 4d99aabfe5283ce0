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
