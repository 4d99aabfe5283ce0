package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/klog/v2"
)

// Run generates the listers, informers and factory for cfg. It loads the
// input once, collects every input problem and returns them together as
// Diagnostics (sorted by position) without writing anything; otherwise it
// writes the output atomically and removes stale generated files. In verify
// mode it writes nothing and returns an error wrapping ErrStale that lists
// the files that would change. Cancelling ctx stops package loading.
// Run is safe for concurrent use with distinct output directories.
func Run(ctx context.Context, cfg Config) error {
	logger := klog.FromContext(ctx)
	wd := cfg.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return err
		}
	}
	wd, _ = filepath.Abs(wd)
	cfg.WorkDir = wd
	rel := relativeTo(wd)

	var diags Diagnostics
	var header []byte
	if cfg.HeaderFile != "" {
		b, err := os.ReadFile(abs(wd, cfg.HeaderFile))
		if err != nil {
			msg := "cannot read header file"
			if errors.Is(err, fs.ErrNotExist) {
				msg = "header file does not exist"
			}
			diags = append(diags, Diagnostic{Subject: "--go-header-file " + cfg.HeaderFile, Message: msg})
		}
		header = fillYear(b, cfg.Year)
	}

	l, ds, err := load(ctx, cfg, rel)
	if err != nil {
		return err
	}
	diags = append(diags, ds...)
	if l != nil {
		logger.V(4).Info("loaded input packages", "count", len(l.pkgs), "graph", l.listed, "dependenciesChecked", l.checked)
	}

	outDir := abs(wd, cfg.OutputDir)
	outputPkg := cfg.OutputPkg
	if l != nil && len(l.pkgs) > 0 {
		derived, err := derivePkg(outDir)
		switch {
		case outputPkg == "" && err != nil:
			diags = append(diags, Diagnostic{Subject: "--output-dir " + cfg.OutputDir,
				Message: "cannot derive the output import path: " + err.Error(),
				Hint:    "set --output-pkg"})
		case outputPkg == "":
			outputPkg = derived
		case err == nil && derived != outputPkg:
			// The generated packages import each other by outputPkg: a
			// mismatch writes code that does not compile. (Outside any
			// module there is nothing to check against.)
			diags = append(diags, Diagnostic{Subject: "--output-pkg " + cfg.OutputPkg,
				Message: fmt.Sprintf("does not match the import path of --output-dir %s, which is %s according to its go.mod", cfg.OutputDir, derived),
				Hint:    "drop --output-pkg, or set it to " + derived})
		}
	}
	var model *Model
	if l != nil && len(l.pkgs) > 0 {
		var ds Diagnostics
		model, ds = buildModel(logger, l, cfg, outputPkg, rel)
		diags = append(diags, ds...)
	}
	if model == nil && len(diags) == 0 {
		diags = append(diags, Diagnostic{Subject: strings.Join(cfg.Inputs, " "), Message: "no input packages to generate for"})
	}
	if len(diags) > 0 {
		return diags.sorted()
	}
	files, err := render(model, header, func(dir, kind string) bool {
		_, err := os.Stat(filepath.Join(outDir, filepath.FromSlash(dir), strings.ToLower(kind)+"_expansion.go"))
		return err == nil
	})
	if err != nil {
		return err
	}
	changes, conflicts, err := plan(outDir, files, rel)
	if err != nil {
		return fmt.Errorf("cannot read output dir: %w", err)
	}
	if len(conflicts) > 0 {
		return conflicts.sorted()
	}
	if cfg.Verify {
		if len(changes) == 0 {
			return nil
		}
		lines := make([]string, len(changes))
		for i, c := range changes {
			lines[i] = fmt.Sprintf("%s: would %s", filepath.Join(cfg.OutputDir, filepath.FromSlash(c.path)), c.kind)
		}
		return fmt.Errorf("%w; run informer-gen without --verify:\n%s", ErrStale, strings.Join(lines, "\n"))
	}
	if err := write(outDir, files, changes, rel); err != nil {
		return err
	}
	logger.V(2).Info("generated", "files", len(files), "changed", len(changes))
	return nil
}

func abs(wd, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(wd, p)
}

// relativeTo returns a func that makes file names relative to wd when they
// are below it, so that messages are stable.
func relativeTo(wd string) func(string) string {
	return func(p string) string {
		if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		return p
	}
}

// derivePkg finds the import path of dir from the go.mod above it.
func derivePkg(dir string) (string, error) {
	d := dir
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			mod := modulePath(b)
			if mod == "" {
				return "", fmt.Errorf("no module line in %s", filepath.Join(d, "go.mod"))
			}
			r, _ := filepath.Rel(d, dir)
			if r == "." {
				return mod, nil
			}
			return mod + "/" + filepath.ToSlash(r), nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is not inside a Go module", dir)
		}
		d = parent
	}
}

func modulePath(gomod []byte) string {
	for line := range strings.SplitSeq(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}
