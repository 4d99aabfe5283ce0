package generator

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

func caseDir(t *testing.T, name string) string {
	t.Helper()
	for _, c := range goldenCases(t) {
		if c.name == name {
			return c.dir
		}
	}
	t.Fatalf("no golden case %s", name)
	return ""
}

// buildTagsConfig generates the bad-build-tags input with --tags apis.
func buildTagsConfig(t *testing.T) Config {
	t.Helper()
	cfg, err := ParseArgs([]string{"--tags", "apis", "--output-dir", t.TempDir(), "--output-pkg", "example.com/out", "./input/apis/..."}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	cfg.WorkDir = caseDir(t, "bad-build-tags")
	return cfg
}

// TestTagsIncludeFilesBehindBuildConstraints: the bad-build-tags input
// generates with --tags, and naming its directory without the tag says
// which tag is missing.
func TestTagsIncludeFilesBehindBuildConstraints(t *testing.T) {
	cfg := buildTagsConfig(t)
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("with --tags apis: %v", err)
	}
	cfg.Tags, cfg.Inputs = nil, []string{"./input/apis/bad/v1"}
	err := Run(context.Background(), cfg)
	want := "input/apis/bad/v1: build constraints exclude all Go files (files are excluded by //go:build apis in input/apis/bad/v1/doc.go; pass --tags apis to include them)"
	if err == nil || err.Error() != want {
		t.Errorf("without --tags:\n got: %v\nwant: %s", err, want)
	}
}

// TestMissingGoSumEntry: a module whose go.sum lacks an entry gets one
// message naming the module and the command that fixes it, not go/packages'
// `invalid package name: ""`; and not also "package apis has no selected
// types" for a types-less parent package beside it (gateway-api's layout),
// which is only worth saying when nothing else is wrong.
func TestMissingGoSumEntry(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	api := filepath.Join(dir, "apis", "demo", "v1")
	if err := os.MkdirAll(api, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n\nrequire k8s.io/apimachinery v0.37.2\n"))
	writeFile(t, filepath.Join(dir, "apis", "doc.go"), []byte("// Package apis holds the API versions.\npackage apis\n"))
	writeFile(t, filepath.Join(api, "types.go"), []byte("package v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\n// +genclient\ntype Foo struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata\"`\n}\n"))
	cfg := Config{Inputs: []string{"./apis/..."}, OutputDir: filepath.Join(dir, "generated"), WorkDir: dir}
	err := Run(context.Background(), cfg)
	if err == nil {
		t.Fatal("Run succeeded without go.sum")
	}
	msg := err.Error()
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "missing go.sum entry") ||
		!strings.Contains(msg, "apis/demo/v1/types.go:3:8") || !strings.Contains(msg, "(run go get example.com/demo/apis/demo/v1)") ||
		strings.Contains(msg, "invalid package name") {
		t.Errorf("got:\n%s\nwant one line at the import with a go get hint", msg)
	}
}

// TestPatternBelowIgnoredDirectory: a ... pattern below a directory the go
// command ignores says so instead of only "matches no Go packages".
func TestPatternBelowIgnoredDirectory(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n"))
	writeFile(t, filepath.Join(dir, "input", "_scratch", "v1", "doc.go"), []byte("package v1\n"))
	cfg := Config{Inputs: []string{"./input/_scratch/..."}, OutputDir: t.TempDir(), OutputPkg: "example.com/out", WorkDir: dir}
	err := Run(context.Background(), cfg)
	want := "./input/_scratch/...: pattern matches no Go packages (the go command ignores testdata directories and directories whose names start with _ or .)"
	if err == nil || err.Error() != want {
		t.Errorf("got: %v\nwant: %s", err, want)
	}
}

// TestNewerGoNeeded: a module whose go.mod needs a newer Go than the go
// command gets one diagnostic naming both versions and GOTOOLCHAIN, not the
// go command's raw error.
func TestNewerGoNeeded(t *testing.T) {
	t.Setenv("GOTOOLCHAIN", "local")
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":        "module example.com/newer\n\ngo 1.999.0\n",
		"api/v1/doc.go": "// +groupName=example.com\npackage v1\n",
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	err := Run(context.Background(), Config{Inputs: []string{"./api/..."}, OutputDir: filepath.Join(dir, "out"), WorkDir: dir})
	var diags Diagnostics
	if !errors.As(err, &diags) || len(diags) != 1 {
		t.Fatalf("Run = %v, want one diagnostic", err)
	}
	for _, want := range []string{"needs Go 1.999.0", "GOTOOLCHAIN=go1.999.0"} {
		if !strings.Contains(diags[0].String(), want) {
			t.Errorf("diagnostic %q lacks %q", diags[0], want)
		}
	}
}

// TestRaceInGOFLAGS: a user who keeps -race in GOFLAGS (for their tests)
// can still generate: the generator lists packages with cgo off, and -race
// there made go list fail with "-race requires cgo".
func TestRaceInGOFLAGS(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOFLAGS", strings.TrimSpace(os.Getenv("GOFLAGS")+" -race"))
	if err := Run(context.Background(), buildTagsConfig(t)); err != nil {
		t.Fatalf("with GOFLAGS=%q: %v", os.Getenv("GOFLAGS"), err)
	}
}

// -race set with go env -w (the go env file) fails go list as it does in
// the environment.
func TestRaceInGoEnvFile(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	file := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(file, []byte("GOFLAGS=-race\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOENV", file)
	t.Setenv("GOFLAGS", "")
	if err := Run(context.Background(), buildTagsConfig(t)); err != nil {
		t.Fatalf("with GOFLAGS=-race in the go env file: %v", err)
	}
}

func TestListEnv(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "env")
	if err := os.WriteFile(envFile, []byte("GOPROXY=off\nGOFLAGS=-mod=mod -race\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		env, want []string
	}{
		{"in the environment",
			[]string{"HOME=/h", "GOFLAGS=-buildvcs=false -race -mod=mod --msan -asan=true -tags=x", "CGO_ENABLED=1"},
			[]string{"HOME=/h", "GOFLAGS=-buildvcs=false -mod=mod -tags=x", "CGO_ENABLED=1", "CGO_ENABLED=0"}},
		{"only -race: never empty, or the go env file's would apply",
			[]string{"GOFLAGS=-race", "GOENV=off"},
			[]string{"GOFLAGS=-race=false", "GOENV=off", "CGO_ENABLED=0"}},
		{"nothing to drop",
			[]string{"GOFLAGS=-mod=mod", "GOENV=" + envFile},
			[]string{"GOFLAGS=-mod=mod", "GOENV=" + envFile, "CGO_ENABLED=0"}},
		{"in the go env file",
			[]string{"GOENV=" + envFile, "GOFLAGS="},
			[]string{"GOENV=" + envFile, "GOFLAGS=-mod=mod", "CGO_ENABLED=0"}},
		{"go env file off",
			[]string{"GOENV=off"},
			[]string{"GOENV=off", "CGO_ENABLED=0"}},
	} {
		got := listEnv(c.env)
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s: listEnv(%q)\n got %q\nwant %q", c.name, c.env, got, c.want)
		}
	}
}

