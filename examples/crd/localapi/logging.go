package localapi

import (
	"flag"
	"io"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// QuietKlog silences klog's global logger, which the API server, etcd's gRPC
// glue and client-go log through (~45 lines per start and stop). Code that
// logs through a logger of its own in ctx (klog.NewContext) is unaffected.
// Call it once, early in main or TestMain; it is not safe for concurrent use
// with logging.
func QuietKlog() {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("stderrthreshold", "FATAL")
	_ = fs.Set("v", "0")
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	klog.SetLogger(logr.Discard())
}
