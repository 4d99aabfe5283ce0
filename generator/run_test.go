package generator

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
)

func sampleCase(t *testing.T) goldenCase {
	t.Helper()
	for _, c := range goldenCases(t) {
		if c.name == "samplecontroller" {
			return c
		}
	}
	t.Fatal("no samplecontroller golden case")
	return goldenCase{}
}

// snapshot returns every file under dir with its content and mtime.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range listTree(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(filepath.Join(dir, f))
		out[f] = string(b) + "\x00" + st.ModTime().String()
	}
	return out
}

func TestRerunIsByteIdenticalAndTouchesNothing(t *testing.T) {
	c := sampleCase(t)
	out := t.TempDir()
	if stderr, code := runCase(t, c, out); code != 0 {
		t.Fatalf("first run failed: %s", stderr)
	}
	first := snapshot(t, out)
	if stderr, code := runCase(t, c, out); code != 0 {
		t.Fatalf("second run failed: %s", stderr)
	}
	second := snapshot(t, out)
	if len(first) == 0 || len(first) != len(second) {
		t.Fatalf("file sets differ: %d vs %d", len(first), len(second))
	}
	for f, v := range first {
		if second[f] != v {
			t.Errorf("%s changed (content or mtime) on an identical rerun", f)
		}
	}
}

func TestStaleGeneratedFilesAreRemoved(t *testing.T) {
	c := sampleCase(t)
	out := t.TempDir()
	stale := filepath.Join(out, "listers", "samplecontroller", "v1beta1", "bar.go")
	mine := filepath.Join(out, "listers", "samplecontroller", "v1alpha1", "handwritten.go")
	writeFile(t, stale, []byte(generatedBy+"\n\npackage v1beta1\n"))
	writeFile(t, mine, []byte("package v1alpha1\n\n"+generatedBy+" (only after the package clause)\n"))
	// What informer-gen wrote before its header named its module: the
	// shared upstream header, and an import of this module's runtime.
	legacy := filepath.Join(out, "informers", "samplecontroller", "v1beta1", "informers.go")
	writeFile(t, legacy, []byte(legacyGeneratedBy+"\n\npackage v1beta1\n\nimport _ \""+runtimeBase+"informer\"\n"))
	if stderr, code := runCase(t, c, out); code != 0 {
		t.Fatalf("run failed: %s", stderr)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale generated file was not removed: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(stale)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty directory of the stale file was not removed: %v", err)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale file with the legacy header was not removed: %v", err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a file that is not ours was removed: %v", err)
	}
	compareTrees(t, filepath.Join(out, "informers"), filepath.Join(c.dir, "want", "informers"))
}

// TestLayoutChangeReplacesFilesInTheSameDirectory is the upgrade from an
// older layout: the only file of a directory is stale and a new one goes
// there. Removing the stale file (and its then empty directory) before the
// new file was moved in used to fail the run half-way.
func TestLayoutChangeReplacesFilesInTheSameDirectory(t *testing.T) {
	c := sampleCase(t)
	out := t.TempDir()
	dir := filepath.Join(out, "informers", "samplecontroller", "v1alpha1")
	stale := filepath.Join(dir, "foo.go") // sorts before informers.go
	writeFile(t, stale, []byte(generatedBy+"\n\npackage v1alpha1\n"))
	if stderr, code := runCase(t, c, out); code != 0 {
		t.Fatalf("run failed: %s", stderr)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale generated file was not removed: %v", err)
	}
	compareTrees(t, filepath.Join(out, "informers"), filepath.Join(c.dir, "want", "informers"))
}

