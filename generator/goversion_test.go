package generator

import (
	"context"
	"errors"
	"go/version"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// newerToolchain is a Go release newer than the one the tests are built
// with, whose language adds what Go 1.26's type checker refuses: a promoted
// field set in a composite literal. hack/test.sh's second leg runs on it, so
// CI fetches it either way.
const newerToolchain = "go1.27.3"

// TestNewerGoLanguage: a module whose go line names a newer Go than the one
// informer-gen was built with, and that uses that Go's language (here, a
// promoted field set in a composite literal, Go 1.27), is reported as such,
// once, at its go line, with what to run instead; go list is the newer Go's
// (GOTOOLCHAIN), as when a user runs a binary built with an older Go. Before,
// the type errors were reported as the package not compiling against the
// client-go the module selects.
func TestNewerGoLanguage(t *testing.T) {
	if version.Compare(version.Lang(runtime.Version()), version.Lang(newerToolchain)) >= 0 {
		t.Skipf("built with %s, whose type checker knows %s's language", runtime.Version(), newerToolchain)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOTOOLCHAIN", newerToolchain) // fetched through the module proxy once
	app := sampleModule(t, func(b []byte) []byte { return b })
	gomod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLineRe := regexp.MustCompile(`(?m)^go \S+$`)
	writeFile(t, filepath.Join(app, "go.mod"), goLineRe.ReplaceAll(gomod, []byte("go 1.27.0")))
	writeFile(t, filepath.Join(app, "input", "apis", "samplecontroller", "v1alpha1", "defaults.go"), []byte(
		"package v1alpha1\n\n// DefaultFoo sets a field promoted from ObjectMeta in the literal, as Go 1.27 allows.\n"+
			"var DefaultFoo = Foo{Name: \"default\"}\n"))
	cfg := Config{Inputs: []string{"./input/apis/..."}, OutputDir: filepath.Join(app, "generated"), WorkDir: app}
	err = Run(context.Background(), cfg)
	var diags Diagnostics
	if !errors.As(err, &diags) || len(diags) != 1 {
		t.Fatalf("Run = %v, want one diagnostic", err)
	}
	d := diags[0]
	t.Log(d)
	wantPos := filepath.Join(app, "go.mod")
	if !strings.HasSuffix(d.Pos.Filename, "go.mod") || d.Pos.Line == 0 {
		t.Errorf("diagnostic at %v, want %s's go line", d.Pos, wantPos)
	}
	for _, want := range []string{"example.com/sample needs Go 1.27", "built with " + runtime.Version(), "Go 1.27 or later"} {
		if !strings.Contains(d.String(), want) {
			t.Errorf("diagnostic %q lacks %q", d, want)
		}
	}
	if strings.Contains(d.String(), "client-go") {
		t.Errorf("diagnostic %q blames client-go", d)
	}
	if _, err := os.Stat(cfg.OutputDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output written: %v", err)
	}
}
