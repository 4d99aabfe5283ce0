package generator_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/informer-gen/informer-gen/generator"
)

// Run the generator as cmd/informer-gen does: parse the flags, run, and map
// the error to an exit status.
func ExampleRun() {
	out, _ := os.MkdirTemp("", "informer-gen-example-")
	defer os.RemoveAll(out)

	cfg, err := generator.ParseArgs([]string{
		"--output-dir", out,
		"--output-pkg", "example.com/sample/generated",
		"./input/apis/...",
	}, os.Stderr)
	if err != nil {
		os.Exit(generator.ExitCode(err))
	}
	cfg.WorkDir = "../testdata/golden/samplecontroller" // usually the process working directory
	if err := generator.Run(context.Background(), cfg); err != nil {
		fmt.Println(err)
		return
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(out, p)
			fmt.Println(filepath.ToSlash(rel))
		}
		return err
	})
	// Output:
	// informers/factory.go
	// informers/generic.go
	// informers/samplecontroller/interface.go
	// informers/samplecontroller/v1alpha1/decode.go
	// informers/samplecontroller/v1alpha1/informers.go
	// listers/samplecontroller/v1alpha1/listers.go
}
