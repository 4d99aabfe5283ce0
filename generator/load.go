package generator

import (
	"context"
	"fmt"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
	"k8s.io/klog/v2"
)

// loaded is the result of the load stage: the input packages, parsed and
// type-checked once, sharing one FileSet.
type loaded struct {
	fset *token.FileSet
	rel  func(string) string // file names as reported: relative to the working directory
	pkgs []*packages.Package // input packages only, sorted by import path
	// explicit holds the import paths of the inputs named on the command
	// line by themselves rather than matched by a ... pattern.
	explicit map[string]bool
	// projectionOnly holds the import paths of the packages named only by
	// --projection flags: loaded for their projections, whose kinds get no
	// listers or informers of their own.
	projectionOnly map[string]bool
	// regs are the scheme registrations of each input package, by import
	// path.
	regs map[string]registrations
	// listed is the size of the import graph, checked how many
	// dependencies were type-checked from source.
	listed, checked int
	// checker is the type checker that loaded the inputs, kept for
	// checkImports, which needs the model to know what the output imports.
	checker *checker
}

// position is the reported position of p: file name relative to the
// working directory, no offset.
func (l *loaded) position(p token.Pos) token.Position {
	pos := l.fset.Position(p)
	pos.Filename = l.rel(pos.Filename)
	pos.Offset = 0
	return pos
}

// listMode asks go list for the package graph only: names, files and
// imports of the inputs and of everything they import. Nothing is compiled
// and no export data is asked for. With NeedTypes and without NeedDeps,
// go/packages would run `go list -export`, which compiles every dependency
// first: with a cold build cache (every fresh CI job) that took ten times
// longer than upstream's generators, which parse their dependencies.
// NeedModule names a dependency's module and version where one does not
// compile (checker.clientGoUsers).
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule

// relPkg names p as the user would on the command line: ./dir when it is
// below the working directory, else its import path.
func relPkg(p *packages.Package, rel func(string) string) string {
	if len(p.GoFiles) > 0 {
		if d := rel(filepath.Dir(p.GoFiles[0])); !filepath.IsAbs(d) {
			return "./" + filepath.ToSlash(d)
		}
	}
	return p.PkgPath
}

func pathBase(p string) string {
	b := path.Base(p)
	// gopkg.in/yaml.v3 and .../v2 style major versions.
	if strings.HasPrefix(b, "v") && len(b) > 1 && strings.Trim(b[1:], "0123456789") == "" {
		b = path.Base(path.Dir(p))
	}
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return strings.ReplaceAll(b, "-", "_")
}

// load is the first stage: it resolves cfg.Inputs with go/packages (the
// loader gengo's parser is built on), type-checks the inputs from source
// (their dependencies as deep as their declarations need, function bodies
// dropped), and reports packages that do not exist or do not compile as
// diagnostics: one true message each, with a position where there is one
// and a hint.
func load(ctx context.Context, cfg Config, rel func(string) string) (*loaded, Diagnostics, error) {
	fset := token.NewFileSet()
	pcfg := &packages.Config{
		Context: ctx,
		Mode:    listMode,
		Dir:     cfg.WorkDir,
		Tests:   false,
		Env:     listEnv(os.Environ()),
	}
	if len(cfg.Tags) > 0 {
		pcfg.BuildFlags = []string{"-tags=" + strings.Join(cfg.Tags, ",")}
	}
	var diags Diagnostics
	var patterns []string
	for _, in := range cfg.Inputs {
		if isLocalPattern(in) {
			dir := strings.TrimSuffix(strings.TrimSuffix(in, "..."), "/")
			if _, err := os.Stat(filepath.Join(cfg.WorkDir, dir)); err != nil {
				diags = append(diags, Diagnostic{Subject: in, Message: "input package does not exist: no such directory"})
				continue
			}
		}
		patterns = append(patterns, in)
	}
	if len(patterns) == 0 && len(cfg.Inputs) > 0 {
		return nil, diags, nil // every input is missing; reported above
	}
	for _, pf := range cfg.Projections {
		if !slices.Contains(patterns, pf.Package) {
			patterns = append(patterns, pf.Package)
		}
	}
	roots, err := packages.Load(pcfg, patterns...)
	if err != nil {
		if goVersionRe.MatchString(err.Error()) {
			msg, hint := goVersionMessage(err.Error())
			return nil, append(diags, Diagnostic{Subject: strings.Join(patterns, " "), Message: msg, Hint: hint}), nil
		}
		return nil, nil, fmt.Errorf("loading %s: %w", strings.Join(patterns, " "), err)
	}
	l := &loaded{fset: fset, rel: rel, explicit: map[string]bool{}, projectionOnly: map[string]bool{}}
	c := newChecker(ctx, cfg, fset, roots)
	explicit := explicitInputs(cfg)
	var matched []*packages.Package
	var unread []unreadModule
	for _, p := range roots {
		if inOutput(cfg, p) {
			// Our own earlier output, matched by a ./... pattern: never an
			// input, and possibly broken by the very change being
			// regenerated for.
			continue
		}
		if m, ok := unreadPatternModule(p); ok {
			// Said below, once the pattern's other packages are known.
			unread = append(unread, m)
			continue
		}
		matched = append(matched, p)
		if ds := listDiagnostics(p, cfg, rel); len(ds) > 0 {
			if !explicit(p) && onlyModulesMissing(p) && !mayHoldKinds(p) {
				// go mod tidy after generating drops the modules of a
				// package a ... pattern takes in that nothing imports
				// (Volcano's pkg/apis/helpers, JobSet's api/config): a
				// package without kinds, so the output is the same
				// without it, and a rerun or --verify must not fail on it.
				klog.FromContext(ctx).V(1).Info("skipping package: the modules of its imports are missing from go.mod or go.sum, and it declares no type that can be a kind",
					"package", p.PkgPath)
				continue
			}
			diags = append(diags, ds...)
			continue
		}
		if ds := c.input(p, rel); len(ds) > 0 {
			// The bodies are checked all the same: a package written
			// for other versions of its dependencies breaks in both
			// (Kubewarden v1.31.0: a var initialised with
			// k8s.io/apiserver's old arguments, and webhook set-up for
			// an older controller-runtime), and go build reports both.
			// A declaration's error that bodies finds again is the same
			// diagnostic, which Run prints once; a file that does not
			// parse makes bodies report nothing.
			diags = append(diags, ds...)
			diags = append(diags, c.bodies(p, rel)...)
			continue
		}
		if ds := c.bodies(p, rel); len(ds) > 0 {
			diags = append(diags, ds...)
			continue
		}
		l.pkgs = append(l.pkgs, p)
	}
	// A client-go the output cannot compile against is said even beside
	// other errors: the inputs' errors against it have that cause too.
	broken, older := k8sBelowRuntime(l.pkgs, func(paths []string) []*packages.Module { return graphModules(ctx, cfg, paths) })
	if len(diags) == 0 {
		diags = append(diags, older...)
	}
	diags = append(diags, broken...)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for _, m := range unread {
		others := slices.ContainsFunc(matched, func(p *packages.Package) bool { return matchesPattern(cfg, m.pattern, p) })
		diags = append(diags, unreadModuleDiagnostic(cfg, m, others))
	}
	for _, in := range patterns {
		if strings.Contains(in, "...") && !slices.ContainsFunc(matched, func(p *packages.Package) bool { return matchesPattern(cfg, in, p) }) &&
			!slices.ContainsFunc(unread, func(m unreadModule) bool { return m.pattern == in }) {
			diags = append(diags, noPackagesDiagnostic(cfg, in))
		}
	}
	slices.SortFunc(l.pkgs, func(a, b *packages.Package) int { return strings.Compare(a.PkgPath, b.PkgPath) })
	for _, p := range l.pkgs {
		if explicit(p) {
			l.explicit[p.PkgPath] = true
		}
		if !slices.ContainsFunc(cfg.Inputs, func(in string) bool { return matchesPattern(cfg, in, p) }) {
			l.projectionOnly[p.PkgPath] = true
		}
	}
	l.listed, l.checked = len(c.byID), len(c.done)
	l.regs = c.regs
	l.checker = c
	return l, mergeGoSum(diags), nil
}

