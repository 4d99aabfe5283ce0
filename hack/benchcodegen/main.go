// Command benchcodegen is the measuring half of hack/bench-codegen.sh: it runs
// generator commands, records wall time, CPU time and peak RSS, counts
// generated lines, and prints the side-by-side table with ratios.
//
// It exists because the numbers must come from the same process tree on every
// machine: /usr/bin/time is missing on fresh CI images and its output format
// differs between GNU and BSD. The peak RSS of a command is taken from
// wait4(2)'s rusage, which on Linux is the largest resident set of the command
// and of every descendant it waited for (the `go list` that gengo spawns),
// exactly what GNU time reports as "Maximum resident set size".
//
// Usage:
//
//	benchcodegen measure -case crd -results r.tsv -runs 5 -clean out/ \
//	    -- @ours informer-gen ... @upstream:lister-gen lister-gen ... @upstream:informer-gen informer-gen ...
//	benchcodegen lines -case kapi -contender ours -results r.tsv out/ours
//	benchcodegen report r.tsv
//	go build -toolexec 'benchcodegen toolexec -log c.tsv' ./...   # one line per compile
//	benchcodegen compiles -case kapi -contender ours -results r.tsv c.tsv
//
// Every subcommand appends to or reads one results file of tab-separated rows
// (case, contender, metric, value); see [row].
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	if len(os.Args) > 1 && os.Args[1] == "toolexec" {
		// Called by go build for every tool run: the tool's exit status is ours.
		code, err := toolexecCmd(os.Args[2:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchcodegen:", err)
		}
		os.Exit(code)
	}
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchcodegen:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: benchcodegen measure|lines|report|compiles|toolexec [flags] ...")
	}
	switch args[0] {
	case "measure":
		return measureCmd(ctx, args[1:], os.Stdout)
	case "lines":
		return linesCmd(args[1:], os.Stdout)
	case "report":
		return reportCmd(args[1:], os.Stdout)
	case "compiles":
		return compilesCmd(args[1:], os.Stdout)
	default:
		return fmt.Errorf("unknown subcommand %q (want measure, lines, report, compiles or toolexec)", args[0])
	}
}
