package migrate

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/ctl/controller/controller.go.want")

// The controller package is rewritten as the package doc says; the result
// is compared with the checked-in expectation, and the report names every
// change by file and line.
func TestMigrateRewritesTheKnownPatterns(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := map[string][]byte{}
	err := Run(context.Background(), Config{
		Patterns: []string{"./testdata/ctl/controller"},
		DryRun:   true,
		Stdout:   &stdout, Stderr: &stderr,
		dryOut: out,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, stderr.String())
	}
	name := filepath.Join("testdata", "ctl", "controller", "controller.go")
	got, ok := out[name]
	if !ok || len(out) != 1 {
		t.Fatalf("dry run would write %d files, want only %s", len(out), name)
	}
	want := name + ".want"
	if *update {
		if err := os.WriteFile(want, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantSrc, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, wantSrc) {
		t.Errorf("migrated %s differs from %s (rerun with -update and review the diff):\n%s", name, want, got)
	}
	for _, line := range []string{
		name + ":12: import \"github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/informers/externalversions\" -> \"github.com/informer-gen/informer-gen/generator/migrate/testdata/ctl/generated/informers\"",
		name + ":24: SharedInformerFactory -> *SharedInformerFactory",
		name + ":25: NewSharedInformerFactoryWithOptions(clientset, ...)",
		name + ":33: Informer().AddEventHandler(h) -> clientgo.AddHandler(Informer(), h, opts)",
		name + ":38: Informer().GetIndexer().Add(obj) -> Informer().Seed(obj)",
		name + ":39: Start(ctx.Done()) -> Start(ctx)",
		"dry run: 1 file(s) would change",
	} {
		if !strings.Contains(stdout.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "listers/core/v1\" ->") {
		t.Errorf("the listers import changed although --output-pkg is the same tree:\n%s", stdout.String())
	}
	// The generated stand-ins are code-generator's output: listed for removal.
	if !strings.Contains(stdout.String(), filepath.Join("testdata", "ctl", "generated", "listers", "core", "v1", "configmap.go")) {
		t.Errorf("report does not list code-generator's files to remove:\n%s", stdout.String())
	}
}

// --output-pkg moves both trees.
func TestMigrateOutputPkg(t *testing.T) {
	var stdout bytes.Buffer
	out := map[string][]byte{}
	err := Run(context.Background(), Config{
		Patterns: []string{"./testdata/ctl/controller"}, DryRun: true, OutputPkg: "example.com/ours",
		Stdout: &stdout, dryOut: out,
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(out[filepath.Join("testdata", "ctl", "controller", "controller.go")])
	for _, imp := range []string{`externalversions "example.com/ours/informers"`, `corev1informers "example.com/ours/informers/core/v1"`, `listers "example.com/ours/listers/core/v1"`} {
		if !strings.Contains(src, imp) {
			t.Errorf("migrated source lacks %s:\n%s", imp, src)
		}
	}
}

// Patterns it cannot rewrite are all reported, sorted, as file:line:col,
// with ErrRefused, and nothing is written, not even the files it could
// rewrite in the same run.
func TestMigrateRefusesWhatItCannotRewrite(t *testing.T) {
	var stdout, stderr bytes.Buffer
	out := map[string][]byte{}
	err := Run(context.Background(), Config{
		Patterns: []string{"./testdata/ctl/controller", "./testdata/ctl/refused"}, DryRun: true,
		Stdout: &stdout, Stderr: &stderr, dryOut: out,
	})
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Run = %v, want ErrRefused", err)
	}
	name := filepath.Join("testdata", "ctl", "refused", "refused.go")
	want := []string{
		name + ":15:60: WithTransform: ",
		name + ":16:10: Start takes a context.Context",
		name + ":17:12: WaitForCacheSync's result is used",
		name + ":19:9: Informer() used as a value",
		name + ":20:39: Informer().GetIndexer() other than .Add(obj)",
		name + ":21:14: NewConfigMapLister: informer-gen's standalone constructors differ",
	}
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	if len(lines) != len(want) {
		t.Fatalf("refusals:\n%s\nwant %d lines", stderr.String(), len(want))
	}
	for n, w := range want {
		if !strings.HasPrefix(lines[n], w) {
			t.Errorf("refusal %d = %q, want it to start with %q", n, lines[n], w)
		}
	}
	if len(out) != 0 || stdout.Len() != 0 {
		t.Errorf("a refused run reported or produced changes: %q, %d files", stdout.String(), len(out))
	}
}

// A package without code-generator's informers is left alone.
func TestMigrateNothingToDo(t *testing.T) {
	var stdout bytes.Buffer
	out := map[string][]byte{}
	if err := Run(context.Background(), Config{Patterns: []string{"./testdata/ctl/generated/listers/..."}, DryRun: true, Stdout: &stdout, dryOut: out}); err != nil {
		t.Fatal(err)
	}
	if len(out) != 0 || !strings.Contains(stdout.String(), "nothing to do") {
		t.Errorf("Run on a package without upstream informers: %q, %d files", stdout.String(), len(out))
	}
}

func TestParseArgs(t *testing.T) {
	var stderr bytes.Buffer
	cfg, err := ParseArgs([]string{"--dry-run", "--output-pkg", "x/y", "./..."}, nil, &stderr)
	if err != nil || !cfg.DryRun || cfg.OutputPkg != "x/y" || len(cfg.Patterns) != 1 {
		t.Errorf("ParseArgs = %+v, %v", cfg, err)
	}
	if _, err := ParseArgs(nil, nil, &stderr); err == nil {
		t.Error("ParseArgs without packages succeeded")
	}
}
