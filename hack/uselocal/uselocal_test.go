package uselocal

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// program imports the runtime, the generated-code contract (factory) and
// both integrations, and uses each.
const program = `package main

import (
	"fmt"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/informer-gen/informer-gen/runtime/factory"
	crinformers "github.com/informer-gen/informer-gen/integrations/controllerruntime"
	informermetrics "github.com/informer-gen/informer-gen/integrations/prometheus"
)

func main() {
	f := factory.New(&rest.Config{Host: "https://127.0.0.1:1"}, factory.Options{})
	_ = crinformers.NewRunnable(f, crinformers.Options{})
	_, err := informermetrics.NewWorkqueueMetrics(metrics.Registry)
	fmt.Println("informers:", len(f.Informers()), "metrics:", err == nil, "logger:", ctrl.Log.GetSink() != nil)
}
`

// TestUseLocal runs hack/use-local.sh on a fresh module outside the
// repository, as a user would, then adds a program that imports the runtime
// and both integrations: go mod tidy resolves them through the script's
// replace lines, the program builds and runs, and the generator runs as a
// Go tool by its full path.
func TestUseLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping (builds controller-runtime and Prometheus in a fresh module)")
	}
	ctx := t.Context()
	if dl, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-30*time.Second))
		defer cancel()
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run(ctx, t, dir, "go", "mod", "init", "example.com/operator")

	out := run(ctx, t, dir, filepath.Join(root, "hack", "use-local.sh"), dir)
	if !strings.Contains(out, "example.com/operator now uses informer-gen from "+root) {
		t.Errorf("use-local.sh said %q", out)
	}
	// The next step, which go build otherwise asks for without naming it
	// ("updates to go.mod needed", "replaced but not required").
	if !strings.Contains(out, "run go mod tidy again after generating code and after importing an integration") {
		t.Errorf("use-local.sh does not say to run go mod tidy after generating: %q", out)
	}
	var mod struct {
		Replace []struct{ Old, New struct{ Path string } }
		Tool    []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(run(ctx, t, dir, "go", "mod", "edit", "-json")), &mod); err != nil {
		t.Fatal(err)
	}
	replaced := map[string]string{}
	for _, r := range mod.Replace {
		replaced[r.Old.Path] = r.New.Path
	}
	for _, m := range []string{"", "/integrations/controllerruntime", "/integrations/prometheus"} {
		if got := replaced["github.com/informer-gen/informer-gen"+m]; got != root+m {
			t.Errorf("go.mod replaces github.com/informer-gen/informer-gen%s with %q, want %q", m, got, root+m)
		}
	}
	if len(mod.Tool) != 1 || mod.Tool[0].Path != "github.com/informer-gen/informer-gen/cmd/informer-gen" {
		t.Errorf("go.mod tools %v, want informer-gen's", mod.Tool)
	}

	// The generator, by its full path.
	if out := run(ctx, t, dir, "go", "tool", "github.com/informer-gen/informer-gen/cmd/informer-gen", "--version"); !strings.HasPrefix(out, "informer-gen ") {
		t.Errorf("go tool .../cmd/informer-gen --version = %q", out)
	}

	// Code importing the runtime and both integrations, written after the
	// script ran: go mod tidy finds them through the replace lines.
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644); err != nil {
		t.Fatal(err)
	}
	run(ctx, t, dir, "go", "mod", "tidy")
	// -race: the race-instrumented packages are those the integrations'
	// own tests compile, so the build cache already holds them.
	bin := filepath.Join(dir, "operator")
	run(ctx, t, dir, "go", "build", "-race", "-o", bin, ".")
	if out := run(ctx, t, dir, bin); !strings.Contains(out, "metrics: true") {
		t.Errorf("the program printed %q", out)
	}

	// Running it again changes nothing.
	before, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	run(ctx, t, dir, filepath.Join(root, "hack", "use-local.sh"), dir)
	after, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("a second run changed go.mod:\n%s\nto\n%s", before, after)
	}
}

// A directory without go.mod is refused, and nothing is written.
func TestUseLocalNeedsAModule(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), filepath.Join(root, "hack", "use-local.sh"), dir)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "has no go.mod") {
		t.Errorf("use-local.sh on a directory without go.mod: %v, %q; want it refused", err, out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("use-local.sh wrote %v into a directory without go.mod", entries)
	}
}

// run runs the command in dir (GOWORK off, as in a user's module) and
// returns its combined output, failing the test with it if it fails.
func run(ctx context.Context, t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	var buf bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.Stdout, cmd.Stderr = &buf, &buf
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %.1fs", filepath.Base(name), strings.Join(args, " "), time.Since(start).Seconds())
	if err != nil && ctx.Err() != nil {
		t.Fatalf("%s %s: stopped at the test's deadline (%v): with an empty GOCACHE, compiling controller-runtime takes minutes; give go test a longer -timeout\n%s", name, strings.Join(args, " "), ctx.Err(), buf.String())
	}
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, buf.String())
	}
	return buf.String()
}