// TestMissingGoSumEntries: go.sum lacking the entries of several input
// packages' imports (a module fetched with go get of its root only) is one
// problem with one fix: one line, naming the other imports, with every go get
// the go command suggested in one command, not one line per file and import.
// (The go command names a missing module once, at its first importer, so
// here it suggests one go get for two packages.)
func TestMissingGoSumEntries(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n\nrequire k8s.io/apimachinery v0.37.2\n"))
	writeFile(t, filepath.Join(dir, "apis", "doc.go"), []byte("// Package apis holds the API versions.\npackage apis\n"))
	for _, v := range []string{"v1", "v2"} {
		src := "package " + v + "\n\nimport (\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\t\"k8s.io/apimachinery/pkg/runtime/schema\"\n)\n\nvar GV = schema.GroupVersion{}\n\n// +genclient\ntype Foo struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata\"`\n}\n"
		writeFile(t, filepath.Join(dir, "apis", "demo", v, "types.go"), []byte(src))
	}
	cfg := Config{Inputs: []string{"./apis/..."}, OutputDir: filepath.Join(dir, "generated"), WorkDir: dir}
	err := Run(context.Background(), cfg)
	if err == nil {
		t.Fatal("Run succeeded without go.sum")
	}
	msg := err.Error()
	want := "apis/demo/v1/types.go:4:2: missing go.sum entry for module providing package k8s.io/apimachinery/pkg/apis/meta/v1 (and 1 more the inputs import: k8s.io/apimachinery/pkg/runtime/schema) (run go get example.com/demo/apis/demo/v1)"
	if msg != want {
		t.Fatalf("got:\n%s\nwant:\n%s", msg, want)
	}
	// The hint is the whole fix: the go command names each missing module
	// once, at its first importer.
	get := exec.Command("go", "get", "example.com/demo/apis/demo/v1")
	get.Dir = dir
	if out, err := get.CombinedOutput(); err != nil {
		t.Fatalf("the hint's go get: %v\n%s", err, out)
	}
	if err := Run(context.Background(), cfg); err != nil && strings.Contains(err.Error(), "go.sum") {
		t.Errorf("after the hint's go get:\n%v", err)
	}
}

// TestInputModuleNotRequired: an input in no module of go.mod (go mod tidy,
// run before the first generation, drops a module nothing imports yet) says
// so and how to require it, for a package and for a ... pattern, where the
// go command says only "input package does not exist" and "matched no
// packages".
func TestInputModuleNotRequired(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOPROXY", "off")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n"))
	for _, tc := range []struct{ in, want string }{
		{"example.com/operator/api/v1", "example.com/operator/api/v1: no module in go.mod provides example.com/operator/api/v1 (run go get example.com/operator/api/v1@<version>; "},
		{"example.com/operator/api/...", "example.com/operator/api/...: pattern matches no Go packages: no module in go.mod provides example.com/operator/api (run go get example.com/operator/api/...@<version>; "},
	} {
		cfg := Config{Inputs: []string{tc.in}, OutputDir: filepath.Join(dir, "generated"), OutputPkg: "example.com/demo/generated", WorkDir: dir}
		err := Run(context.Background(), cfg)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("%s: got:\n%v\nwant one line starting:\n%s", tc.in, err, tc.want)
		}
	}
}

