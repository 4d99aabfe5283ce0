package generator

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// ownedDirs are the subtrees of the output dir the generator manages; stale
// generated files are only looked for there.
var ownedDirs = []string{"listers", "informers"}

// change is one difference between the rendered files and the disk.
type change struct {
	path string // relative to the output dir, slash-separated
	kind string // "create", "update", "remove"
}

// plan compares files with the output dir: files to create or update, and
// generated files (ours, by their header) that this run no longer produces.
func plan(outDir string, files []file) ([]change, error) {
	var changes []change
	want := map[string]bool{}
	for _, f := range files {
		want[f.path] = true
		old, err := os.ReadFile(filepath.Join(outDir, filepath.FromSlash(f.path)))
		switch {
		case errors.Is(err, fs.ErrNotExist) || isNotDir(err):
			changes = append(changes, change{f.path, "create"})
		case err != nil:
			return nil, err
		case !bytes.Equal(old, f.content):
			changes = append(changes, change{f.path, "update"})
		}
	}
	for _, d := range ownedDirs {
		root := filepath.Join(outDir, d)
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) || isNotDir(err) {
					return nil
				}
				return err
			}
			if e.IsDir() || !strings.HasSuffix(p, ".go") {
				return nil
			}
			rel, _ := filepath.Rel(outDir, p)
			rel = filepath.ToSlash(rel)
			if want[rel] {
				return nil
			}
			if ours, err := isGenerated(p); err != nil {
				return err
			} else if ours {
				changes = append(changes, change{rel, "remove"})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(changes, func(a, b change) int { return strings.Compare(a.path, b.path) })
	return changes, nil
}

func isNotDir(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "not a directory")
}

var packageClause = regexp.MustCompile(`(?m)^package `)

// isGenerated reports whether the file at p carries our generated-code line
// in its header (before the package clause).
func isGenerated(p string) (bool, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return false, err
	}
	head := b
	if loc := packageClause.FindIndex(b); loc != nil {
		head = b[:loc[0]]
	}
	return bytes.Contains(head, []byte(generatedBy)), nil
}

// write applies changes atomically in the sense the CLI promises: every file
// is first written to a temporary directory inside outDir; only when all
// were written are they renamed into place (a rename within one file system
// replaces the old file at once), then stale files are removed. On an error
// before the renames, nothing in outDir has changed.
func write(outDir string, files []file, changes []change, rel func(string) string) error {
	if len(changes) == 0 {
		return nil
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return outErr(err, rel)
	}
	tmp, err := os.MkdirTemp(outDir, ".informer-gen-")
	if err != nil {
		return outErr(err, rel)
	}
	defer os.RemoveAll(tmp)
	content := map[string][]byte{}
	for _, f := range files {
		content[f.path] = f.content
	}
	for _, c := range changes {
		if c.kind == "remove" {
			continue
		}
		p := filepath.Join(tmp, filepath.FromSlash(c.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return outErr(err, rel)
		}
		if err := os.WriteFile(p, content[c.path], 0o644); err != nil {
			return outErr(err, rel)
		}
	}
	// Create every target directory before moving anything, so that a
	// failure here (a file where a directory should be) leaves outDir as it
	// was, apart from empty directories.
	for _, c := range changes {
		if c.kind == "remove" {
			continue
		}
		if err := os.MkdirAll(filepath.Join(outDir, filepath.Dir(filepath.FromSlash(c.path))), 0o755); err != nil {
			return outErr(err, rel)
		}
	}
	// Every new file is in place before any stale one goes: removing a stale
	// file also removes its directory when that is left empty, which must
	// not happen to a directory a new file still has to be moved into.
	for _, c := range changes {
		if c.kind == "remove" {
			continue
		}
		dst := filepath.Join(outDir, filepath.FromSlash(c.path))
		if err := os.Rename(filepath.Join(tmp, filepath.FromSlash(c.path)), dst); err != nil {
			return outErr(err, rel)
		}
	}
	for _, c := range changes {
		if c.kind != "remove" {
			continue
		}
		dst := filepath.Join(outDir, filepath.FromSlash(c.path))
		if err := os.Remove(dst); err != nil {
			return outErr(err, rel)
		}
		removeEmptyParents(outDir, filepath.Dir(dst))
	}
	return nil
}

// removeEmptyParents removes dir and its parents up to (not including) root
// while they are empty.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root) {
		if err := os.Remove(dir); err != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// outErr wraps an I/O error of the write stage, with the path made relative
// to the working directory.
func outErr(err error, rel func(string) string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = rel(pe.Path)
	}
	return fmt.Errorf("cannot write output: %w", err)
}