// checkImports checks, once the model is built, that what the output
// imports compiles: the dependencies of the input packages that declare the
// model's kinds (checker.clientGoUsers). An input package without kinds (a
// package a ... pattern takes in beside the versions: Cilium's cilium.io/client,
// which installs the CRDs through Cilium's own Kubernetes client) is not
// imported by the output, so what only it imports is not checked: it could
// fail only a build the output never asks for. A cancelled ctx is its error.
func (l *loaded) checkImports(ctx context.Context, model *Model) (Diagnostics, error) {
	imported := map[string]bool{}
	for _, g := range model.Groups {
		for _, v := range g.Versions {
			for _, k := range v.Kinds {
				imported[k.APIPath()] = true
			}
		}
	}
	var roots []*packages.Package
	for _, p := range l.pkgs {
		if imported[p.PkgPath] {
			roots = append(roots, p)
		}
	}
	diags := l.checker.clientGoUsers(roots, l.pkgs, l.rel)
	l.checked = len(l.checker.done)
	return diags, ctx.Err()
}

// listEnv is the environment of the go command that lists the inputs:
// CGO_ENABLED=0, since the generator reads declarations only and cgo files
// would need the C toolchain, and GOFLAGS without the flags that require cgo
// (-race, -msan, -asan), which a user may keep in GOFLAGS for their tests and
// with which go list would fail ("-race requires cgo"). GOFLAGS is the
// variable's, or when that is empty the go env file's (go env -w GOFLAGS=…),
// as the go command reads it; once filtered it is set in the environment,
// never empty (an empty one would let the file's apply again).
func listEnv(environ []string) []string {
	env := make([]string, 0, len(environ)+2)
	flags, at := "", -1
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			flags, at = v, len(env)
		}
		env = append(env, kv)
	}
	if strings.TrimSpace(flags) == "" {
		flags = goEnvFileValue(environ, "GOFLAGS")
	}
	var keep []string
	for _, f := range strings.Fields(flags) {
		switch f {
		case "-race", "--race", "-race=true", "--race=true", "-msan", "--msan", "-msan=true", "--msan=true", "-asan", "--asan", "-asan=true", "--asan=true":
		default:
			keep = append(keep, f)
		}
	}
	if len(keep) < len(strings.Fields(flags)) {
		kv := "GOFLAGS=" + strings.Join(keep, " ")
		if len(keep) == 0 {
			kv = "GOFLAGS=-race=false"
		}
		if at >= 0 {
			env[at] = kv
		} else {
			env = append(env, kv)
		}
	}
	return append(env, "CGO_ENABLED=0")
}

// goEnvFileValue returns key's value in the go env file (go env -w), as the
// go command finds it: $GOENV ("off": none), else go/env under the user's
// configuration directory. "" if unset or unreadable.
func goEnvFileValue(environ []string, key string) string {
	file := ""
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GOENV="); ok {
			file = v
		}
	}
	if file == "off" {
		return ""
	}
	if file == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		file = filepath.Join(dir, "go", "env")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	val := ""
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && k == key {
			val = v
		}
	}
	return val
}
