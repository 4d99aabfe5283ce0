package generator

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/informer-gen/informer-gen/internal/apiversion"

	// Linked so that apiversion.Compiled tells which k8s.io/api this test
	// was built with (the generator reads it through go list only).
	_ "k8s.io/api/core/v1"
)

// TestGenerateOnNextMinor runs on hack/test.sh's leg on the next Kubernetes
// minor (go test -modfile=hack/next.mod; elsewhere it skips). It does what
// a user on that minor does: a module of their own requiring the k8s.io
// libraries hack/next.mod requires and this runtime, with the golden cases'
// input packages in it; informer-gen generates every case that exits 0, and
// the output builds and vets against those libraries. A case whose inputs
// embed core/v1 types gets decoders of its own for them where core/v1
// gained members since runtime/wire/corev1 was generated (generator/decode's
// current): its decode.go must not call runtime/wire/corev1, whose decoders
// such a program leaves to the reflective decoder. (go test -modfile does
// not reach the go commands the generator runs, and GOFLAGS=-modfile breaks
// go/packages' version probe, hence the module of its own.)
func TestGenerateOnNextMinor(t *testing.T) {
	if apiversion.Generated("k8s.io/api") {
		t.Skip("built with go.mod's k8s.io/api: hack/test.sh's leg on the next minor runs this")
	}
	if testing.Short() {
		t.Skip("builds and vets every golden case's output")
	}
	root, err := filepath.Abs(filepath.Join(goldenRoot, "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	const mod = "example.com/next"
	scratch := t.TempDir()
	// go.mod: hack/next.mod's go, toolchain and requirements, this module
	// from this tree. go.sum: both sums, for this module's own go.mod graph.
	nextMod, err := os.ReadFile(filepath.Join(root, "hack", "next.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := regexp.MustCompile(`(?m)^module \S+$`).ReplaceAll(nextMod, []byte("module "+mod))
	gomod = append(gomod, []byte(fmt.Sprintf("\nrequire %s v0.0.0\n\nreplace %s => %s\n", thisModule, thisModule, root))...)
	writeFile(t, filepath.Join(scratch, "go.mod"), gomod)
	var sums []byte
	for _, f := range []string{"go.sum", filepath.Join("hack", "next.sum")} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, b...)
	}
	writeFile(t, filepath.Join(scratch, "go.sum"), sums)
	// The cases without their want trees, their imports of each other
	// moved to the new module path.
	golden, _ := filepath.Abs(goldenRoot)
	oldPath := []byte(thisModule + "/testdata/golden/")
	err = filepath.WalkDir(golden, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(golden, p)
		if d.IsDir() {
			if d.Name() == "want" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(scratch, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasSuffix(p, ".go") {
			b = bytes.ReplaceAll(b, oldPath, []byte(mod+"/"))
		}
		return os.WriteFile(filepath.Join(scratch, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, c := range goldenCases(t) {
		if _, err := os.Stat(filepath.Join(c.dir, "want")); err != nil {
			continue // a case that exits non-zero
		}
		if strings.Contains(strings.Join(c.args, " "), "--output-") {
			continue // sets its own output path
		}
		dir := filepath.Join(scratch, c.name)
		out := filepath.Join(dir, "out")
		copyTree(t, filepath.Join(dir, "_before"), out)
		args := []string{"--output-dir", out, "--output-pkg", mod + "/" + c.name + "/out"}
		for _, a := range c.args {
			args = append(args, strings.ReplaceAll(a, string(oldPath), mod+"/"))
		}
		var stderr bytes.Buffer
		cfg, err := ParseArgs(args, &stderr)
		if err == nil {
			cfg.WorkDir, cfg.Warnings = dir, &stderr
			err = Run(context.Background(), cfg)
		}
		if err != nil {
			t.Errorf("%s on k8s.io/api %s: %v\n%s", c.name, apiversion.Compiled("k8s.io/api"), err, stderr.String())
			continue
		}
		patterns = append(patterns, "./"+c.name+"/out/...")
		if c.name == "shared-decoders" {
			// core/v1's SeccompProfile gained oci in v0.38: the
			// planner writes its own core/v1 decoders.
			b, err := os.ReadFile(filepath.Join(out, "informers", "pods", "v1", "decode.go"))
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte("runtime/wire/corev1")) {
				t.Errorf("shared-decoders: pods/v1's decode.go calls runtime/wire/corev1, generated from another k8s.io/api")
			}
			if !bytes.Contains(b, []byte("func jsonCorev1PodSpec(")) {
				t.Errorf("shared-decoders: pods/v1's decode.go has no decoder of its own for core/v1's PodSpec")
			}
		}
	}
	if len(patterns) < 5 {
		t.Fatalf("generated %d cases, expected every successful golden case", len(patterns))
	}
	args := append([]string{"vet"}, patterns...)
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = scratch
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("%d cases generated, built and vetted on k8s.io/api %s", len(patterns), apiversion.Compiled("k8s.io/api"))
}
