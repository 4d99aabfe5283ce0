// Command informer-gen generates typed listers, informers, index funcs and a
// shared informer factory for Kubernetes API types. See package generator.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/informer-gen/informer-gen/generator"
)

func main() {
	cfg, err := generator.ParseArgs(os.Args[1:], os.Stderr)
	if err == nil {
		if err = generator.Run(context.Background(), cfg); err != nil {
			fmt.Fprintln(os.Stderr, err)
		}
	}
	os.Exit(generator.ExitCode(err))
}
