// Command fleet-client is the measured side of bench-fleet (see the
// bench-fleet command's doc): measure, compare and member run against the
// clusters of an endpoints file written by "bench-fleet serve". It links
// only the runtime and the example's generated informers (no API server
// code), as a controller binary would, so its RSS is a controller's.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: fleet-client measure|compare|member [flags]")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{"measure": measure, "compare": compare, "member": member}
	if os.Getenv("BENCH_FLEET_DEBUG") != "" {
		runtime.MemProfileRate = 1
	}
	cmd, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "fleet-client: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := cmd(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "fleet-client %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// quietKlog discards the runtime's log lines (an unreachable cluster's
// retries would fill the output).
func quietKlog() {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	klog.SetLogger(logr.Discard())
}
