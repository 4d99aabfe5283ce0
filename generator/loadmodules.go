package generator

import (
	"fmt"
	"go/build/constraint"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Diagnostics about the module graph: go.sum entries the go command asked
// for, modules a pattern names but the build does not read, and build tags
// that leave a package without files.

// mergeGoSum folds the missing-go.sum diagnostics of a run into one: the
// first, naming the other imports in its message and every go get the go
// command suggested in one command. They have one cause (go.sum lacks the
// entries of the inputs' dependencies, as when a module was fetched with go
// get of its root only) and one fix, and a module of many packages would
// otherwise print the same advice once per file and import. A dependency's
// go.mod file missing from go.sum ("M@V: missing go.sum entry for go.mod
// file", which the go command reports once per input that reaches it) has
// the same cause: beside a package's missing entry the go get of the inputs
// adds it too, and it is left out; alone, it is said once per module.
func mergeGoSum(diags Diagnostics) Diagnostics {
	const prefix = "missing go.sum entry for module providing package "
	var sums, goMods Diagnostics
	out := diags[:0:0]
	for _, d := range diags {
		switch {
		case strings.HasPrefix(d.Message, prefix):
			sums = append(sums, d)
		case strings.HasSuffix(d.Message, ": "+goModSumMissing):
			goMods = append(goMods, d)
		default:
			out = append(out, d)
		}
	}
	if len(sums) == 0 {
		goMods = goMods.sorted()
		seen := map[string]bool{}
		for _, d := range goMods {
			if !seen[d.Message] {
				seen[d.Message] = true
				out = append(out, d)
			}
		}
		return out
	}
	if len(sums) == 1 {
		return append(out, sums[0])
	}
	// The go command reports a package's errors in no fixed order: the
	// earliest position speaks for the rest, and the rest are named in
	// position order, so that the message is the same from run to run.
	sums = sums.sorted()
	var pkgs, args []string
	for _, d := range sums {
		if pkg := strings.TrimPrefix(d.Message, prefix); !slices.Contains(pkgs, pkg) {
			pkgs = append(pkgs, pkg)
		}
		if cmd, ok := strings.CutPrefix(d.Hint, "run go get "); ok {
			for _, a := range strings.Fields(cmd) {
				if !slices.Contains(args, a) {
					args = append(args, a)
				}
			}
		}
	}
	d := sums[0]
	if n := len(pkgs) - 1; n > 0 {
		names := pkgs[1:min(len(pkgs), 4)]
		list := strings.Join(names, ", ")
		if n > len(names) {
			list += ", …"
		}
		d.Message += fmt.Sprintf(" (and %d more the inputs import: %s)", n, list)
	}
	if len(args) > 0 {
		d.Hint = "run go get " + strings.Join(args, " ")
	}
	return append(out, d) // Run sorts the diagnostics it prints
}

// goModSumMissing is how the go command says that go.sum lacks the hash of
// a dependency's go.mod file, after "M@V: ".
const goModSumMissing = "missing go.sum entry for go.mod file"

// goSumMessage shortens go's "missing go.sum entry for module providing
// package X (imported by Y); to add:\n\tgo get Y" to its first clause and
// turns the command into a hint; so too "M@V: missing go.sum entry for
// go.mod file; to add it:\n\tgo mod download M".
func goSumMessage(msg string) (string, string) {
	first, rest, _ := strings.Cut(msg, ";")
	if i := strings.Index(first, " (imported by"); i >= 0 {
		first = first[:i]
	}
	hint := "run go mod tidy"
	_, cmd, ok := strings.Cut(rest, "to add:")
	if !ok {
		_, cmd, ok = strings.Cut(rest, "to add it:")
	}
	if ok && strings.TrimSpace(cmd) != "" {
		hint = "run " + strings.Join(strings.Fields(cmd), " ")
	}
	return strings.TrimSpace(first), hint
}

// patternModuleRe matches the go command's error for a ... pattern that
// reaches into a module of the build list it cannot read, which go list -e
// reports beside the packages it did match: "pattern P: M@V: missing go.sum
// entry".
var patternModuleRe = regexp.MustCompile(`^pattern \S+: (\S+)@(\S+): missing go\.sum entry`)

// unreadModule is a module of the build list below a ... pattern that the
// go command could not read to match the pattern.
type unreadModule struct {
	pattern       string // as given on the command line
	path, version string
}

// unreadPatternModule returns the module that p's error names when p is a
// ... pattern the go command could not match in full because it could not
// read that module.
func unreadPatternModule(p *packages.Package) (unreadModule, bool) {
	if !strings.Contains(p.ID, "...") || len(p.GoFiles) > 0 || len(p.Errors) != 1 {
		return unreadModule{}, false
	}
	m := patternModuleRe.FindStringSubmatch(p.Errors[0].Msg)
	if m == nil {
		return unreadModule{}, false
	}
	return unreadModule{pattern: p.ID, path: m[1], version: m[2]}, true
}

// unreadModuleDiagnostic says why the go command could not read m to match
// its pattern, and what to do. matchedOthers tells whether the pattern
// matched packages of other modules.
//
// A module at v0.0.0 is how a repository of several modules has its root
// require a module nested in it, with a replace by its directory: the
// logging-operator's root requires its
// pkg/sdk/logging/model/syslogng/config so, and pkg/sdk/... then reaches it.
// The replace applies only in the root's own builds; here v0.0.0 names no
// version that exists, so no go.sum entry can be added, and no package of
// that module can be imported by the output either. The pattern's other
// packages are generated as if named one by one, with a warning; when it
// matched nothing else, there is nothing to generate. Any other version
// lacks only the entry, which go mod download of the module adds (of M@V it
// does not write go.sum; go mod tidy would drop the inputs' modules, which
// nothing imports before the first generation).
func unreadModuleDiagnostic(cfg Config, m unreadModule, matchedOthers bool) Diagnostic {
	if m.version != "v0.0.0" {
		return Diagnostic{Subject: m.pattern,
			Message: fmt.Sprintf("missing go.sum entry for %s %s, a module the go command reads to match the pattern", m.path, m.version),
			Hint:    "run go mod download " + m.path}
	}
	who := "a module of the build list"
	if rs := requirersOf(cfg, m.path+"@"+m.version); len(rs) > 0 {
		who = strings.Join(rs, ", ")
	}
	desc := fmt.Sprintf("module %s v0.0.0, which %s requires at v0.0.0, a version only a replace in the requiring go.mod can provide (a replace applies in its own module's builds only)", m.path, who)
	hint := "require it at a real version to include its packages: go get " + m.path + "@<version>"
	if !matchedOthers {
		return Diagnostic{Subject: m.pattern, Message: "pattern matches no package the go command can read: it cannot read " + desc, Hint: hint}
	}
	return Diagnostic{Subject: m.pattern, Warning: true, Message: "cannot read " + desc + ", so its packages below the pattern are not inputs", Hint: hint}
}

// requirersOf returns the modules of the module graph (go mod graph) that
// require modVersion ("path@version"), sorted. It is for explaining an
// error; when go mod graph fails it returns nil.
func requirersOf(cfg Config, modVersion string) []string {
	cmd := exec.Command("go", "mod", "graph")
	cmd.Dir = cfg.WorkDir
	cmd.Env = listEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var rs []string
	for line := range strings.Lines(string(out)) {
		from, to, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && to == modVersion && !slices.Contains(rs, from) {
			rs = append(rs, from)
		}
	}
	slices.Sort(rs)
	return rs
}

// noPackagesDiagnostic says why a ... pattern matched nothing: usually every
// Go file below it is behind a build tag.
func noPackagesDiagnostic(cfg Config, pattern string) Diagnostic {
	d := Diagnostic{Subject: pattern, Message: "pattern matches no Go packages"}
	if isLocalPattern(pattern) {
		root := abs(cfg.WorkDir, strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/"))
		if h := tagsHint(cfg, root); h != "" {
			d.Message = "pattern matches no Go packages: build constraints exclude every Go file below " + strings.TrimSuffix(pattern, "/...")
			d.Hint = h
		}
	} else if base := strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/"); moduleMissing(cfg, base) {
		d.Message = "pattern matches no Go packages: no module in go.mod provides " + base
		d.Hint = notRequiredHint(pattern)
	}
	for elem := range strings.SplitSeq(filepath.ToSlash(pattern), "/") {
		if elem == "testdata" || len(elem) > 1 && (elem[0] == '_' || elem[0] == '.' && strings.Trim(elem, ".") != "") {
			d.Hint = "the go command ignores testdata directories and directories whose names start with _ or ."
		}
	}
	return d
}

// tagsHint names the build constraints of the Go files below dir and the
// --tags flag that would include them.
func tagsHint(cfg Config, dir string) string {
	if dir == "" {
		return ""
	}
	var first string
	var tags []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		for line := range strings.SplitSeq(string(src), "\n") {
			line = strings.TrimSpace(line)
			if line != "" && !strings.HasPrefix(line, "//") {
				break
			}
			if !constraint.IsGoBuild(line) {
				continue
			}
			expr, err := constraint.Parse(line)
			if err != nil || expr.Eval(func(tag string) bool { return tagSet(cfg, tag) }) {
				continue
			}
			if first == "" {
				first = fmt.Sprintf("%s in %s", line, relativeTo(cfg.WorkDir)(p))
			}
			collectTags(expr, &tags)
		}
		return nil
	})
	if first == "" {
		return ""
	}
	tags = slices.DeleteFunc(tags, func(t string) bool { return tagSet(cfg, t) })
	slices.Sort(tags)
	tags = slices.Compact(tags)
	if len(tags) == 0 {
		return "files are excluded by " + first
	}
	return fmt.Sprintf("files are excluded by %s; pass --tags %s to include them", first, strings.Join(tags, ","))
}

// tagSet approximates the go command's answer to "is tag set?" for the
// host, with --tags.
func tagSet(cfg Config, tag string) bool {
	switch tag {
	case runtime.GOOS, runtime.GOARCH, "gc":
		return true
	case "unix":
		return runtime.GOOS != "windows" && runtime.GOOS != "plan9" && runtime.GOOS != "js" && runtime.GOOS != "wasip1"
	}
	return strings.HasPrefix(tag, "go1.") || slices.Contains(cfg.Tags, tag)
}

// collectTags appends the tags a constraint needs set (those not under a
// negation).
func collectTags(e constraint.Expr, tags *[]string) {
	switch e := e.(type) {
	case *constraint.TagExpr:
		*tags = append(*tags, e.Tag)
	case *constraint.AndExpr:
		collectTags(e.X, tags)
		collectTags(e.Y, tags)
	case *constraint.OrExpr:
		collectTags(e.X, tags)
		collectTags(e.Y, tags)
	}
}