func TestVerify(t *testing.T) {
	c := sampleCase(t)
	out := t.TempDir()

	// Empty output dir: stale, and nothing is written.
	stderr, code := runCase(t, c, out, "--verify")
	if code != 1 || !strings.Contains(stderr, "informers/factory.go: would create") {
		t.Fatalf("verify on empty dir: exit %d, stderr:\n%s", code, stderr)
	}
	if files := listTree(t, out); len(files) != 0 {
		t.Fatalf("verify wrote files: %v", files)
	}

	if stderr, code := runCase(t, c, out); code != 0 {
		t.Fatalf("run failed: %s", stderr)
	}
	if stderr, code := runCase(t, c, out, "--verify"); code != 0 {
		t.Fatalf("verify on fresh output: exit %d, stderr:\n%s", code, stderr)
	}

	// Edit one file and add a stale one: both are listed, neither is fixed.
	edited := filepath.Join(out, "informers", "factory.go")
	writeFile(t, edited, []byte(generatedBy+"\n\npackage informers\n"))
	stale := filepath.Join(out, "informers", "old.go")
	writeFile(t, stale, []byte(generatedBy+"\n\npackage informers\n"))
	stderr, code = runCase(t, c, out, "--verify")
	if code != 1 {
		t.Fatalf("verify on stale output: exit %d", code)
	}
	for _, want := range []string{"informers/factory.go: would update", "informers/old.go: would remove"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("verify output lacks %q:\n%s", want, stderr)
		}
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("verify removed a file: %v", err)
	}
}

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--help"}, 0, "--go-header-file"},
		{[]string{"--output-dir", "x"}, 2, "no input packages given"},
		{[]string{"./apis/..."}, 2, "--output-dir is required"},
		{[]string{"--bogus", "./apis/..."}, 2, "flag provided but not defined"},
		{[]string{"--output-dir", "x", "--plural-exceptions", "A:B,A:C", "./apis"}, 2, `kind "A" given twice`},
	}
	for _, tt := range tests {
		var stderr bytes.Buffer
		_, err := ParseArgs(tt.args, &stderr)
		if got := ExitCode(err); got != tt.code {
			t.Errorf("%v: exit %d, want %d (err %v)", tt.args, got, tt.code, err)
		}
		if !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", tt.args, tt.want, stderr.String())
		}
	}
	var stderr bytes.Buffer
	cfg, err := ParseArgs([]string{"--output-dir", "out", "--plural-exceptions", "Chaos:Chaos", "a", "--verify", "b"}, &stderr)
	if err != nil || !cfg.Verify || cfg.OutputDir != "out" || len(cfg.Inputs) != 2 || cfg.pluralExceptions()["Chaos"] != "Chaos" || cfg.pluralExceptions()["Endpoints"] != "Endpoints" {
		t.Errorf("ParseArgs = %+v, %v", cfg, err)
	}
	if !errors.Is(flag.ErrHelp, flag.ErrHelp) {
		t.Fatal("unreachable")
	}
}

