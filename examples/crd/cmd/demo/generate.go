package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"

	"github.com/informer-gen/informer-gen/generator"
)

const (
	modulePath   = "github.com/informer-gen/informer-gen/examples/crd"
	generatedPkg = modulePath + "/generated"
)

// generate runs informer-gen on the module's ./apis/... in --verify mode:
// it renders every file in memory and compares it with generated/, the code
// this binary was built from. It returns a summary, or an error naming the
// stale files. Outside the module's source tree (a copied binary) it skips.
func generate(ctx context.Context) (string, error) {
	root, ok := findModule()
	if !ok {
		return "skipped: not run from the examples/crd source tree", nil
	}
	err := generator.Run(ctx, generator.Config{
		Inputs:    []string{"./apis/..."},
		OutputDir: "./generated",
		OutputPkg: generatedPkg,
		Verify:    true,
		WorkDir:   root,
	})
	if errors.Is(err, generator.ErrStale) {
		return "", fmt.Errorf("%w\n(the demo runs the checked-in generated/: run examples/crd/hack/update-codegen.sh and rerun)", err)
	}
	if err != nil {
		return "", err
	}
	files, lines := 0, 0
	err = filepath.WalkDir(filepath.Join(root, "generated"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".go" {
			return err
		}
		b, err := os.ReadFile(path)
		files++
		lines += bytes.Count(b, []byte("\n"))
		return err
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("informer-gen ./apis/... -> %d files, %d lines, identical to generated/ (which this demo runs)", files, lines), nil
}

// findModule returns the examples/crd module root: the working directory or
// one of its parents whose go.mod declares modulePath.
func findModule() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && modfile.ModulePath(b) == modulePath {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
