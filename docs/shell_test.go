package docs_test

import (
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/informer-gen/informer-gen/generator"
	"github.com/informer-gen/informer-gen/generator/migrate"
)

// What happens to each shell command of README.md and docs/*.md (```sh
// blocks; a command continued with \ is one). A command not listed fails
// TestShellCommands, and so does a listed one the docs no longer hold.
//
//   - "run": an informer-gen command line, run here (in process, offline:
//     GOPROXY=off) with its own arguments in a project of its own: a module
//     (example.com/project, or the module its --output-pkg names) holding
//     the example's API packages under apis/, api/ and pkg/apis/, and a
//     hack/boilerplate.go.txt. It must succeed and write a factory.
//   - "parse": an informer-gen migrate command line; its arguments are parsed
//     here as the command parses them (every flag exists, every value is
//     valid). It is not run: it rewrites a code-generator controller, which
//     the reader has and this test has not (generator/migrate's tests run it
//     on sample-controller's code).
//   - "ci: …": CI runs it, or the code it runs, where named.
//   - "not offline: …" / "not run: …": why not, in the test's words.
var shellCommands = map[string]string{
	"go run -C examples/crd ./cmd/demo":   "ci: examples/crd/cmd/demo's TestDemo runs the demo's run func (a smaller batch) against the same local API server",
	"go run -C examples/fleet ./cmd/demo": "not run: starts a kube-apiserver and three member servers (a minute of two cores); CI runs what it shows in examples/fleet/e2e (replicas splitting clusters on real Leases, one stopping)",
	"hack/test.sh":                        "ci: it is what CI runs (.ci/run)",
	"go tool github.com/informer-gen/informer-gen/cmd/informer-gen --output-dir ./generated --output-pkg example.com/project/generated ./apis/...": "run",
	"/path/to/informer-gen/hack/use-local.sh .":                                                                 "not offline: edits the reader's go.mod and runs go mod tidy, which downloads what the module cache lacks",
	"go tool github.com/informer-gen/informer-gen/cmd/informer-gen --output-dir ./internal/generated ./api/...": "run",
	"go mod tidy": "not offline: downloads the modules the reader's project newly needs",
	"git clone https://github.com/informer-gen/informer-gen ~/src/informer-gen":                                                                                    "not offline: clones from GitHub",
	"~/src/informer-gen/hack/use-local.sh /path/to/your/module":                                                                                                    "not offline: as use-local.sh above, in the reader's module",
	"go get -tool github.com/informer-gen/informer-gen/cmd/informer-gen@<version>":                                                                                 "not offline: fetches a tagged version through the module proxy (<version> is a placeholder until the module is tagged)",
	"go get github.com/informer-gen/informer-gen/integrations/controllerruntime@<version>":                                                                         "not offline: as go get -tool above",
	"go get github.com/informer-gen/informer-gen/integrations/prometheus@<version>":                                                                                "not offline: as go get -tool above",
	"go tool github.com/informer-gen/informer-gen/cmd/informer-gen --output-dir ./pkg/generated ./pkg/apis/...":                                                    "run",
	"go get github.com/informer-gen/informer-gen@<version>":                                                                                                        "not offline: as go get -tool above",
	"IG=github.com/informer-gen/informer-gen/cmd/informer-gen":                                                                                                     "not run: sets the shell variable the next lines use (substituted here)",
	"go run $IG migrate --dry-run ./...":                                                                                                                           "parse",
	"go run $IG migrate --remove-upstream-generated ./...":                                                                                                         "parse",
	"go run $IG --output-dir ./pkg/generated --output-pkg k8s.io/sample-controller/pkg/generated --go-header-file hack/boilerplate.go.txt ./pkg/apis/...":          "run",
	"go mod tidy && go build ./... && go test ./...":                                                                                                               "not offline: in a sample-controller checkout, after the steps above; tidy downloads",
	"go tool github.com/informer-gen/informer-gen/cmd/informer-gen --output-dir ./pkg/informergen --output-pkg example.com/project/pkg/informergen ./pkg/apis/...": "run",
	"go tool github.com/informer-gen/informer-gen/cmd/informer-gen migrate --output-pkg example.com/project/pkg/informergen ./cmd/controller-a/...":                "parse",
	"hack/bench-e2e.sh": "not run: a benchmark (17–23 minutes of two cores against a real API server); its figures are the doc's",
	"hack/bench-e2e.sh -sizes 10000,50000 -runs 5 -updates 1000 -contenders ours,ours:projection,client-go-typed": "not run: a benchmark, as above",
	"hack/bench-e2e.sh -sizes 2000 -runs 1": "not run: a benchmark, as above (a minute of wall time, timings with no check)",
	"hack/bench-e2e-builtin.sh":             "not run: a benchmark against kube-apiserver (tens of minutes)",
	"hack/bench-memlimit.sh":                "not run: a benchmark against kube-apiserver (~12 GB for the server at 88k Pods, an hour), and it needs root for its memory cgroups",
	"hack/bench-memlimit.sh -memlimit-base-bin /tmp/contender-base -contenders ours-projection@base,ours-projection,ours,client-go-metadata,client-go-typed -memlimit-for 'ours-projection@base=112,128,160,192,256;ours-projection=112,128,160,192,256;ours=448,512,640,768,1024;client-go-metadata=384,512,640,768,1024;client-go-typed=1536,2048,2560,3072'": "not run: the same benchmark with a before/after pair (~45 minutes), as above",
	"hack/bench-memlimit.sh -memlimit-base-bin /tmp/contender-base -contenders ours-projection@base,ours-projection,ours@base,ours -memlimit-for 'ours-projection@base=116,120,124,128;ours-projection=116,120,124,128;ours@base=464,480,496,512;ours=464,480,496,512'":                                                                                         "not run: the same benchmark, before/after with finer steps near our two contenders' limits (~8 minutes), as above",
	"hack/bench-e2e-builtin.sh -pods 10000 -secrets 10000 -runs 3 -contenders ours,ours-projection,client-go-typed,controller-runtime-metadata":                                                                                                                                                                                                                 "not run: a benchmark, as above",
	"hack/bench-runtime.sh -count 3 'InformerInitialSync|InformerUpdates|InformerOverhead|StoreGetLister|StoreList'":                                                                                                                                                                                                                                            "not run: a benchmark (~15 minutes); CI's go test runs the benchmarked code's tests",
	"hack/bench-runtime.sh -count 3 'BenchmarkStore(Overhead|Get|Update|PodBytes)$|BenchmarkWorkQueue(Workers1|Workers8|AddGetDone)$'":                                                                                                                                                                                                                          "not run: a benchmark, as above",
	"go test -count=1 -run TestDecodeCPUAlternated -v ./bench -args -decode-cpu-rounds=100":                                                                                                                                                                                                                                                                     "ci: CI's go test ./... runs TestDecodeCPUAlternated in ./bench with its default rounds",
	"go test -run '^$' -bench 'DecodeJSON(ListPage|WatchEvent)$' -benchmem -benchtime 2s ./bench | go run ./hack/benchratio":                                                                                                                                                                                                                                    "not run: a benchmark; timings with no check",
	"hack/bench-codegen.sh --runs 1 --case crd --case cold":                                                          "not offline: fetches code-generator v0.37.2 through the module proxy to compare against",
	"go run ./hack/plotscale -o docs/images/scale.svg docs/images/scale-realistic.json docs/images/scale-small.json": "not run: redraws the checked-in plot from the checked-in runs; hack/plotscale's TestDrawCheckedInRuns draws them",
	"hack/bench-codegen.sh --runs 1 --case kapi":                                                                     "not offline: as above",
	"hack/bench-fleet.sh -rounds 3":                                                                                  "not run: a benchmark (five API servers, 100,000 Foos, 100 client processes; ~25 minutes of two cores)",
	"hack/bench-fleet.sh -rounds 1 -unreachable-rounds 9 -skip-compare -idle-wait 0":                                 "not run: the same benchmark, its unreachable-cluster rounds",

	"for n in 10000 50000 100000; do for w in on off; do hack/bench-e2e-builtin.sh -pods $n -secrets \"\" -runs 1 -relist -watchlist $w -contenders ours,ours-projection,client-go-typed,client-go-metadata -json r$n-$w.json; done; done": "not run: six benchmarks against kube-apiserver (minutes each); bench/builtin's TestRelistProxy tests the proxy that forces the relist",
	"hack/bench-e2e-builtin.sh -pods 200000 -secrets \"\" -runs 1 -watchlist on -relist -contenders ours,ours-projection,client-go-typed,client-go-metadata -contender-memmax 5120 -server-gomemlimit 13GiB -timeout 20m -json r200k.json": "not run: a benchmark against kube-apiserver holding ~15 GB (minutes; one such run on a machine at a time)",
	"hack/bench-e2e-builtin.sh -pods 50000 -secrets \"\" -runs 1 -relist -relist-change 10 -watchlist on -contenders ours,ours-projection,client-go-typed,client-go-metadata":                                                              "not run: a benchmark against kube-apiserver holding ~4 GB (minutes); TestRelistProxy tests the proxy's hold",

	// Small Pods to a million (docs/performance.md, "At scale").
	"hack/bench-e2e-builtin.sh -pod-shape small -pods 10000 -secrets \"\" -runs 1 -relist -contenders ours,ours-projection,client-go-typed,client-go-metadata -contender-memmax 6144 -server-gomemlimit 13GiB -json s10k.json":                                          "not run: a benchmark against kube-apiserver (minutes)",
	"hack/bench-e2e-builtin.sh -pod-shape small -pods 50000 -secrets \"\" -runs 3 -watchlist on -relist -contenders ours,ours-projection,client-go-typed,client-go-metadata -contender-memmax 6144 -json s50k.json":                                                     "not run: a benchmark against kube-apiserver (minutes)",
	"hack/bench-e2e-builtin.sh -pod-shape small -pods 300000 -secrets \"\" -runs 1 -watchlist on -relist -contenders ours,ours-projection,client-go-typed,client-go-metadata -contender-memmax 6144 -server-gomemlimit 12GiB -server-heapprofile prof -json s300k.json": "not run: a benchmark against kube-apiserver holding ~10 GB (a quarter of an hour; one such run on a machine at a time)",
	"hack/bench-e2e-builtin.sh -pod-shape small -pods 1000000 -secrets \"\" -runs 1 -watchlist on -relist -contenders ours,ours-projection,client-go-metadata,client-go-typed -contender-memmax 6144 -server-gomemlimit 13GiB -timeout 20m -json s1m.json":              "not run: a benchmark against kube-apiserver holding ~14 GB (most of an hour; one such run on a machine at a time)",
}

