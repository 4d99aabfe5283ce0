package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestToolexecRecordsEachCompileAndCompilesNamesTheLargest runs the test
// binary as fake "compile" and "asm" tools through toolexecCmd, as go build
// would, and checks what the log and the results get.
func TestToolexecRecordsEachCompileAndCompilesNamesTheLargest(t *testing.T) {
	t.Setenv("BENCHCODEGEN_CHILD", "1")
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tool := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(self, p); err != nil {
			t.Skipf("no symlinks here: %v", err)
		}
		return p
	}
	compile, asm := tool("compile"), tool("asm")
	log := filepath.Join(dir, "c.tsv")
	run := func(argv ...string) int {
		t.Helper()
		var out bytes.Buffer
		code, err := toolexecCmd(append([]string{"-log", log}, argv...), nil, &out, &out)
		if err != nil {
			t.Fatalf("toolexec %v: %v", argv, err)
		}
		return code
	}
	if code := run(compile, "-p", "example.com/gen/big", "alloc=64"); code != 0 {
		t.Fatalf("compile of big exited %d", code)
	}
	if code := run(compile, "-p", "example.com/gen/small", "alloc=4"); code != 0 {
		t.Fatalf("compile of small exited %d", code)
	}
	if code := run(compile, "-V=full", "alloc=1"); code != 0 { // the go command's version query
		t.Fatalf("compile -V=full exited %d", code)
	}
	if code := run(asm, "-p", "example.com/gen/asm", "alloc=1"); code != 0 {
		t.Fatalf("asm exited %d", code)
	}
	if code := run(compile, "-p", "example.com/gen/broken", "fail"); code != 3 {
		t.Errorf("a failing compile's exit status came back as %d, want the tool's 3", code)
	}

	recs, err := readCompileLog(log)
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, r := range recs {
		pkgs = append(pkgs, r.Package)
	}
	if got, want := strings.Join(pkgs, " "), "example.com/gen/big example.com/gen/small example.com/gen/broken"; got != want {
		t.Errorf("recorded %q, want %q (compiles only, no version query, no asm)", got, want)
	}

	results := filepath.Join(dir, "r.tsv")
	var stdout bytes.Buffer
	if err := compilesCmd([]string{"-case", "kapi", "-contender", "ours", "-results", results, "-top", "1", "-trim", "example.com/gen/", log}, &stdout); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), " big\n") || strings.Contains(stdout.String(), "small") {
		t.Errorf("printed, with -top 1, not just the largest compile (big):\n%s", stdout.String())
	}
	rows, err := readRows(results)
	if err != nil {
		t.Fatal(err)
	}
	v := map[string]float64{}
	for _, r := range rows {
		v[r.Metric] = r.Value
	}
	if v["compile_max_rss_mb"] < 64 {
		t.Errorf("compile_max_rss_mb = %v, want >= 64 (the big compile touched 64 MiB)", v["compile_max_rss_mb"])
	}
	if v["compile_packages"] != 3 {
		t.Errorf("compile_packages = %v, want 3", v["compile_packages"])
	}
}

func TestCompilesRejectsAnEmptyLog(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "c.tsv")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := compilesCmd([]string{"-case", "c", "-contender", "ours", "-results", filepath.Join(dir, "r.tsv"), log}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "records no compile") {
		t.Errorf("empty log: err = %v, want one saying it records no compile", err)
	}
}
