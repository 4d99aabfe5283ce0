// Package migrate rewrites a controller written against code-generator's
// informers and listers (k8s.io/code-generator's informer-gen and
// lister-gen, over client-go's tools/cache) so that it builds against
// informer-gen's output and runtime. It is the `informer-gen migrate` mode:
//
//	informer-gen migrate [--dry-run] [--output-pkg PKG] [--remove-upstream-generated] ./...
//
// It loads the packages with their types (golang.org/x/tools/go/packages,
// test files included), finds the project's upstream generated packages
// (<pkg>/informers/externalversions/..., <pkg>/listers/...) by their
// imports, and rewrites, in files that are not generated:
//
//   - imports of <pkg>/informers/externalversions[/x] to <out>/informers[/x]
//     and of <pkg>/listers/x to <out>/listers/x (<out> is --output-pkg,
//     default <pkg>: informer-gen writes the same listers/ and informers/
//     tree into the same pkg/generated);
//   - factory construction: NewSharedInformerFactory(cs, resync),
//     NewSharedInformerFactoryWithOptions(cs, resync, WithNamespace(ns),
//     WithTweakListOptions(fn)) and NewFilteredSharedInformerFactory become
//     NewSharedInformerFactory(clientsetconfig.For(cs), factory.Options{...}),
//     so the controller keeps its clientset (a fake in tests);
//   - the factory interface type SharedInformerFactory becomes
//     *SharedInformerFactory (ours is a struct);
//   - Start(ctx.Done()) and WaitForCacheSync(ctx.Done()) become Start(ctx)
//     and WaitForCacheSync(ctx);
//   - handler registration on X.Informer(): AddEventHandler(h) becomes
//     clientgo.AddHandler(X.Informer(), h, informer.HandlerOptions{}),
//     AddEventHandlerWithResyncPeriod(h, d) the same with
//     informer.HandlerOptions{ResyncPeriod: d}; RemoveEventHandler becomes
//     RemoveHandler; the handlers keep their client-go signatures and
//     tombstones (package runtime/informer/clientgo);
//   - cache seeding in tests: X.Informer().GetIndexer().Add(obj) (or
//     GetStore()) becomes X.Informer().Seed(obj);
//   - X.Informer().Run(ctx.Done()) becomes Run(ctx).
//
// HasSynced, listers (List, Get, Foos(ns)) and cache.WaitForCacheSync over
// HasSynced funcs need no change. Anything else on an upstream informer or
// factory that it cannot rewrite safely (the informer passed around as a
// cache.SharedIndexInformer, GetIndexer() read directly, WithTransform,
// ForResource, InformerFor, a stop channel that is not ctx.Done(), ...) is
// refused: every such place is reported as file:line:col: message, the exit
// status is non-zero and nothing is written. Otherwise every changed file
// is rewritten (gofmt'ed, atomically) and each change printed as
// file:line: what; files without changes are not touched. --dry-run prints
// the same and writes nothing.
//
// With --remove-upstream-generated it also deletes code-generator's files
// (those with a lister-gen or informer-gen "Code generated" header) under
// <pkg>/listers and <pkg>/informers/externalversions, naming each, since
// informer-gen refuses to write beside them; hand-written files there
// (foo_expansion.go) are kept. Without it, it prints which files to delete.
package migrate

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Config is one run of the migration.
type Config struct {
	// Patterns are the packages to migrate (./... in the project's root).
	Patterns []string
	// Dir is the directory patterns are resolved in and file names are
	// reported relative to; "" is the process's working directory.
	Dir string
	// DryRun reports what would change and writes nothing.
	DryRun bool
	// OutputPkg is informer-gen's --output-pkg for the project; "" means the
	// package that holds upstream's informers/ and listers/.
	OutputPkg string
	// RemoveUpstreamGenerated deletes code-generator's listers and informers.
	RemoveUpstreamGenerated bool
	// Stdout receives the changes, Stderr the refusals.
	Stdout, Stderr io.Writer

	dryOut map[string][]byte // tests: the files a dry run would write
}

// ErrRefused is wrapped by Run's error when a pattern cannot be rewritten.
var ErrRefused = errors.New("migration refused")

// ParseArgs parses the arguments of `informer-gen migrate`.
func ParseArgs(args []string, stdout, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("informer-gen migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := Config{Stdout: stdout, Stderr: stderr}
	fs.BoolVar(&cfg.DryRun, "dry-run", false, "print what would change; write nothing")
	fs.StringVar(&cfg.OutputPkg, "output-pkg", "", "informer-gen's --output-pkg (default: the package holding code-generator's informers/ and listers/)")
	fs.BoolVar(&cfg.RemoveUpstreamGenerated, "remove-upstream-generated", false, "delete code-generator's generated listers and informers (each named), so informer-gen can write its own")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: informer-gen migrate [--dry-run] [--output-pkg PKG] [--remove-upstream-generated] PACKAGES...")
		fmt.Fprintln(stderr, "Rewrites a controller from code-generator's informers and listers to informer-gen's. See docs/migrating.md.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.Patterns = fs.Args()
	if len(cfg.Patterns) == 0 {
		fs.Usage()
		return cfg, errors.New("informer-gen migrate: no packages given (try ./...)")
	}
	return cfg, nil
}

// Main runs `informer-gen migrate args` and returns the exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := ParseArgs(args, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err == nil {
		err = Run(ctx, cfg)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		if errors.Is(err, ErrRefused) {
			return 1
		}
		return 2
	}
	return 0
}

