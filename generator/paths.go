package generator

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Paths: every file name and import path the stages read, write or report
// is resolved here, against Config.WorkDir.

// ownedDirs are the subtrees of the output dir the generator manages; stale
// generated files are only looked for there.
var ownedDirs = []string{"listers", "informers", "projections"}

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

func isLocalPattern(s string) bool {
	return s == "." || s == ".." || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || filepath.IsAbs(s)
}

// inOutput reports whether p lies in the listers/ or informers/ tree of the
// output dir.
func inOutput(cfg Config, p *packages.Package) bool {
	if len(p.GoFiles) == 0 {
		return false
	}
	dir := filepath.Dir(p.GoFiles[0])
	out := abs(cfg.WorkDir, cfg.OutputDir)
	for _, d := range ownedDirs {
		root := filepath.Join(out, d)
		if dir == root || strings.HasPrefix(dir, root+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func dirOf(p *packages.Package, cfg Config) string {
	if len(p.GoFiles) > 0 {
		return filepath.Dir(p.GoFiles[0])
	}
	if strings.HasPrefix(p.ID, ".") || filepath.IsAbs(p.ID) {
		return abs(cfg.WorkDir, p.ID)
	}
	for _, f := range p.IgnoredFiles {
		return filepath.Dir(f)
	}
	return ""
}

// matchesPattern reports whether p is one of the packages a ... pattern
// names.
func matchesPattern(cfg Config, pattern string, p *packages.Package) bool {
	prefix := strings.TrimSuffix(strings.TrimSuffix(pattern, "..."), "/")
	if !isLocalPattern(pattern) {
		return p.PkgPath == prefix || strings.HasPrefix(p.PkgPath, prefix)
	}
	root := abs(cfg.WorkDir, prefix)
	dir := dirOf(p, cfg)
	return dir == root || strings.HasPrefix(dir, root+string(filepath.Separator))
}

// explicitInputs returns a func reporting whether a package was named on
// the command line by itself, rather than matched by a ... pattern.
func explicitInputs(cfg Config) func(*packages.Package) bool {
	paths, dirs := map[string]bool{}, map[string]bool{}
	for _, in := range cfg.Inputs {
		switch {
		case strings.Contains(in, "..."):
		case isLocalPattern(in):
			dirs[filepath.Clean(abs(cfg.WorkDir, in))] = true
		default:
			paths[in] = true
		}
	}
	return func(p *packages.Package) bool {
		if paths[p.PkgPath] {
			return true
		}
		return len(p.GoFiles) > 0 && dirs[filepath.Dir(p.GoFiles[0])]
	}
}

// outputPackage is the import path of outDir: --output-pkg, or derived from
// the go.mod above outDir. A --output-pkg that differs from the derived one
// is an error: the generated packages import each other by it, so a
// mismatch writes code that does not compile. (Outside any module there is
// nothing to check against.)
func outputPackage(cfg Config, outDir string) (string, Diagnostics) {
	derived, err := derivePkg(outDir)
	switch {
	case cfg.OutputPkg == "" && err != nil:
		return "", Diagnostics{{Subject: "--output-dir " + cfg.OutputDir,
			Message: "cannot derive the output import path: " + err.Error(),
			Hint:    "set --output-pkg"}}
	case cfg.OutputPkg == "":
		return derived, nil
	case err == nil && derived != cfg.OutputPkg:
		return cfg.OutputPkg, Diagnostics{{Subject: "--output-pkg " + cfg.OutputPkg,
			Message: fmt.Sprintf("does not match the import path of --output-dir %s, which is %s according to its go.mod", cfg.OutputDir, derived),
			Hint:    "drop --output-pkg, or set it to " + derived}}
	}
	return cfg.OutputPkg, nil
}

// workDir is cfg.WorkDir made absolute; "" is the process working
// directory.
func workDir(cfg Config) (string, error) {
	wd := cfg.WorkDir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	return filepath.Abs(wd)
}
