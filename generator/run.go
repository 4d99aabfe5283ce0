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
//
// The stages run in order, each on the value the one before returns:
// load (*loaded), readMarkers (*marked), buildModel (*Model), render
// ([]file), then writeOutput.
func Run(ctx context.Context, cfg Config) error {
	logger := klog.FromContext(ctx)
	wd, err := workDir(cfg)
	if err != nil {
		return err
	}
	cfg.WorkDir = wd
	rel := relativeTo(wd)
	outDir := abs(wd, cfg.OutputDir)

	header, diags := readHeader(cfg)
	in, ds, err := load(ctx, cfg, rel)
	if err != nil {
		return err
	}
	diags = append(diags, ds...)
	if in == nil || len(in.pkgs) == 0 {
		if len(diags) == 0 {
			diags = append(diags, Diagnostic{Subject: strings.Join(cfg.Inputs, " "), Message: "no input packages to generate for"})
		}
		return diags.sorted()
	}
	logger.V(4).Info("loaded input packages", "count", len(in.pkgs), "graph", in.listed, "dependenciesChecked", in.checked)
	outputPkg, ds := outputPackage(cfg, outDir)
	diags = append(diags, ds...)

	marked, ds := readMarkers(in)
	diags = append(diags, ds...)
	model, ds, unselected := buildModel(logger, marked, modelOptions{outputPkg: outputPkg, pluralExceptions: cfg.pluralExceptions(), jsonDecoders: cfg.JSONDecoders, projections: cfg.Projections, groupGoNames: cfg.GroupGoNames})
	diags = append(diags, ds...)
	diags, warnings := diags.split()
	printWarnings(cfg, warnings)
	if len(diags) == 0 {
		if diags, err = in.checkImports(ctx, model); err != nil {
			return err
		}
		logger.V(4).Info("checked what the output imports", "dependenciesChecked", in.checked)
	}
	if len(diags) == 0 {
		diags = unselected
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
	return writeOutput(logger, cfg, outDir, files, rel)
}

// printWarnings writes warnings to cfg.Warnings (os.Stderr when nil), one
// per line.
func printWarnings(cfg Config, warnings Diagnostics) {
	if len(warnings) == 0 {
		return
	}
	w := cfg.Warnings
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintln(w, warnings.Error())
}

// readHeader reads --go-header-file, with kubebuilder's YEAR filled in.
func readHeader(cfg Config) ([]byte, Diagnostics) {
	if cfg.HeaderFile == "" {
		return nil, nil
	}
	b, err := os.ReadFile(abs(cfg.WorkDir, cfg.HeaderFile))
	if err != nil {
		msg := "cannot read header file"
		if errors.Is(err, fs.ErrNotExist) {
			msg = "header file does not exist"
		}
		return nil, Diagnostics{{Subject: "--go-header-file " + cfg.HeaderFile, Message: msg}}
	}
	return fillYear(b, cfg.Year), nil
}