const (
	externalversions = "/informers/externalversions"
	factoryPkg       = "github.com/informer-gen/informer-gen/runtime/factory"
	clientsetCfgPkg  = "github.com/informer-gen/informer-gen/runtime/clientsetconfig"
	clientgoPkg      = "github.com/informer-gen/informer-gen/runtime/informer/clientgo"
	informerPkg      = "github.com/informer-gen/informer-gen/runtime/informer"
)

// Run migrates the packages of cfg. See the package doc.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Stdout == nil {
		cfg.Stdout = io.Discard
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	dir := cfg.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	fset := token.NewFileSet()
	pkgs, err := packages.Load(&packages.Config{
		Context: ctx,
		Mode:    packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedModule,
		Dir:     dir,
		Fset:    fset,
		Tests:   true,
	}, cfg.Patterns...)
	if err != nil {
		return fmt.Errorf("informer-gen migrate: load %s: %w", strings.Join(cfg.Patterns, " "), err)
	}
	var loadErrs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			loadErrs = append(loadErrs, e.Error())
		}
	})
	if len(loadErrs) > 0 {
		slices.Sort(loadErrs)
		return fmt.Errorf("informer-gen migrate: the packages must build before the migration (with code-generator's output in place):\n%s", strings.Join(slices.Compact(loadErrs), "\n"))
	}

	// The upstream generated package trees: <pkg> of every import of
	// <pkg>/informers/externalversions... inside the project's module.
	froms := map[string]bool{}
	for _, p := range pkgs {
		if p.Module == nil {
			continue
		}
		for path := range p.Imports {
			if i := strings.Index(path, externalversions); i > 0 && (path[i+len(externalversions):] == "" || path[i+len(externalversions)] == '/') &&
				(path == p.Module.Path || strings.HasPrefix(path, p.Module.Path+"/")) {
				froms[path[:i]] = true
			}
		}
	}
	if len(froms) == 0 {
		fmt.Fprintln(cfg.Stdout, "informer-gen migrate: no imports of code-generator's informers (<pkg>/informers/externalversions) in these packages: nothing to do")
		return nil
	}
	if cfg.OutputPkg != "" && len(froms) > 1 {
		return fmt.Errorf("informer-gen migrate: --output-pkg with %d upstream generated trees (%s): migrate one tree at a time", len(froms), strings.Join(slices.Sorted(maps.Keys(froms)), ", "))
	}

	seen := map[string]bool{}
	var changed []*fileResult
	var refusals []refusal
	// Test variants first: they hold every file of the package.
	sort.SliceStable(pkgs, func(i, j int) bool { return strings.Contains(pkgs[i].ID, "[") && !strings.Contains(pkgs[j].ID, "[") })
	for _, p := range pkgs {
		for n, f := range p.Syntax {
			name := p.CompiledGoFiles[n]
			if seen[name] || ast.IsGenerated(f) {
				seen[name] = true
				continue
			}
			seen[name] = true
			r := &rewriter{fset: fset, info: p.TypesInfo, file: f, froms: froms, out: cfg.OutputPkg}
			r.run()
			refusals = append(refusals, r.refusals...)
			if len(r.changes) > 0 {
				changed = append(changed, &fileResult{name: name, file: f, changes: r.changes})
			}
		}
	}
	rel := func(name string) string {
		if r, err := filepath.Rel(dir, name); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return name
	}
	if len(refusals) > 0 {
		sort.Slice(refusals, func(i, j int) bool {
			a, b := refusals[i].pos, refusals[j].pos
			if a.Filename != b.Filename {
				return a.Filename < b.Filename
			}
			if a.Line != b.Line {
				return a.Line < b.Line
			}
			return a.Column < b.Column
		})
		for _, r := range refusals {
			fmt.Fprintf(cfg.Stderr, "%s:%d:%d: %s\n", rel(r.pos.Filename), r.pos.Line, r.pos.Column, r.msg)
		}
		return fmt.Errorf("informer-gen migrate: %w: %d place(s) above need a hand edit first (see docs/migrating.md); nothing was written", ErrRefused, len(refusals))
	}

	upstream, err := upstreamGenerated(ctx, dir, froms)
	if err != nil {
		return err
	}
	for _, fr := range changed {
		var buf bytes.Buffer
		ast.SortImports(fset, fr.file)
		if err := format.Node(&buf, fset, fr.file); err != nil {
			return fmt.Errorf("informer-gen migrate: format %s: %w", rel(fr.name), err)
		}
		fr.out = buf.Bytes()
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i].name < changed[j].name })
	for _, fr := range changed {
		sort.SliceStable(fr.changes, func(i, j int) bool { return fr.changes[i].line < fr.changes[j].line })
	}
	for _, fr := range changed {
		for _, c := range fr.changes {
			fmt.Fprintf(cfg.Stdout, "%s:%d: %s\n", rel(fr.name), c.line, c.what)
		}
	}
	if cfg.DryRun {
		if cfg.dryOut != nil {
			for _, fr := range changed {
				cfg.dryOut[rel(fr.name)] = fr.out
			}
		}
		fmt.Fprintf(cfg.Stdout, "informer-gen migrate: dry run: %d file(s) would change\n", len(changed))
	} else {
		for _, fr := range changed {
			if err := writeAtomic(fr.name, fr.out); err != nil {
				return fmt.Errorf("informer-gen migrate: %w", err)
			}
		}
	}
	codegenHint(cfg.Stdout, dir, rel)
	switch {
	case len(upstream) == 0:
	case cfg.RemoveUpstreamGenerated && !cfg.DryRun:
		for _, name := range upstream {
			if err := os.Remove(name); err != nil {
				return fmt.Errorf("informer-gen migrate: %w", err)
			}
			fmt.Fprintf(cfg.Stdout, "%s: removed (code-generator's output)\n", rel(name))
		}
		removeEmptyDirs(upstream)
	default:
		fmt.Fprintf(cfg.Stdout, "informer-gen migrate: %d file(s) of code-generator's listers and informers remain; informer-gen will not write beside them. Delete them (or rerun with --remove-upstream-generated):\n", len(upstream))
		for _, name := range upstream {
			fmt.Fprintf(cfg.Stdout, "\t%s\n", rel(name))
		}
	}
	return nil
}

