package generator

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden/*/want and want.stderr from the generator's output")

const (
	goldenRoot = "../testdata/golden"
	thisModule = "github.com/informer-gen/informer-gen"
)

// goldenCase is one directory of testdata/golden: args (one flag or input
// per line, run with the case directory as working directory), input/ (API
// packages), optionally _before/ (files the output dir holds before the run:
// earlier output, hand-written files, upstream code-generator output), and
// either want/ (the whole expected tree afterwards; want.warnings, when
// present, holds the warnings the successful run prints, and a run that
// prints any needs one) or want.stderr (the expected warnings, diagnostics
// and exit status; the output dir must then be exactly _before/).
type goldenCase struct {
	name, dir string
	args      []string
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	entries, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	for _, e := range entries {
		if !e.IsDir() {
			continue // boilerplate.go.txt, gen-deepcopy.sh
		}
		dir, _ := filepath.Abs(filepath.Join(goldenRoot, e.Name()))
		b, err := os.ReadFile(filepath.Join(dir, "args"))
		if err != nil {
			// A case without args would silently never run.
			t.Fatalf("golden case %s: %v (every directory of %s is a case and needs an args file)", e.Name(), err, goldenRoot)
		}
		var args []string
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
				args = append(args, l)
			}
		}
		if len(args) == 0 {
			t.Fatalf("golden case %s: args names no input package", e.Name())
		}
		cases = append(cases, goldenCase{e.Name(), dir, args})
	}
	if len(cases) == 0 {
		t.Fatalf("no golden cases found in %s", goldenRoot)
	}
	return cases
}

// runCase runs the generator as the command does, into outDir, and returns
// its stderr and exit status.
func runCase(t *testing.T, c goldenCase, outDir string, extra ...string) (string, int) {
	t.Helper()
	args := []string{"--output-dir", outDir}
	if !slices.ContainsFunc(c.args, func(a string) bool { return strings.HasPrefix(a, "--output-") }) {
		// outDir is outside any module: say which import path its
		// content will be compiled under (the want tree's). A case that
		// sets its own --output-dir or --output-pkg tests those.
		args = append(args, "--output-pkg", thisModule+"/testdata/golden/"+c.name+"/want")
	}
	args = append(args, extra...)
	args = append(args, c.args...)
	var stderr bytes.Buffer
	cfg, err := ParseArgs(args, &stderr)
	if err == nil {
		cfg.WorkDir = c.dir
		cfg.Warnings = &stderr
		if err = Run(context.Background(), cfg); err != nil {
			fmt.Fprintln(&stderr, err)
		}
	}
	return strings.ReplaceAll(stderr.String(), outDir, "$OUT"), ExitCode(err)
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := t.TempDir()
			before := filepath.Join(c.dir, "_before") // "_": not a package of this module
			copyTree(t, before, out)
			stderr, code := runCase(t, c, out)
			wantStderr := filepath.Join(c.dir, "want.stderr")
			wantWarnings := filepath.Join(c.dir, "want.warnings")
			wantDir := filepath.Join(c.dir, "want")
			if code != 0 {
				got := stderr + fmt.Sprintf("exit status %d\n", code)
				if *update {
					os.RemoveAll(wantDir)
					os.Remove(wantWarnings)
					writeFile(t, wantStderr, []byte(got))
					return
				}
				want, err := os.ReadFile(wantStderr)
				if err != nil {
					t.Fatalf("generator failed but there is no want.stderr:\n%s", got)
				}
				if got != string(want) {
					t.Errorf("stderr mismatch\n--- got\n%s--- want\n%s", got, want)
				}
				if _, err := os.Stat(before); err == nil {
					compareTrees(t, out, before)
				} else if files := listTree(t, out); len(files) > 0 {
					t.Errorf("a failing run wrote files: %v", files)
				}
				return
			}
			if *update {
				os.Remove(wantStderr)
				os.Remove(wantWarnings)
				if stderr != "" {
					writeFile(t, wantWarnings, []byte(stderr))
				}
				os.RemoveAll(wantDir)
				copyTree(t, out, wantDir)
				return
			}
			if _, err := os.Stat(wantStderr); err == nil {
				t.Fatalf("generator succeeded, want.stderr expects failure; stderr:\n%s", stderr)
			}
			if want, _ := os.ReadFile(wantWarnings); stderr != string(want) {
				t.Errorf("warnings mismatch\n--- got\n%s--- want (want.warnings)\n%s", stderr, want)
			}
			compareTrees(t, out, wantDir)
		})
	}
}

func listTree(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !e.IsDir() {
			r, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(r))
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// compareTrees fails on every missing, extra or different file.
func compareTrees(t *testing.T, got, want string) {
	t.Helper()
	gotFiles, wantFiles := listTree(t, got), listTree(t, want)
	for _, f := range wantFiles {
		if !slices.Contains(gotFiles, f) {
			t.Errorf("missing file %s", f)
		}
	}
	for _, f := range gotFiles {
		if !slices.Contains(wantFiles, f) {
			t.Errorf("extra file %s", f)
			continue
		}
		g, _ := os.ReadFile(filepath.Join(got, f))
		w, _ := os.ReadFile(filepath.Join(want, f))
		if !bytes.Equal(g, w) {
			t.Errorf("%s differs (run go test ./generator -run Golden -update):\n%s", f, firstDiff(string(g), string(w)))
		}
	}
}

func firstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(gl), len(wl)) {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, g, w)
		}
	}
	return ""
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	for _, f := range listTree(t, from) {
		b, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(to, f), b)
	}
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenWantTreesBuildAndVet is the property behind every case that
// exits 0: its output compiles and vets. TestGolden proves the output equals
// want/; this builds and vets every want/ tree with the go command, so a
// generator change that writes code which does not compile fails here, even
// when want/ was just rewritten by -update.
func TestGoldenWantTreesBuildAndVet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go vet over every want tree")
	}
	var patterns []string
	for _, c := range goldenCases(t) {
		if _, err := os.Stat(filepath.Join(c.dir, "want")); err == nil {
			patterns = append(patterns, "./testdata/golden/"+c.name+"/want/...")
		}
	}
	if len(patterns) < 5 {
		t.Fatalf("found %d want trees, expected every successful golden case", len(patterns))
	}
	args := append(append([]string{"vet"}, raceFlags...), patterns...)
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = filepath.Join(goldenRoot, "..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