func TestDependencyHint(t *testing.T) {
	rel := func(s string) string { return s }
	const cg = "k8s.io/client-go v0.37.2"
	for _, tc := range []struct {
		name     string
		p        *packages.Package
		ofInputs bool
		want     string
	}{{
		name: "controller-runtime from the module cache",
		p:    &packages.Package{PkgPath: "sigs.k8s.io/controller-runtime/pkg/cache", Module: &packages.Module{Path: "sigs.k8s.io/controller-runtime", Version: "v0.21.0"}},
		want: "sigs.k8s.io/controller-runtime v0.21.0, imported by the input packages, does not compile against k8s.io/client-go v0.37.2 that this module selects; go get sigs.k8s.io/controller-runtime@v0.24 or later",
	}, {
		name: "a library released with client-go, at an older minor",
		p:    &packages.Package{PkgPath: "k8s.io/apiserver/pkg/endpoints", Module: &packages.Module{Path: "k8s.io/apiserver", Version: "v0.31.10"}},
		want: "k8s.io/apiserver v0.31.10, imported by the input packages, does not compile against k8s.io/client-go v0.37.2 that this module selects; go get k8s.io/apiserver@v0.37.2",
	}, {
		name: "another published module, replaced by a version of a fork",
		p: &packages.Package{PkgPath: "example.com/lib/cache", Module: &packages.Module{Path: "example.com/lib", Version: "v1.2.0",
			Replace: &packages.Module{Path: "example.com/fork", Version: "v1.2.1"}}},
		want: "example.com/lib v1.2.0 (replaced by example.com/fork v1.2.1), imported by the input packages, does not compile against k8s.io/client-go v0.37.2 that this module selects; go get a version of it built for that client-go",
	}, {
		name: "a directory a replace names",
		p: &packages.Package{PkgPath: "example.com/lib/cache", Module: &packages.Module{Path: "example.com/lib", Version: "v1.2.0",
			Replace: &packages.Module{Path: "../lib"}}},
		want: "example.com/lib/cache, imported by the input packages, does not compile against k8s.io/client-go v0.37.2 that this module selects; go build example.com/lib/cache shows the same",
	}, {
		name: "this module",
		p:    &packages.Package{PkgPath: "example.com/me/webhook", Module: &packages.Module{Path: "example.com/me", Main: true}},
		want: "example.com/me/webhook, imported by the input packages, does not compile against k8s.io/client-go v0.37.2 that this module selects; go build example.com/me/webhook shows the same",
	}, {
		// The logging-operator's pkg/sdk v0.12.0: its logging/api/v1alpha1
		// imports logging/api/v1beta1, which does not compile.
		name:     "the published module of the input packages",
		p:        &packages.Package{PkgPath: "example.com/op/api/v1beta1", Module: &packages.Module{Path: "example.com/op", Version: "v0.12.0"}},
		ofInputs: true,
		want:     "example.com/op/api/v1beta1 (example.com/op v0.12.0, the input packages' module), which input packages import, does not compile against k8s.io/client-go v0.37.2 that this module selects; go get a version of example.com/op built for that client-go, or generate only the input packages that do not import example.com/op/api/v1beta1, directly or not",
	}, {
		name:     "this module, with the input packages",
		p:        &packages.Package{PkgPath: "example.com/me/webhook", Module: &packages.Module{Path: "example.com/me", Main: true}},
		ofInputs: true,
		want:     "example.com/me/webhook, a package of the input packages' module that they import, does not compile against k8s.io/client-go v0.37.2 that this module selects; go build example.com/me/webhook shows the same",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := dependencyHint(tc.p, cg, "", "", tc.ofInputs, "go build", rel); got != tc.want {
				t.Errorf("dependencyHint =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestK8sMachineryImports: which dependencies clientGoUsers checks with their
// bodies. KubeVela v1.10.9's API packages reach k8s.io/apiserver v0.31.10
// (through its cluster-gateway) and exited 0 with output go build refused:
// apiserver was trusted as a k8s.io module, and cluster-gateway imports
// apiserver, not client-go.
func TestK8sMachineryImports(t *testing.T) {
	mod := func(path, version string) *packages.Module { return &packages.Module{Path: path, Version: version} }
	for _, tc := range []struct {
		m    *packages.Module
		want bool
	}{
		{mod("k8s.io/apiserver", "v0.31.10"), true},
		{mod("k8s.io/client-go", "v0.37.2"), true},
		{mod("k8s.io/component-base", "v0.37.2"), true},
		{mod("k8s.io/utils", "v0.0.0-20260626114624-be93311217bd"), false},
		{mod("k8s.io/kube-openapi", "v0.0.0-20260721132016-d427ff9ee9ad"), false},
		{mod("k8s.io/klog/v2", "v2.140.0"), false},
		{mod("k8s.io/gengo/v2", "v2.0.0-20260408192533-25e2208e0dc3"), false},
		{mod("k8s.io/node-problem-detector", "v0.8.21"), false},
		{mod("k8s.io/kubernetes", "v1.37.2"), false},
		{mod("sigs.k8s.io/controller-runtime", "v0.24.0"), false},
	} {
		if got := k8sLockstep(tc.m); got != tc.want {
			t.Errorf("k8sLockstep(%s %s) = %v, want %v", tc.m.Path, tc.m.Version, got, tc.want)
		}
	}
	dep := func(path string, m *packages.Module) *packages.Package {
		return &packages.Package{PkgPath: path, Module: m}
	}
	apiserver, api := mod("k8s.io/apiserver", "v0.37.2"), mod("k8s.io/api", "v0.37.2")
	for _, tc := range []struct {
		name    string
		imports []*packages.Package
		want    bool
	}{
		{"client-go", []*packages.Package{dep("k8s.io/client-go/tools/cache", mod("k8s.io/client-go", "v0.37.2"))}, true},
		{"apiserver", []*packages.Package{dep("k8s.io/apiserver/pkg/server", apiserver)}, true},
		{"types only", []*packages.Package{
			dep("k8s.io/api/core/v1", api),
			dep("k8s.io/apimachinery/pkg/util/wait", mod("k8s.io/apimachinery", "v0.37.2")),
			dep("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1", mod("k8s.io/apiextensions-apiserver", "v0.37.2")),
			dep("k8s.io/utils/ptr", mod("k8s.io/utils", "v0.0.0-20260626114624-be93311217bd")),
		}, false},
	} {
		p := &packages.Package{PkgPath: "example.com/lib", Imports: map[string]*packages.Package{}}
		for _, d := range tc.imports {
			p.Imports[d.PkgPath] = d
		}
		if got := importsK8sMachinery(p); got != tc.want {
			t.Errorf("%s: importsK8sMachinery = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPatternPackageWithoutKindsAfterTidy: go mod tidy after generating
// drops the modules of a package that a ... pattern takes in and nothing
// imports (Volcano's pkg/apis/helpers, JobSet's api/config). Such a package
// declares no kind, so a rerun or --verify skips it instead of failing on
// go.sum; named on the command line, or holding a type that may be a kind,
// it is still an error.
func TestPatternPackageWithoutKindsAfterTidy(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	// golang.org/x/tools stays in the module graph (its go.mod line) while
	// its source's hash is gone, as tidy leaves a module nothing imports.
	dir := sampleModule(t, func(gosum []byte) []byte {
		var kept []string
		for _, l := range strings.Split(string(gosum), "\n") {
			if !strings.HasPrefix(l, "golang.org/x/tools ") || strings.Contains(l, "/go.mod ") {
				kept = append(kept, l)
			}
		}
		return []byte(strings.Join(kept, "\n"))
	})
	helpers := filepath.Join(dir, "input", "apis", "helpers", "helpers.go")
	const imports = "package helpers\n\nimport \"golang.org/x/tools/go/packages\"\n\n"
	run := func(t *testing.T, inputs ...string) error {
		return Run(context.Background(), Config{Inputs: inputs, OutputDir: filepath.Join(dir, "generated"), WorkDir: dir})
	}

	writeFile(t, helpers, []byte(imports+"type wrapper struct{ *packages.Package }\n"))
	if err := run(t, "./input/apis/..."); err != nil {
		t.Fatalf("helpers without kinds in ./input/apis/...: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "generated", "listers", "samplecontroller", "v1alpha1", "listers.go")); err != nil {
		t.Errorf("the kinds beside the skipped package: %v", err)
	}
	// A version of kinds its CRDs no longer serve (cluster-api-provider-vsphere's
	// apis/v1alpha3, which imports gopkg.in/gcfg.v1): its kinds are skipped
	// either way, so it is skipped as a package without kinds is.
	writeFile(t, helpers, []byte("package helpers\n\nimport (\n\t\"golang.org/x/tools/go/packages\"\n\tmetav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n)\n\n"+
		"// +kubebuilder:object:root=true\n// +kubebuilder:unservedversion\ntype Wrapper struct {\n\tmetav1.TypeMeta\n\tmetav1.ObjectMeta\n\tp *packages.Package\n}\n\n"+
		"// +kubebuilder:object:root=true\ntype WrapperList struct {\n\tmetav1.TypeMeta\n\tmetav1.ListMeta\n\tItems []Wrapper\n}\n"))
	if err := run(t, "./input/apis/..."); err != nil {
		t.Errorf("helpers with an unserved version only in ./input/apis/...: %v", err)
	}
	for _, c := range []struct {
		name, src string
		inputs    []string
	}{
		{"named", "type wrapper struct{ *packages.Package }\n", []string{"./input/apis/...", "./input/apis/helpers"}},
		{"kind", "type Wrapper struct{ *packages.Package }\n\ntype WrapperList struct{ Items []Wrapper }\n", []string{"./input/apis/..."}},
		{"genclient", "// +genclient\ntype wrapper struct{ *packages.Package }\n", []string{"./input/apis/..."}},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeFile(t, helpers, []byte(imports+c.src))
			err := run(t, c.inputs...)
			if err == nil || !strings.Contains(err.Error(), "missing go.sum entry") || !strings.Contains(err.Error(), "helpers.go:3:8") {
				t.Errorf("got %v, want the missing go.sum entry at helpers.go's import", err)
			}
		})
	}
}

// mayHoldKinds reads a package's syntax for what could be a kind.
func TestMayHoldKinds(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      bool
	}{
		{"nothing", "type config struct{ Port int }\n", false},
		{"type meta only", "type Configuration struct {\n\tmetav1.TypeMeta\n\tPort int\n}\n", false},
		{"foreign embedding", "type listener struct{ *net.TCPListener }\n", false},
		{"object meta", "type Foo struct {\n\tmetav1.TypeMeta\n\tmetav1.ObjectMeta\n}\n", true},
		{"object meta pointer", "type Foo struct{ *metav1.ObjectMeta }\n", true},
		{"foreign base with a list", "type Foo struct{ base.Object }\n\ntype FooList struct{ Items []Foo }\n", true},
		{"generic embedding", "type Foo struct{ base.Object[int] }\n", true},
		{"genclient", "// +genclient\n\n// Foo is a type.\ntype Foo struct{}\n", true},
		// cluster-api-provider-vsphere's v1alpha3 and v1alpha4: root types
		// the CRDs no longer serve, which the generator skips.
		{"unserved version", "// +kubebuilder:object:root=true\n// +kubebuilder:unservedversion\ntype Foo struct {\n\tmetav1.TypeMeta\n\tmetav1.ObjectMeta\n}\n", false},
		{"skipped version", "// +kubebuilder:skipversion\n\n// Foo is a type.\ntype Foo struct{ metav1.ObjectMeta }\n", false},
		{"no lister", "// +k8s:lister-gen=false\ntype Foo struct{ base.Object }\n\ntype FooList struct{ Items []Foo }\n", false},
		// client-gen's typed clients, which a ... pattern over a module's
		// api/ takes in beside the types (NVIDIA's gpu-operator:
		// api/versioned/typed/nvidia/v1).
		{"genclient named in prose", "type FooInterface interface {\n\t// Add a +genclient:noStatus comment above the type to avoid generating UpdateStatus().\n\tUpdateStatus() error\n}\n", false},
		{"unexported generic embedding", "type foos struct {\n\t*gentype.ClientWithList[*v1.Foo, *v1.FooList]\n}\n", false},
		{"unexported with a marker", "// +kubebuilder:object:root=true\ntype foo struct{ base.Object[int] }\n", true},
		{"one of two unserved", "// +kubebuilder:unservedversion\ntype Foo struct{ metav1.ObjectMeta }\n\ntype Bar struct{ metav1.ObjectMeta }\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "types.go")
			writeFile(t, f, []byte("package v1\n\n"+c.src))
			if got := mayHoldKinds(&packages.Package{GoFiles: []string{f}}); got != c.want {
				t.Errorf("mayHoldKinds(%q) = %v, want %v", c.src, got, c.want)
			}
		})
	}
}

// k8s.io/api, apimachinery and client-go older than the runtime needs are
// refused: replaced by an older version of themselves (the output would not
// compile) or selected older without a replace (the inputs would be checked
// against versions go mod tidy then raises).
func TestK8sBelowRuntime(t *testing.T) {
	mod := func(path, version string, replace *packages.Module) *packages.Package {
		return &packages.Package{PkgPath: path + "/pkg", Module: &packages.Module{Path: path, Version: version, Replace: replace}}
	}
	pkgs := []*packages.Package{
		mod("k8s.io/apimachinery", "v0.37.2", &packages.Module{Path: "k8s.io/apimachinery", Version: "v0.34.5"}),
		mod("k8s.io/api", "v0.37.2", &packages.Module{Path: "k8s.io/api", Version: "v0.37.3"}),                      // newer: fine
		mod("k8s.io/client-go", "v0.30.0", &packages.Module{Path: "example.com/fork/client-go", Version: "v0.1.0"}), // a fork
		mod("k8s.io/component-base", "v0.30.0", &packages.Module{Path: "k8s.io/component-base", Version: "v0.30.0"}),
		mod("sigs.k8s.io/yaml", "v1.6.0", nil),
	}
	pkgs[0].Imports = map[string]*packages.Package{
		"client-go": mod("k8s.io/client-go", "v0.37.2", &packages.Module{Path: "k8s.io/client-go", Version: "v0.35.0"}),
	}
	old := []*packages.Package{mod("k8s.io/api", "v0.27.11", nil), mod("k8s.io/apimachinery", "v0.38.0", nil)}
	old[0].Imports = map[string]*packages.Package{"main": {PkgPath: "k8s.io/api/x", Module: &packages.Module{Path: "k8s.io/apimachinery", Version: "v0.20.0", Main: true}}}
	replaced := func(m, v string) string {
		return m + ": go.mod replaces " + m + " with " + v + ", older than the " + runtimeK8sVersion + " that the generated code's runtime requires: the output would not compile (raise the replace to " + runtimeK8sVersion + " or later, or drop it)"
	}
	incompatible := "k8s.io/client-go: this module selects k8s.io/client-go v12.0.0+incompatible, a release from before the module had a go.mod, which the go command ranks above the " +
		runtimeK8sVersion + " that the generated code's runtime requires: the output would not compile (a dependency requires it and pins k8s.io/client-go with a replace line, which applies only in its own builds; add one here: go mod edit -replace=k8s.io/client-go=k8s.io/client-go@" +
		runtimeK8sVersion + " (go mod graph | grep k8s.io/client-go@v12.0.0+incompatible names the dependency))"
	for _, c := range []struct {
		name  string
		pkgs  []*packages.Package
		graph []*packages.Module // the module graph's answer, for the modules no input imports
		want  []string
	}{
		{"replaced", pkgs, nil, []string{replaced("k8s.io/apimachinery", "v0.34.5"), replaced("k8s.io/client-go", "v0.35.0")}},
		{"selected", old, nil, []string{"k8s.io/api: this module selects k8s.io/api v0.27.11, older than the " + runtimeK8sVersion +
			" that the generated code's runtime requires: the inputs would be checked against versions other than those the output builds with" +
			" (go get k8s.io/api@" + runtimeK8sVersion + " before generating; requiring the runtime first does it (go get github.com/informer-gen/informer-gen@<version>, or hack/use-local.sh without --no-tool from a clone))"}},
		{"incompatible imported", []*packages.Package{mod("k8s.io/client-go", "v12.0.0+incompatible", nil)}, nil, []string{incompatible}},
		// LitmusChaos's chaos-operator API imports apimachinery and
		// k8s.io/api; its go.mod requires client-go v12.0.0+incompatible,
		// pinned to v0.26 by a replace that applies in its builds only.
		{"not imported", []*packages.Package{mod("k8s.io/apimachinery", "v0.37.2", nil)}, []*packages.Module{
			{Path: "k8s.io/api", Version: "v0.37.2", Replace: &packages.Module{Path: "k8s.io/api", Version: "v0.34.5"}},
			{Path: "k8s.io/client-go", Version: "v12.0.0+incompatible"},
		}, []string{replaced("k8s.io/api", "v0.34.5"), incompatible}},
		// Selected older and imported by no input: go mod tidy raises it
		// once the module requires the runtime.
		{"not imported, older", []*packages.Package{mod("k8s.io/apimachinery", "v0.37.2", nil)}, []*packages.Module{
			{Path: "k8s.io/client-go", Version: "v0.30.0"},
		}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var asked []string
			graph := func(paths []string) []*packages.Module {
				asked = paths
				return c.graph
			}
			var got []string
			broken, older := k8sBelowRuntime(c.pkgs, graph)
			for _, d := range append(broken, older...) {
				got = append(got, d.String())
			}
			for _, d := range broken {
				if strings.Contains(d.Message, "the inputs would be checked") {
					t.Errorf("a module selected older is not one the output cannot compile against: %s", d)
				}
			}
			if c.name == "not imported" && !slices.Equal(asked, []string{"k8s.io/api", "k8s.io/client-go"}) {
				t.Errorf("asked the module graph for %q, want k8s.io/api and k8s.io/client-go", asked)
			}
			slices.Sort(got) // the run sorts diagnostics
			if !slices.Equal(got, c.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// graphModules reads the versions the module graph selects from go.mod
// files alone: offline, with client-go's pre-module release required and not
// in the module cache, it still names it, and leaves out a module the graph
// does not hold.
func TestGraphModules(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n\nrequire (\n\tk8s.io/apimachinery v0.37.2\n\tk8s.io/client-go v12.0.0+incompatible\n)\n"))
	var got []string
	for _, m := range graphModules(context.Background(), Config{WorkDir: dir}, []string{"k8s.io/api", "k8s.io/client-go"}) {
		got = append(got, m.Path+"@"+m.Version)
	}
	if want := []string{"k8s.io/client-go@v12.0.0+incompatible"}; !slices.Equal(got, want) {
		t.Errorf("graphModules = %q, want %q", got, want)
	}
}

// TestIncompatibleClientGoBesideOtherErrors: a module that selects
// client-go v12.0.0+incompatible (a dependency's requirement, as LitmusChaos's
// chaos-operator and Rancher's pkg/apis bring it) is told so even when the
// inputs fail too (here a type error; with Rancher's, go.sum lacks the
// modules of everything that imports client-go): it is the cause of such
// errors, and the output could not compile whatever else is fixed. The
// module proxy is a directory holding client-go's go.mod alone: nothing
// imports its packages.
func TestIncompatibleClientGoBesideOtherErrors(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	proxy := t.TempDir()
	at := filepath.Join(proxy, "k8s.io", "client-go", "@v")
	writeFile(t, filepath.Join(at, "list"), []byte("v12.0.0+incompatible\n"))
	writeFile(t, filepath.Join(at, "v12.0.0+incompatible.info"), []byte(`{"Version":"v12.0.0+incompatible","Time":"2019-06-19T00:00:00Z"}`))
	writeFile(t, filepath.Join(at, "v12.0.0+incompatible.mod"), []byte("module k8s.io/client-go\n"))
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n\nrequire (\n\tk8s.io/apimachinery v0.37.2\n\tk8s.io/client-go v12.0.0+incompatible\n)\n"))
	src := "// +groupName=demo.example.com\npackage v1\n\nimport metav1 \"k8s.io/apimachinery/pkg/apis/meta/v1\"\n\nvar broken int = \"x\"\n\n// +genclient\ntype Foo struct {\n\tmetav1.TypeMeta `json:\",inline\"`\n\tmetav1.ObjectMeta `json:\"metadata\"`\n}\n"
	writeFile(t, filepath.Join(dir, "apis", "demo", "v1", "types.go"), []byte(src))
	cfg := Config{Inputs: []string{"./apis/..."}, OutputDir: filepath.Join(dir, "generated"), OutputPkg: "example.com/demo/generated", WorkDir: dir}
	err := Run(context.Background(), cfg)
	if err == nil {
		t.Fatal("Run succeeded")
	}
	for _, want := range []string{
		"apis/demo/v1/types.go:6:18: cannot use \"x\"",
		"k8s.io/client-go: this module selects k8s.io/client-go v12.0.0+incompatible, a release from before the module had a go.mod",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got:\n%v\nwant a line with:\n%s", err, want)
		}
	}
}

// runtimeK8sVersion is what this module's go.mod requires.
func TestRuntimeK8sVersionIsGoMods(t *testing.T) {
	b, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"} {
		if !strings.Contains(string(b), "\n\t"+m+" "+runtimeK8sVersion+"\n") {
			t.Errorf("go.mod does not require %s %s", m, runtimeK8sVersion)
		}
	}
}

// TestPatternReachesModuleAtV000: a ... pattern over a module whose
// repository's root module requires a module nested below the pattern at
// v0.0.0, with a replace that applies in the root's own builds only (the
// logging-operator's pkg/sdk/... and its syslogng/config module). The go
// command cannot read that module to match the pattern, and go list -e
// reports it beside the packages it matched. The pattern's other packages
// generate, with a warning naming the module and the module that requires
// it; a pattern that reaches nothing else says so, rather than "run go mod
// tidy", which would drop the inputs' modules.
func TestPatternReachesModuleAtV000(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOPROXY", "off")
	app := sampleModule(t, func(b []byte) []byte { return b })
	sdk, root := t.TempDir(), t.TempDir()
	if err := os.Rename(filepath.Join(app, "input"), filepath.Join(sdk, "input")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(sdk, "go.mod"), []byte("module example.com/operator/sdk\n\ngo 1.24\n\nrequire example.com/operator v1.0.0\n"))
	writeFile(t, filepath.Join(root, "go.mod"), []byte("module example.com/operator\n\ngo 1.24\n\nrequire example.com/operator/sdk/config v0.0.0\n\nreplace example.com/operator/sdk/config => ./sdk/config\n"))
	gomod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(app, "go.mod"), append(gomod, []byte("\nrequire (\n\texample.com/operator v1.0.0 // indirect\n\texample.com/operator/sdk v1.0.0\n)\n\n"+
		"replace example.com/operator => "+root+"\n\nreplace example.com/operator/sdk => "+sdk+"\n")...))
	const hint = " (require it at a real version to include its packages: go get example.com/operator/sdk/config@<version>)"
	const desc = "module example.com/operator/sdk/config v0.0.0, which example.com/operator@v1.0.0 requires at v0.0.0, a version only a replace in the requiring go.mod can provide (a replace applies in its own module's builds only)"

	var warnings strings.Builder
	cfg := Config{Inputs: []string{"example.com/operator/sdk/..."}, OutputDir: filepath.Join(app, "generated"), WorkDir: app, Warnings: &warnings}
	if err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := "example.com/operator/sdk/...: warning: cannot read " + desc + ", so its packages below the pattern are not inputs" + hint + "\n"
	if warnings.String() != want {
		t.Errorf("warnings:\n%s\nwant:\n%s", warnings.String(), want)
	}
	if _, err := os.Stat(filepath.Join(app, "generated", "informers", "samplecontroller", "v1alpha1", "informers.go")); err != nil {
		t.Errorf("the pattern's package in the readable module was not generated: %v", err)
	}

	cfg.Inputs = []string{"example.com/operator/sdk/config/..."}
	err = Run(context.Background(), cfg)
	want = "example.com/operator/sdk/config/...: pattern matches no package the go command can read: it cannot read " + desc + hint
	if err == nil || err.Error() != want {
		t.Errorf("a pattern below the unreadable module only: got\n%v\nwant\n%s", err, want)
	}
}

// TestUnreadModuleMissingGoSum: a module below a ... pattern at a real
// version whose go.sum entry is missing is named with the command that adds
// the entry: go mod download of the module (of module@version it writes no
// go.sum; go mod tidy would drop the inputs' modules before the first
// generation).
func TestUnreadModuleMissingGoSum(t *testing.T) {
	p := &packages.Package{ID: "example.com/operator/sdk/...", Errors: []packages.Error{{
		Msg: "pattern example.com/operator/sdk/...: example.com/operator@v0.0.0-20250424202944-7e1f9aad6e21: missing go.sum entry", Kind: packages.ListError}}}
	m, ok := unreadPatternModule(p)
	if !ok {
		t.Fatal("unreadPatternModule: not recognised")
	}
	got := unreadModuleDiagnostic(Config{}, m, true).String()
	want := "example.com/operator/sdk/...: missing go.sum entry for example.com/operator v0.0.0-20250424202944-7e1f9aad6e21, a module the go command reads to match the pattern (run go mod download example.com/operator)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, ok := unreadPatternModule(&packages.Package{ID: "example.com/x/...", Errors: []packages.Error{{Msg: "pattern example.com/x/...: directory prefix x does not contain main module"}}}); ok {
		t.Error("another pattern error was taken for an unread module")
	}
}

// TestDependencySkewedK8sLibrary: a dependency written against another minor
// of a library built on client-go than the module selects is type-checked
// with its bodies, though it imports no client-go package itself: the
// logging-operator's pkg/sdk v0.12.0 calls ctrl.NewWebhookManagedBy(mgr) in
// logging/api/v1beta1, as controller-runtime v0.20 had it, and its
// logging/api/v1alpha1 imports that package; at controller-runtime v0.24 the
// run exited 0 with output go build refused. Here example.com/lib/webhook
// calls fw.New with the one argument of example.com/fw v0.20.0, which lib's
// go.mod requires, and the module selects fw v0.24.0, whose New takes two.
func TestDependencySkewedK8sLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOPROXY", "off")
	app := sampleModule(t, func(b []byte) []byte { return b })
	lib, fw := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(fw, "go.mod"), []byte("module example.com/fw\n\ngo 1.24\n\nrequire k8s.io/client-go v0.37.2\n"))
	writeFile(t, filepath.Join(fw, "fw.go"), []byte("// Package fw stands for controller-runtime.\npackage fw\n\n// New takes two arguments since v0.24.\nfunc New(mgr string, kind any) {}\n"))
	writeFile(t, filepath.Join(lib, "go.mod"), []byte("module example.com/lib\n\ngo 1.24\n\nrequire example.com/fw v0.20.0\n"))
	writeFile(t, filepath.Join(lib, "webhook", "webhook.go"), []byte("// Package webhook is written against fw v0.20.\npackage webhook\n\nimport \"example.com/fw\"\n\n// Setup calls New as v0.20 had it.\nfunc Setup() { fw.New(\"mgr\") }\n"))
	writeFile(t, filepath.Join(app, "input", "apis", "samplecontroller", "v1alpha1", "webhook.go"), []byte("package v1alpha1\n\nimport \"example.com/lib/webhook\"\n\nvar _ = webhook.Setup\n"))
	gomod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(app, "go.mod"), append(gomod, []byte("\nrequire (\n\texample.com/fw v0.24.0\n\texample.com/lib v1.0.0\n)\n\n"+
		"replace example.com/fw => "+fw+"\n\nreplace example.com/lib => "+lib+"\n")...))
	cfg := Config{Inputs: []string{"./input/apis/..."}, OutputDir: filepath.Join(app, "generated"), WorkDir: app}
	err = Run(context.Background(), cfg)
	want := filepath.Join(lib, "webhook", "webhook.go") + ":7:23: not enough arguments in call to fw.New\n\thave (string)\n\twant (string, any)" +
		" (example.com/lib/webhook, imported by the input packages, does not compile against example.com/fw v0.24.0 that this module selects (its go.mod requires v0.20.0); go build example.com/lib/webhook shows the same)"
	if err == nil || err.Error() != want {
		t.Fatalf("got:\n%v\nwant:\n%s", err, want)
	}
	if _, err := os.Stat(cfg.OutputDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output written: %v", err)
	}
}

// TestDependencySkewedK8sLibraryOfInputModule: the package that does not
// compile belongs to the module of the input packages, which import it, as
// the logging-operator's pkg/sdk v0.12.0 logging/api/v1beta1 belongs with
// logging/api/v1alpha1; the hint says so instead of calling it a
// dependency of theirs from elsewhere.
func TestDependencySkewedK8sLibraryOfInputModule(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOPROXY", "off")
	app := sampleModule(t, func(b []byte) []byte { return b })
	lib, fw := sampleModule(t, func(b []byte) []byte { return b }), t.TempDir()
	writeFile(t, filepath.Join(fw, "go.mod"), []byte("module example.com/fw\n\ngo 1.24\n\nrequire k8s.io/client-go v0.37.2\n"))
	writeFile(t, filepath.Join(fw, "fw.go"), []byte("// Package fw stands for controller-runtime.\npackage fw\n\n// New takes two arguments since v0.24.\nfunc New(mgr string, kind any) {}\n"))
	gomod, err := os.ReadFile(filepath.Join(lib, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = bytes.Replace(gomod, []byte("module example.com/sample"), []byte("module example.com/lib"), 1)
	writeFile(t, filepath.Join(lib, "go.mod"), append(gomod, []byte("\nrequire example.com/fw v0.20.0\n")...))
	writeFile(t, filepath.Join(lib, "input", "webhook", "webhook.go"), []byte("// Package webhook is written against fw v0.20.\npackage webhook\n\nimport \"example.com/fw\"\n\n// Setup calls New as v0.20 had it.\nfunc Setup() { fw.New(\"mgr\") }\n"))
	writeFile(t, filepath.Join(lib, "input", "apis", "samplecontroller", "v1alpha1", "webhook.go"), []byte("package v1alpha1\n\nimport \"example.com/lib/input/webhook\"\n\nvar _ = webhook.Setup\n"))
	if err := os.RemoveAll(filepath.Join(app, "input")); err != nil {
		t.Fatal(err)
	}
	if gomod, err = os.ReadFile(filepath.Join(app, "go.mod")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(app, "go.mod"), append(gomod, []byte("\nrequire (\n\texample.com/fw v0.24.0\n\texample.com/lib v1.0.0\n)\n\n"+
		"replace example.com/fw => "+fw+"\n\nreplace example.com/lib => "+lib+"\n")...))
	cfg := Config{Inputs: []string{"example.com/lib/input/apis/..."}, OutputDir: filepath.Join(app, "generated"), WorkDir: app}
	err = Run(context.Background(), cfg)
	want := filepath.Join(lib, "input", "webhook", "webhook.go") + ":7:23: not enough arguments in call to fw.New\n\thave (string)\n\twant (string, any)" +
		" (example.com/lib/input/webhook, a package of the input packages' module that they import, does not compile against example.com/fw v0.24.0 that this module selects (its go.mod requires v0.20.0); go build example.com/lib/input/webhook shows the same)"
	if err == nil || err.Error() != want {
		t.Fatalf("got:\n%v\nwant:\n%s", err, want)
	}
	if _, err := os.Stat(cfg.OutputDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output written: %v", err)
	}
}

// TestMergeGoSum: the missing go.sum entries of a run are one diagnostic with
// one go get. A dependency's go.mod file missing from go.sum (the
// messaging-topology-operator's api/... before its packages were fetched:
// fxamacker/cbor and k8s.io/utils, once per input package) is the same
// cause, and the go get of the inputs adds it too; alone, it is said once
// per module, with the go mod download the go command names, not go mod
// tidy, which drops the inputs' modules before the first generation.
func TestMergeGoSum(t *testing.T) {
	goMod := func(pkg string) Diagnostic {
		msg, hint := goSumMessage("github.com/fxamacker/cbor/v2@v2.9.2: missing go.sum entry for go.mod file; to add it:\n\tgo mod download github.com/fxamacker/cbor/v2")
		return Diagnostic{Subject: pkg, Message: msg, Hint: hint}
	}
	pkgSum := func(pkg, imp string) Diagnostic {
		msg, hint := goSumMessage("missing go.sum entry for module providing package " + imp + " (imported by " + pkg + "); to add:\n\tgo get " + pkg + "@v1.20.1")
		return Diagnostic{Subject: pkg, Message: msg, Hint: hint}
	}
	const v1, v1beta1 = "example.com/op/api/v1", "example.com/op/api/v1beta1"
	other := Diagnostic{Subject: v1, Message: "something else"}
	for _, tc := range []struct {
		name string
		in   Diagnostics
		want []string
	}{{
		name: "beside a package's entry",
		in:   Diagnostics{goMod(v1beta1), pkgSum(v1beta1, "sigs.k8s.io/controller-runtime/pkg/client"), goMod(v1), pkgSum(v1, "sigs.k8s.io/controller-runtime/pkg/scheme"), other},
		want: []string{
			"example.com/op/api/v1: missing go.sum entry for module providing package sigs.k8s.io/controller-runtime/pkg/scheme (and 1 more the inputs import: sigs.k8s.io/controller-runtime/pkg/client) (run go get example.com/op/api/v1@v1.20.1 example.com/op/api/v1beta1@v1.20.1)",
			"example.com/op/api/v1: something else",
		},
	}, {
		name: "beside one package's entry",
		in:   Diagnostics{goMod(v1), pkgSum(v1, "sigs.k8s.io/controller-runtime/pkg/scheme")},
		want: []string{"example.com/op/api/v1: missing go.sum entry for module providing package sigs.k8s.io/controller-runtime/pkg/scheme (run go get example.com/op/api/v1@v1.20.1)"},
	}, {
		name: "alone",
		in:   Diagnostics{goMod(v1beta1), goMod(v1)},
		want: []string{"example.com/op/api/v1: github.com/fxamacker/cbor/v2@v2.9.2: missing go.sum entry for go.mod file (run go mod download github.com/fxamacker/cbor/v2)"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range mergeGoSum(tc.in).sorted() {
				got = append(got, d.String())
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestSkewedLockstepImports: a package of Kubernetes' own modules that
// imports a library released with client-go at another minor than client-go
// is checked with its bodies. OpenYurt v1.7.0's API imports k8s.io/kubernetes
// pkg/apis/core/v1; at v1.37 its pkg/features names feature gates that the
// k8s.io/apiserver, component-base, apiextensions-apiserver and
// controller-manager v0.34 OpenYurt's go.mod selects lack, and the run exited
// 0 with output go build refused.
func TestSkewedLockstepImports(t *testing.T) {
	mod := func(path, version string) *packages.Module { return &packages.Module{Path: path, Version: version} }
	pkg := func(path string, m *packages.Module) *packages.Package {
		return &packages.Package{PkgPath: path, Module: m}
	}
	kubernetes := &packages.Module{Path: "k8s.io/kubernetes", Version: "v0.0.0-00010101000000-000000000000",
		Replace: mod("k8s.io/kubernetes", "v1.37.2")}
	features := pkg("k8s.io/kubernetes/pkg/features", kubernetes)
	features.Imports = map[string]*packages.Package{
		"k8s.io/apiserver/pkg/features":                         pkg("k8s.io/apiserver/pkg/features", mod("k8s.io/apiserver", "v0.34.0")),
		"k8s.io/component-base/featuregate":                     pkg("k8s.io/component-base/featuregate", mod("k8s.io/component-base", "v0.34.0")),
		"k8s.io/client-go/features":                             pkg("k8s.io/client-go/features", mod("k8s.io/client-go", "v0.37.2")),
		"k8s.io/apimachinery/pkg/util/runtime":                  pkg("k8s.io/apimachinery/pkg/util/runtime", mod("k8s.io/apimachinery", "v0.37.2")),
		"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions": pkg("k8s.io/apiextensions-apiserver/pkg/apis/apiextensions", mod("k8s.io/apiextensions-apiserver", "v0.34.0")),
		"k8s.io/kubernetes/pkg/apis/core":                       pkg("k8s.io/kubernetes/pkg/apis/core", kubernetes),
		"k8s.io/controller-manager/pkg/features":                pkg("k8s.io/controller-manager/pkg/features", &packages.Module{Path: "k8s.io/controller-manager", Version: "v0.34.0", Replace: mod("k8s.io/controller-manager", "v0.37.2")}),
	}
	var got []string
	for _, m := range skewedLockstepImports(features, "v0.37.2") {
		got = append(got, m.Path+" "+buildVersion(m))
	}
	// client-go and apimachinery are the selected ones; API types
	// (apiextensions' pkg/apis) rarely break; a replace to v0.37 is what builds.
	if want := []string{"k8s.io/apiserver v0.34.0", "k8s.io/component-base v0.34.0"}; !slices.Equal(got, want) {
		t.Errorf("skewedLockstepImports = %q, want %q", got, want)
	}
	if libs := skewedLockstepImports(features, "v0.34.0"); len(libs) != 1 || libs[0].Path != "k8s.io/controller-manager" {
		t.Errorf("against client-go v0.34.0: %v, want k8s.io/controller-manager, replaced by v0.37.2", libs)
	}
}

// TestDependencySkewedLockstepLibrary: TestSkewedLockstepImports end to end,
// with a Kubernetes module and a library released with it replaced by
// directories: the package written against the library's newer minor is
// reported with the go get that raises the library to client-go's version.
func TestDependencySkewedLockstepLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	t.Setenv("GOPROXY", "off")
	app := sampleModule(t, func(b []byte) []byte { return b })
	kube, lib := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(lib, "go.mod"), []byte("module k8s.io/featurelib\n\ngo 1.24\n"))
	writeFile(t, filepath.Join(lib, "gates", "gates.go"), []byte("// Package gates stands for k8s.io/apiserver's features at v0.34.\npackage gates\n\n// Old is a gate v0.34 has.\nconst Old = \"Old\"\n"))
	writeFile(t, filepath.Join(kube, "go.mod"), []byte("module k8s.io/kubelike\n\ngo 1.24\n\nrequire k8s.io/featurelib v0.0.0\n"))
	writeFile(t, filepath.Join(kube, "features", "features.go"), []byte("// Package features stands for k8s.io/kubernetes' pkg/features at v1.37.\npackage features\n\nimport \"k8s.io/featurelib/gates\"\n\n// All names a gate v0.37 added.\nvar All = []string{gates.Old, gates.New}\n"))
	writeFile(t, filepath.Join(app, "input", "apis", "samplecontroller", "v1alpha1", "features.go"), []byte("package v1alpha1\n\nimport \"k8s.io/kubelike/features\"\n\nvar _ = features.All\n"))
	gomod, err := os.ReadFile(filepath.Join(app, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(app, "go.mod"), append(gomod, []byte("\nrequire (\n\tk8s.io/featurelib v0.34.0\n\tk8s.io/kubelike v1.37.0\n)\n\n"+
		"replace k8s.io/featurelib => "+lib+"\n\nreplace k8s.io/kubelike => "+kube+"\n")...))
	cfg := Config{Inputs: []string{"./input/apis/..."}, OutputDir: filepath.Join(app, "generated"), WorkDir: app}
	err = Run(context.Background(), cfg)
	want := filepath.Join(kube, "features", "features.go") + ":7:37: undefined: gates.New" +
		" (k8s.io/kubelike/features, imported by the input packages, does not compile against k8s.io/featurelib v0.34.0 that this module selects; go get k8s.io/featurelib@v0.37.2)"
	if err == nil || err.Error() != want {
		t.Fatalf("got:\n%v\nwant:\n%s", err, want)
	}
}
