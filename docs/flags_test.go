package docs_test

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/informer-gen/informer-gen/generator"
	"github.com/informer-gen/informer-gen/generator/migrate"
)

// otherTools are the double-dash flags the docs name that belong to another
// command, with the command.
var otherTools = map[string]string{
	"case":              "hack/bench-codegen.sh",
	"runs":              "hack/bench-codegen.sh",
	"no-tool":           "hack/use-local.sh",
	"with-watch":        "kube_codegen.sh gen_client (code-generator)",
	"watch-cache":       "kube-apiserver",
	"watch-cache-sizes": "kube-apiserver",
	"help":              "every command",
}

// helpFlags returns the flags `informer-gen --help` and `informer-gen
// migrate --help` list, and the main usage text.
func helpFlags(t *testing.T) (main, sub []string, usage string) {
	t.Helper()
	var out bytes.Buffer
	if _, err := generator.ParseArgs([]string{"--help"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("informer-gen --help: %v", err)
	}
	usage = out.String()
	for _, m := range regexp.MustCompile(`(?m)^  --([a-z][a-z0-9-]*)`).FindAllStringSubmatch(usage, -1) {
		main = append(main, m[1])
	}
	out.Reset()
	if _, err := migrate.ParseArgs([]string{"--help"}, io.Discard, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("informer-gen migrate --help: %v", err)
	}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(out.String(), -1) {
		sub = append(sub, m[1])
	}
	if len(main) < 10 || len(sub) < 3 {
		t.Fatalf("found %d flags in informer-gen --help, %d in migrate --help:\n%s", len(main), len(sub), usage)
	}
	return main, sub, usage
}

// docsText is README.md and docs/*.md.
func docsText(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, f := range docFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// TestHelpNamesWhatTheDocsName: every --flag in the docs is informer-gen's
// or its migrate subcommand's (or another command's, listed in otherTools),
// and --help names the migrate subcommand the docs advertise.
func TestHelpNamesWhatTheDocsName(t *testing.T) {
	main, sub, usage := helpFlags(t)
	docs := docsText(t)
	if strings.Contains(docs, "informer-gen migrate") && !strings.Contains(usage, "informer-gen migrate") {
		t.Errorf("the docs name the migrate subcommand; informer-gen --help does not:\n%s", usage)
	}
	for _, m := range regexp.MustCompile(`(?:^|[^A-Za-z0-9-])--([a-z][a-z0-9-]*)`).FindAllStringSubmatch(docs, -1) {
		name := m[1]
		if slices.Contains(main, name) || slices.Contains(sub, name) {
			continue
		}
		if _, ok := otherTools[name]; ok {
			continue
		}
		t.Errorf("the docs name --%s, which neither informer-gen --help nor informer-gen migrate --help lists (another command's? add it to otherTools)", name)
	}
}

// TestDocsNameEveryFlag: every flag --help lists is named in the docs.
func TestDocsNameEveryFlag(t *testing.T) {
	main, sub, _ := helpFlags(t)
	docs := docsText(t)
	for _, name := range append(main, sub...) {
		if !regexp.MustCompile("(?:^|[` ])--" + regexp.QuoteMeta(name) + "(?:[^a-z0-9-]|$)").MatchString(docs) {
			t.Errorf("no doc names --%s (docs/guide.md, \"The informer-gen command\", lists every flag)", name)
		}
	}
}