var shellCommentRe = regexp.MustCompile(`\s+#.*$`)

// shellLines returns the commands of the sh blocks of the docs.
func shellLines(t *testing.T) map[string]string {
	t.Helper()
	cmds := map[string]string{}
	for _, file := range docFiles(t) {
		_, blocks := readBlocks(t, file)
		for _, b := range blocks {
			if b.lang != "sh" {
				continue
			}
			var cur string
			for _, l := range b.body {
				l = strings.TrimSpace(l)
				cont := strings.HasSuffix(l, `\`)
				cur += " " + strings.TrimSuffix(l, `\`)
				if cont {
					continue
				}
				c := strings.Join(strings.Fields(shellCommentRe.ReplaceAllString(cur, "")), " ")
				cur = ""
				if c != "" && !strings.HasPrefix(c, "#") {
					cmds[c] = strings.TrimPrefix(file, "../")
				}
			}
		}
	}
	return cmds
}

// informerGenArgs returns the arguments of an informer-gen command line.
func informerGenArgs(cmd string) ([]string, bool) {
	for _, prefix := range []string{"go tool github.com/informer-gen/informer-gen/cmd/informer-gen ", "go run $IG "} {
		if rest, ok := strings.CutPrefix(cmd, prefix); ok {
			return strings.Fields(rest), true
		}
	}
	return nil, false
}

func TestShellCommands(t *testing.T) {
	cmds := shellLines(t)
	for _, cmd := range slices.Sorted(maps.Keys(cmds)) {
		what, ok := shellCommands[cmd]
		if !ok {
			t.Errorf("%s: %q is not in shellCommands: say whether it is run, parsed, or why it cannot run offline", cmds[cmd], cmd)
			continue
		}
		if what != "parse" && what != "run" {
			continue
		}
		args, ok := informerGenArgs(cmd)
		if !ok {
			t.Errorf("%s: %q is marked %s but is no informer-gen command", cmds[cmd], cmd, what)
			continue
		}
		switch {
		case what == "parse" && len(args) > 0 && args[0] == "migrate":
			if _, err := migrate.ParseArgs(args[1:], io.Discard, io.Discard); err != nil {
				t.Errorf("%s: %q: %v", cmds[cmd], cmd, err)
			}
		case what == "run":
			t.Run(cmd, func(t *testing.T) { runInformerGen(t, args) })
		default:
			t.Errorf("%s: %q: parse is for migrate command lines; run informer-gen's", cmds[cmd], cmd)
		}
	}
	for cmd := range shellCommands {
		if _, ok := cmds[cmd]; !ok {
			t.Errorf("shellCommands lists %q, which no doc holds any more", cmd)
		}
	}
}

// runInformerGen runs informer-gen with args in a fresh project (see
// shellCommands, "run").
func runInformerGen(t *testing.T, args []string) {
	cfg, err := generator.ParseArgs(args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	module := "example.com/project"
	if cfg.OutputPkg != "" && !strings.HasPrefix(cfg.OutputPkg, module+"/") {
		module, _, _ = strings.Cut(cfg.OutputPkg, "/pkg/")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	example := filepath.Join(root, "examples", "crd")
	gomod, err := os.ReadFile(filepath.Join(example, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	apimachinery := regexp.MustCompile(`(?m)^\s*k8s\.io/apimachinery (v\S+)`).FindSubmatch(gomod)
	if apimachinery == nil {
		t.Fatal("examples/crd/go.mod requires no k8s.io/apimachinery")
	}
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module "+module+"\n\ngo 1.26.0\n\nrequire k8s.io/apimachinery "+string(apimachinery[1])+"\n")
	sum, err := os.ReadFile(filepath.Join(example, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("hack/boilerplate.go.txt", "// Copyright YEAR The Project Authors.\n")
	apis := filepath.Join(example, "apis")
	if err := filepath.WalkDir(apis, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(apis, p)
		for _, under := range []string{"apis", "api", "pkg/apis"} {
			write(filepath.Join(under, rel), string(data))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("GOPROXY", "off") // offline: the module cache CI already filled
	t.Setenv("GOFLAGS", "-mod=mod")
	if err := generator.Run(t.Context(), cfg); err != nil {
		t.Fatalf("informer-gen %s: %v", strings.Join(args, " "), err)
	}
	if _, err := os.Stat(filepath.Join(dir, cfg.OutputDir, "informers", "factory.go")); err != nil {
		t.Errorf("informer-gen %s wrote no factory: %v", strings.Join(args, " "), err)
	}
}
