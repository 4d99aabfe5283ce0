// Command informer-gen generates typed listers, informers, index funcs and a
// shared informer factory for Kubernetes API types. See package generator.
package main

import (
	"context"
	"fmt"
	"os"

	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/informer-gen/informer-gen/generator"
	"github.com/informer-gen/informer-gen/generator/migrate"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "migrate" {
		os.Exit(migrate.Main(context.Background(), os.Args[2:], os.Stdout, os.Stderr))
	}
	cfg, err := generator.ParseArgs(os.Args[1:], os.Stderr)
	if err == nil && cfg.PrintVersion {
		fmt.Println("informer-gen", generator.ModuleVersion())
		return
	}
	if err == nil {
		logger := textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(cfg.Verbosity), textlogger.Output(os.Stderr)))
		ctx := klog.NewContext(context.Background(), logger)
		if err = generator.Run(ctx, cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(generator.ExitCode(err))
}