type fileResult struct {
	name    string
	file    *ast.File
	changes []change
	out     []byte
}

type change struct {
	line int
	what string
}

type refusal struct {
	pos token.Position
	msg string
}

// upstreamGenerated lists the files of code-generator's lister-gen and
// informer-gen under each tree's informers/externalversions and listers
// directories, sorted.
func upstreamGenerated(ctx context.Context, dir string, froms map[string]bool) ([]string, error) {
	var roots []string
	for from := range froms {
		roots = append(roots, from+externalversions)
	}
	pkgs, err := packages.Load(&packages.Config{Context: ctx, Mode: packages.NeedName | packages.NeedFiles, Dir: dir}, roots...)
	if err != nil {
		return nil, fmt.Errorf("informer-gen migrate: find code-generator's output: %w", err)
	}
	var out []string
	for _, p := range pkgs {
		if len(p.GoFiles) == 0 {
			continue
		}
		ev := filepath.Dir(p.GoFiles[0]) // <from>/informers/externalversions
		for _, d := range []string{ev, filepath.Join(ev, "..", "..", "listers")} {
			err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
				if errors.Is(err, fs.ErrNotExist) && path == d {
					return fs.SkipDir
				}
				if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") {
					return err
				}
				src, err := os.ReadFile(path)
				if err == nil && isUpstreamGenerated(src) {
					out = append(out, filepath.Clean(path))
				}
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("informer-gen migrate: %w", err)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// isUpstreamGenerated reports whether src carries code-generator's
// informer-gen or lister-gen header (and not informer-gen's own, which
// imports this module's runtime).
func isUpstreamGenerated(src []byte) bool {
	head := src[:min(len(src), 4096)]
	return (bytes.Contains(head, []byte("// Code generated by informer-gen. DO NOT EDIT.")) ||
		bytes.Contains(head, []byte("// Code generated by lister-gen. DO NOT EDIT."))) &&
		!bytes.Contains(src, []byte(`"github.com/informer-gen/informer-gen/runtime/`))
}

// writeAtomic replaces name with data, keeping its mode.
func writeAtomic(name string, data []byte) error {
	st, err := os.Stat(name)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".migrate-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// removeEmptyDirs removes the directories of the removed files, and their
// parents, that are left empty.
func removeEmptyDirs(removed []string) {
	dirs := map[string]bool{}
	for _, name := range removed {
		dirs[filepath.Dir(name)] = true
	}
	// Deepest first, so a parent is tried after its children.
	list := slices.Sorted(maps.Keys(dirs))
	slices.Reverse(list)
	for _, d := range list {
		for ; ; d = filepath.Dir(d) {
			if os.Remove(d) != nil { // not empty (or not ours): stop
				break
			}
		}
	}
}

// codegenHint points at the line of hack/update-codegen.sh that would
// regenerate code-generator's listers and informers (kube_codegen.sh's
// gen_client --with-watch): the edit the migration leaves to the user.
func codegenHint(w io.Writer, dir string, rel func(string) string) {
	name := filepath.Join(dir, "hack", "update-codegen.sh")
	src, err := os.ReadFile(name)
	if err != nil {
		return
	}
	for n, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "--with-watch") {
			fmt.Fprintf(w, "%s:%d: to do by hand: drop --with-watch (it regenerates code-generator's listers and informers) and run informer-gen here instead (docs/migrating.md)\n", rel(name), n+1)
		}
	}
}
