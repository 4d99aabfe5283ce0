#!/usr/bin/env bash
# Checks that all generated code is up to date, without touching the working
# tree: exits non-zero, naming the stale files, when anything would change.
#   - the shared decoders (runtime/wire/json_generated_metav1.go,
#     runtime/wire/corev1/json_generated.go) and the generator's table of
#     runtime/wire/corev1's functions (generator/decode/shared_corev1.go):
#     generator/decode's TestSharedFile plans them again and compares;
#   - golden trees: the golden test generates every case into a temp dir and
#     compares it with testdata/golden/*/want (missing, extra and different
#     files fail) and want.stderr;
#   - examples/crd/generated: informer-gen --verify compares what it would
#     write with the disk and writes nothing (same flags as
#     examples/crd/hack/update-codegen.sh).
# Usage: hack/verify-codegen.sh [--skip-go-tests]
#   --skip-go-tests: leave out the two checks that are go tests of the root
#   module (TestSharedFile, TestGolden), for a caller that has just run them
#   (hack/test.sh runs go test -race ./... first).
set -euo pipefail
cd "$(dirname "$0")/.."

gotests=1
case "${1:-}" in
  "") ;;
  --skip-go-tests) gotests=0 ;;
  *) echo "usage: hack/verify-codegen.sh [--skip-go-tests]" >&2; exit 2 ;;
esac

status=0
if [ "$gotests" = 1 ]; then
  echo "== shared decoders (runtime/wire, runtime/wire/corev1, generator/decode's table)"
  if ! go test ./generator/decode -run 'TestSharedFile' -count=1; then
    echo "the shared decoders are stale: run hack/update-codegen.sh" >&2
    status=1
  fi

  echo "== golden trees (testdata/golden)"
  if ! go test ./generator -run 'TestGolden' -count=1; then
    echo "golden trees are stale: run hack/update-codegen.sh" >&2
    status=1
  fi
fi

echo "== bench/generated (informer-gen --verify)"
if ! go run ./cmd/informer-gen --verify --json-decoders all --output-dir ./bench/generated \
  --projection 'k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase;.status.podIP;.status.conditions' \
  k8s.io/api/core/v1; then
  echo "bench/generated is stale: run hack/update-codegen.sh" >&2
  status=1
fi

if [ -x examples/crd/hack/verify-codegen.sh ]; then
  # The example project's own check: deepcopy and CRD manifests
  # (controller-gen) and its informers/listers (informer-gen --verify).
  echo "== examples/crd"
  if ! examples/crd/hack/verify-codegen.sh; then
    echo "examples/crd is stale: run hack/update-codegen.sh" >&2
    status=1
  fi
fi
if [ -x examples/builtin/hack/update-codegen.sh ]; then
  echo "== examples/builtin (informer-gen --verify)"
  if ! examples/builtin/hack/update-codegen.sh --verify; then
    echo "examples/builtin/generated is stale: run hack/update-codegen.sh" >&2
    status=1
  fi
fi
if [ -d examples/kubebuilder ]; then
  # The kubebuilder example's informers and listers, as its `make generate`
  # writes them (go tool informer-gen, through the module's tool line).
  echo "== examples/kubebuilder (informer-gen --verify)"
  if ! (cd examples/kubebuilder && go tool informer-gen --verify --output-dir ./internal/generated ./api/...); then
    echo "examples/kubebuilder is stale: run make generate in examples/kubebuilder" >&2
    status=1
  fi
fi
exit $status