func TestRunCancelled(t *testing.T) {
	c := sampleCase(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := Run(ctx, Config{Inputs: c.args[1:], OutputDir: t.TempDir(), OutputPkg: "example.com/out", WorkDir: c.dir})
	if err == nil {
		t.Fatal("Run with a cancelled context succeeded")
	}
}

func TestDidYouMean(t *testing.T) {
	if got := didYouMean("feild", indexArgs...); got != `did you mean "field"?` {
		t.Errorf("didYouMean(feild) = %q", got)
	}
	if got := didYouMean("completelyunrelated", indexArgs...); got != "" {
		t.Errorf("didYouMean(unrelated) = %q, want none", got)
	}
}

// Generating into a directory that the input pattern also matches works, even
// when the earlier output no longer compiles (a renamed type).
func TestOutputInsideInputPatternIsNotInput(t *testing.T) {
	dir := sampleModule(t, func(gosum []byte) []byte { return gosum })
	broken := filepath.Join(dir, "input", "generated", "listers", "samplecontroller", "v1alpha1", "old.go")
	writeFile(t, broken, []byte(generatedBy+"\n\npackage v1alpha1\n\nvar _ = undefinedThing\n"))
	err := Run(context.Background(), Config{
		Inputs:    []string{"./input/..."},
		OutputDir: "input/generated",
		WorkDir:   dir,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(broken); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale broken file was not removed: %v", err)
	}
	// Naming only an output package leaves nothing to generate for: an
	// error, not a panic.
	err = Run(context.Background(), Config{
		Inputs:    []string{"./input/generated/listers/samplecontroller/v1alpha1"},
		OutputDir: "input/generated",
		WorkDir:   dir,
	})
	var diags Diagnostics
	if !errors.As(err, &diags) || !strings.Contains(err.Error(), "no input packages") {
		t.Errorf("Run over the output only: err = %v", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "input", "generated", "informers", "factory.go"))
	if err != nil || !strings.Contains(string(b), `"example.com/sample/input/generated/informers/samplecontroller"`) {
		t.Errorf("factory.go with a derived --output-pkg: %v\n%s", err, b)
	}
}

// A failing run leaves an existing output tree exactly as it was.
func TestFailedRunWritesNothing(t *testing.T) {
	c := sampleCase(t)
	out := t.TempDir()
	if stderr, code := runCase(t, c, out); code != 0 {
		t.Fatalf("run failed: %s", stderr)
	}
	before := snapshot(t, out)
	stale := filepath.Join(out, "informers", "old.go")
	writeFile(t, stale, []byte(generatedBy+"\n\npackage informers\n"))
	before["informers/old.go"] = snapshot(t, out)["informers/old.go"]
	bad := c
	bad.args = append(slices.Clone(c.args), "--go-header-file=no-such-file.txt", "--output-pkg=example.com/changed")
	stderr, code := runCase(t, bad, out)
	if code != 1 || !strings.Contains(stderr, "header file does not exist") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
	after := snapshot(t, out)
	if len(after) != len(before) {
		t.Fatalf("file set changed: %d -> %d", len(before), len(after))
	}
	for f, v := range before {
		if after[f] != v {
			t.Errorf("%s changed in a failing run", f)
		}
	}
}

// TestSkippedRootTypesAreLogged: kubebuilder root types that are not
// listed resources (no ObjectMeta, or no list type) are skipped, not errors,
// and -v=1 says so with their position.
func TestSkippedRootTypesAreLogged(t *testing.T) {
	for _, tc := range []struct {
		golden, input string
		skipped       []string
		generated     string
	}{
		{"nonresource-roots", "./input/api/...", []string{
			`type="DiscoveryRequest" pos="input/api/v1alpha1/extension_types.go:38:6"`,
			`type="BeforeUpgradeResponse" pos="input/api/hooks/v1alpha1/hooks_types.go:19:6"`,
		}, "Extension"},
		{"root-without-list", "./input/api/...", []string{
			`without a list type ToolConfigList cannot be listed and watched" type="ToolConfig" pos="input/api/v1/toolconfig_types.go:14:6"`,
		}, "Gadget"},
		{"kubebuilder-implicit", "./input/api/...", []string{
			`not registered in the package's scheme (no AddKnownTypes or SchemeBuilder.Register call names it), so not a served resource" type="WithTriggers" pos="input/api/v1/withtriggers_types.go:10:6"`,
			`+kubebuilder:unservedversion: the CRD does not serve this version" type="OldThing" pos="input/api/v1/oldthing_types.go:`,
		}, "ScaledThing"},
		{"stray-upstream-markers", "./input/apis/...", []string{
			`exclude list or watch, which an informer needs" type="ThingReview" pos="input/apis/things/v1/thing_types.go:`,
		}, "Thing"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			var c goldenCase
			for _, gc := range goldenCases(t) {
				if gc.name == tc.golden {
					c = gc
				}
			}
			if c.name == "" {
				t.Fatalf("no %s golden case", tc.golden)
			}
			var logs bytes.Buffer
			logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(1), textlogger.Output(&logs)))
			cfg := Config{Inputs: []string{tc.input}, OutputDir: t.TempDir(), OutputPkg: "example.com/out", WorkDir: c.dir}
			if err := Run(klog.NewContext(context.Background(), logger), cfg); err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.skipped {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("log lacks %s:\n%s", want, logs.String())
				}
			}
			if strings.Contains(logs.String(), `type="`+tc.generated+`"`) {
				t.Errorf("the resource %s was logged as skipped:\n%s", tc.generated, logs.String())
			}
		})
	}
}

// sampleModule makes a module example.com/sample in a temporary directory
// holding the samplecontroller golden case's input/, with this module's
// go.mod requirements and its go.sum as edit makes it.
func sampleModule(t *testing.T, edit func(gosum []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, filepath.Join(sampleCase(t).dir, "input"), filepath.Join(dir, "input"))
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile("../go.sum")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.mod"), bytes.Replace(gomod, []byte("module "+thisModule), []byte("module example.com/sample"), 1))
	writeFile(t, filepath.Join(dir, "go.sum"), edit(gosum))
	return dir
}
