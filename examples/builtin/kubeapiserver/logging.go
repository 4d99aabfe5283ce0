package kubeapiserver

import (
	"flag"
	"io"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
)

// QuietKlog silences klog's global logger, which the API server, etcd's gRPC
// glue and client-go log through (~45 lines per start and stop). Code that
// logs through a logger of its own in ctx (klog.NewContext) is unaffected.
// Only the first call changes anything (later calls return at once), so it
// may be called from several places; call it early, in main or TestMain,
// before any server logs: the first call is not safe for concurrent use with
// logging.
func QuietKlog() { quietOnce.Do(quietKlog) }

var quietOnce sync.Once

func quietKlog() {
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
