package migratetest

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestToolDependencyBeforeTagging checks the lines docs/migrating.md gives
// for adding informer-gen as a Go tool before the module has a version on
// the proxy (a replace to a checkout, the tool line, go mod tidy), and that
// next to code-generator's informer-gen the short name is ambiguous while
// the full path runs ours.
func TestToolDependencyBeforeTagging(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the go tool check (builds informer-gen in a fresh module)")
	}
	ctx := t.Context()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run(ctx, t, dir, "go", "mod", "init", "example.com/controller")
	// The documented lines.
	run(ctx, t, dir, "go", "mod", "edit",
		"-require=github.com/informer-gen/informer-gen@v0.0.0-00010101000000-000000000000",
		"-replace=github.com/informer-gen/informer-gen="+root,
		"-tool=github.com/informer-gen/informer-gen/cmd/informer-gen")
	run(ctx, t, dir, "go", "mod", "tidy")
	out := run(ctx, t, dir, "go", "tool", "github.com/informer-gen/informer-gen/cmd/informer-gen", "--version")
	if !strings.HasPrefix(out, "informer-gen ") {
		t.Errorf("go tool .../cmd/informer-gen --version = %q", out)
	}

	// code-generator's informer-gen beside it: the short name is ambiguous.
	cmd := command(ctx, t, dir, "go", "mod", "edit", "-require=k8s.io/code-generator@v0.37.2", "-tool=k8s.io/code-generator/cmd/informer-gen")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, b)
	}
	if b, err := command(ctx, t, dir, "go", "mod", "tidy").CombinedOutput(); err != nil {
		if isNetworkError(string(b)) {
			t.Skipf("the Go module proxy is unreachable, so k8s.io/code-generator cannot be fetched: %s", b)
		}
		t.Fatalf("go mod tidy with code-generator: %v\n%s", err, b)
	}
	b, err := command(ctx, t, dir, "go", "tool", "informer-gen", "--version").CombinedOutput()
	if err == nil || !strings.Contains(string(b), "ambiguous") {
		t.Errorf("go tool informer-gen next to code-generator's = %v, %q; want the ambiguity error", err, b)
	}
	out = run(ctx, t, dir, "go", "tool", "github.com/informer-gen/informer-gen/cmd/informer-gen", "--version")
	if !strings.HasPrefix(out, "informer-gen ") {
		t.Errorf("full path next to code-generator's: %q", out)
	}
}
