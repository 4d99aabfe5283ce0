package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain doubles as the child command of the measure tests: with
// BENCHCODEGEN_CHILD=1 the test binary obeys its last argument instead of
// running tests.
func TestMain(m *testing.M) {
	if os.Getenv("BENCHCODEGEN_CHILD") == "1" {
		os.Exit(child(os.Args[len(os.Args)-1]))
	}
	os.Exit(m.Run())
}

// child: "alloc=N" touches N MiB, "create=PATH" creates PATH and fails if it
// already exists, "stamp=PATH" writes the time to PATH, "fail" writes to
// stderr and exits 3.
func child(arg string) int {
	switch {
	case strings.HasPrefix(arg, "alloc="):
		n, _ := strconv.Atoi(strings.TrimPrefix(arg, "alloc="))
		b := make([]byte, n<<20)
		var sum byte
		for i := 0; i < len(b); i += 4096 { // one write per page makes it resident
			b[i] = byte(i >> 12)
			sum += b[i]
		}
		fmt.Println(sum)
		return 0
	case strings.HasPrefix(arg, "create="):
		p := strings.TrimPrefix(arg, "create=")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		f.Close()
		return 0
	case strings.HasPrefix(arg, "stamp="):
		p := strings.TrimPrefix(arg, "stamp=")
		if err := os.WriteFile(p, []byte(time.Now().String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	case strings.HasPrefix(arg, "gocache="):
		f, err := os.OpenFile(strings.TrimPrefix(arg, "gocache="), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer f.Close()
		fmt.Fprintln(f, os.Getenv("GOCACHE"))
		return 0
	case arg == "fail":
		fmt.Fprintln(os.Stderr, "boom: generator exploded")
		return 3
	}
	fmt.Fprintln(os.Stderr, "unknown child arg", arg)
	return 2
}

func TestParseSteps(t *testing.T) {
	steps, err := parseSteps([]string{"@ours", "gen", "-a", "@upstream:lister-gen", "lg", "x", "@upstream:informer-gen", "ig"})
	if err != nil {
		t.Fatal(err)
	}
	want := []step{
		{Contender: "ours", Argv: []string{"gen", "-a"}},
		{Contender: "upstream", Name: "lister-gen", Argv: []string{"lg", "x"}},
		{Contender: "upstream", Name: "informer-gen", Argv: []string{"ig"}},
	}
	if fmt.Sprint(steps) != fmt.Sprint(want) {
		t.Errorf("parseSteps = %v, want %v", steps, want)
	}
	if got := contenders(steps); fmt.Sprint(got) != "[ours upstream]" {
		t.Errorf("contenders = %v", got)
	}
	for _, bad := range [][]string{nil, {"gen"}, {"@ours"}, {"@", "gen"}, {"@ours", "gen", "@upstream"}} {
		if _, err := parseSteps(bad); err == nil {
			t.Errorf("parseSteps(%q) succeeded, want error", bad)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{9, 1, 1, 1, 9}, 1},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSummarizeAddsTimesAndTakesPeakMemory(t *testing.T) {
	steps := []step{
		{Contender: "ours", Argv: []string{"a"}},
		{Contender: "upstream", Name: "lister-gen", Argv: []string{"b"}},
		{Contender: "upstream", Name: "informer-gen", Argv: []string{"c"}},
	}
	s := func(ms int, rss float64) sample {
		return sample{Wall: time.Duration(ms) * time.Millisecond, CPU: 2 * time.Duration(ms) * time.Millisecond, RSSMB: rss}
	}
	samples := [][]sample{
		{s(100, 50), s(300, 40), s(200, 60)},
		{s(1000, 200), s(1200, 210), s(1100, 190)},
		{s(900, 300), s(800, 250), s(950, 280)},
	}
	got := map[string]float64{}
	for _, r := range summarize("crd", steps, samples) {
		if r.Case != "crd" {
			t.Errorf("row %v has the wrong case", r)
		}
		got[r.Contender+" "+r.Metric] = r.Value
	}
	want := map[string]float64{
		"ours wall_s": 0.2, "ours wall_min_s": 0.1, "ours cpu_s": 0.4, "ours rss_mb": 50,
		// per run: 1.9 s/300 MB, 2.0 s/250 MB, 2.05 s/280 MB
		"upstream wall_s": 2.0, "upstream wall_min_s": 1.9, "upstream cpu_s": 4.0, "upstream rss_mb": 280,
		"upstream:lister-gen wall_s": 1.1, "upstream:lister-gen wall_min_s": 1.0,
		"upstream:lister-gen cpu_s": 2.2, "upstream:lister-gen rss_mb": 200,
		"upstream:informer-gen wall_s": 0.9, "upstream:informer-gen wall_min_s": 0.8,
		"upstream:informer-gen cpu_s": 1.8, "upstream:informer-gen rss_mb": 280,
	}
	if len(got) != len(want) {
		t.Errorf("got %d rows %v, want %d", len(got), got, len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g < w-1e-9 || g > w+1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, g, ok, w)
		}
	}
}

func TestCountLines(t *testing.T) {
	dir := t.TempDir()
	src := `// Code generated. DO NOT EDIT.

package p

/*
block
*/
var x = 1 // trailing

func f() string {

	return ` + "`a\nb`" + `
}
`
	mustWrite(t, filepath.Join(dir, "a", "p.go"), src)
	mustWrite(t, filepath.Join(dir, "b.go"), "package p\n\n\nvar y = 2\n")
	mustWrite(t, filepath.Join(dir, "notes.txt"), "not go\n")
	// p.go: 10 non-blank lines, code on "package", "var x", "func", "return", "}".
	// b.go: 2 non-blank lines, both code.
	// Only p.go starts with the two-line header "// Code generated.../\n\n".
	header := []byte("// Code generated. DO NOT EDIT.\n\n")
	for _, tc := range []struct {
		header []byte
		want   lineCount
	}{
		{nil, lineCount{Files: 2, Lines: 12, Code: 7}},
		{header, lineCount{Files: 2, Lines: 12, Code: 7, Header: 1}},
	} {
		c, err := countLines(dir, tc.header)
		if err != nil {
			t.Fatal(err)
		}
		if c != tc.want {
			t.Errorf("countLines(header %q) = %+v, want %+v", tc.header, c, tc.want)
		}
	}
}

func TestMeasureRecordsPeakRSSAndFailures(t *testing.T) {
	t.Setenv("BENCHCODEGEN_CHILD", "1")
	dir := t.TempDir()
	results := filepath.Join(dir, "r.tsv")
	out := filepath.Join(dir, "out")
	self := os.Args[0]
	var stdout bytes.Buffer
	err := measureCmd(context.Background(), []string{
		"-case", "t", "-results", results, "-runs", "2", "-clean", out, "-stable", "upstream=" + out, "--",
		"@ours", self, "alloc=4",
		// Without -clean the second run would find the file and fail.
		"@upstream:a", self, "create=" + filepath.Join(out, "f"),
		"@upstream:b", self, "alloc=64",
	}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(stdout.String(), "run "); n != 4 {
		t.Errorf("printed %d runs, want 2 per contender:\n%s", n, stdout.String())
	}
	rows, err := readRows(results)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]float64{}
	for _, r := range rows {
		v[r.Contender+" "+r.Metric] = r.Value
	}
	if v["upstream rss_mb"] < 64 {
		t.Errorf("upstream peak RSS %v MB, want >= 64 (the child touched 64 MiB)", v["upstream rss_mb"])
	}
	if v["upstream rss_mb"] != v["upstream:b rss_mb"] {
		t.Errorf("upstream peak %v != its larger step's %v", v["upstream rss_mb"], v["upstream:b rss_mb"])
	}
	if v["ours rss_mb"] <= 0 || v["ours rss_mb"] >= v["upstream rss_mb"] {
		t.Errorf("ours peak RSS %v MB, want in (0, %v)", v["ours rss_mb"], v["upstream rss_mb"])
	}
	if v["ours wall_s"] <= 0 || v["upstream wall_s"] < v["upstream:a wall_s"] {
		t.Errorf("implausible wall times %v", v)
	}
	if d, ok := v["upstream deterministic"]; !ok || d != 1 {
		t.Errorf("upstream deterministic = %v (recorded %v), want 1: it writes the same empty file every run", d, ok)
	}
	if _, ok := v["ours deterministic"]; ok {
		t.Errorf("ours deterministic recorded without -stable ours=...")
	}

	stamped := filepath.Join(dir, "stamped")
	if err := os.Mkdir(stamped, 0o755); err != nil {
		t.Fatal(err)
	}
	results2 := filepath.Join(dir, "r2.tsv")
	err = measureCmd(context.Background(), []string{
		"-case", "t", "-results", results2, "-runs", "2", "-stable", "ours=" + stamped, "--",
		"@ours", self, "stamp=" + filepath.Join(stamped, "f"),
	}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	rows, err = readRows(results2)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rows {
		if r.Metric == "deterministic" {
			found = true
			if r.Value != 0 {
				t.Errorf("a command writing the time was found deterministic: %v", r)
			}
		}
	}
	if !found {
		t.Errorf("no deterministic row in %v", rows)
	}
	if !strings.Contains(stdout.String(), "differs from its first run") {
		t.Errorf("no mention of differing output in:\n%s", stdout.String())
	}

	err = measureCmd(context.Background(), []string{
		"-case", "t", "-results", results, "-runs", "1", "--", "@ours", self, "fail",
	}, &stdout)
	if err == nil || !strings.Contains(err.Error(), "@ours failed") || !strings.Contains(err.Error(), "boom: generator exploded") {
		t.Errorf("failing command: err = %v, want it to name the step and include its output", err)
	}
}

func TestMeasureWithoutWarmupAndWithPrefix(t *testing.T) {
	t.Setenv("BENCHCODEGEN_CHILD", "1")
	dir := t.TempDir()
	results := filepath.Join(dir, "r.tsv")
	var stdout bytes.Buffer
	// create= fails when run twice, so this passes only without a warm-up.
	err := measureCmd(context.Background(), []string{
		"-case", "t", "-results", results, "-runs", "1", "-warmup=false", "-prefix", "compile_", "--",
		"@ours", os.Args[0], "create=" + filepath.Join(dir, "out", "f"),
	}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readRows(results)
	if err != nil {
		t.Fatal(err)
	}
	var metrics []string
	for _, r := range rows {
		metrics = append(metrics, r.Metric)
	}
	if got := strings.Join(metrics, " "); got != "compile_wall_s compile_wall_min_s compile_cpu_s compile_rss_mb" {
		t.Errorf("metrics = %s", got)
	}
}

func TestMeasureColdGOCACHE(t *testing.T) {
	t.Setenv("BENCHCODEGEN_CHILD", "1")
	t.Setenv("GOCACHE", "/warm")
	dir := t.TempDir()
	log := filepath.Join(dir, "gocache.log")
	var stdout bytes.Buffer
	err := measureCmd(context.Background(), []string{
		"-case", "t", "-results", filepath.Join(dir, "r.tsv"), "-runs", "2", "-cold-gocache", "--",
		"@ours", os.Args[0], "gocache=" + log,
	}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(data))
	if len(got) != 3 || got[0] != "/warm" {
		t.Fatalf("GOCACHE per run = %q, want the inherited one for the warm-up, then two fresh ones", got)
	}
	if got[1] == got[2] || got[1] == "/warm" {
		t.Errorf("timed runs shared or inherited a GOCACHE: %q", got)
	}
	for _, c := range got[1:] {
		if !strings.Contains(c, "benchcodegen-gocache-") {
			t.Errorf("GOCACHE %q is not a fresh temp dir", c)
		}
		if _, err := os.Stat(c); !os.IsNotExist(err) {
			t.Errorf("fresh GOCACHE %s was not removed (stat: %v)", c, err)
		}
	}
}

func TestReport(t *testing.T) {
	rows := []row{
		{"crd", "ours", "wall_s", 0.4},
		{"crd", "upstream", "wall_s", 2.2},
		{"crd", "ours", "rss_mb", 120},
		{"crd", "upstream", "rss_mb", 320},
		{"crd", "upstream:lister-gen", "wall_s", 1.1},
		{"kapi", "ours", "wall_s", 2},
		{"kapi", "upstream", "wall_s", 1},
		{"kapi", "ours", "cpu_s", 3},
		{"kapi", "upstream", "cpu_s", 1},
		{"kapi", "ours", "inputs", 60},
		{"kapi", "upstream", "inputs", 60},
		{"kapi", "ours", "go_lines", 10000},
		{"kapi", "upstream", "go_lines", 40000},
		{"kapi", "ours", "compiles", 1},
		{"kapi", "upstream", "compiles", 0},
	}
	var b bytes.Buffer
	if err := report(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"== crd", "5.50x faster", ">= 5x", "2.67x less", ">= 3x",
		"== kapi", "2.00x slower", "3.00x more", "25.0% of upstream", "<= 35%", "upstream:lister-gen",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	lineWith := func(prefix string) string {
		for l := range strings.Lines(out) {
			if strings.HasPrefix(l, prefix) {
				return strings.Join(strings.Fields(l), " ")
			}
		}
		t.Fatalf("no line starting %q in\n%s", prefix, out)
		return ""
	}
	if l := lineWith("peak RSS"); !strings.HasSuffix(l, "no") {
		t.Errorf("2.67x against a 3x target must be marked no: %q", l)
	}
	if l := lineWith("wall time"); !strings.HasSuffix(l, "yes") {
		t.Errorf("5.5x against a 5x target must be marked yes: %q", l)
	}
	if l := lineWith("input packages"); l != "input packages 60 60" {
		t.Errorf("inputs line = %q, want counts without ratio", l)
	}
	if l := lineWith("output compiles"); l != "output compiles yes NO" {
		t.Errorf("compiles line = %q", l)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
