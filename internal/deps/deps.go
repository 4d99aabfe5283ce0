// Package deps pins the root module's dependencies while the packages that use
// them are written in parallel, so no two people edit go.mod at once.
// Remove it (and run go mod tidy) once every import below has a real user.
package deps

import (
	_ "github.com/go-logr/logr"
	_ "github.com/go-logr/logr/testr"
	_ "go.uber.org/goleak"
	_ "golang.org/x/tools/go/packages"
	_ "k8s.io/api/core/v1"
	_ "k8s.io/client-go/rest"
	_ "k8s.io/client-go/tools/cache"
	_ "k8s.io/client-go/tools/clientcmd"
	_ "k8s.io/client-go/util/workqueue"
	_ "k8s.io/gengo/v2"
	_ "k8s.io/gengo/v2/generator"
	_ "k8s.io/gengo/v2/parser"
	_ "k8s.io/klog/v2"
	_ "k8s.io/utils/clock"
)
