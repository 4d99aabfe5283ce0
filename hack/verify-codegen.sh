#!/usr/bin/env bash
# Checks that all generated code is up to date, without touching the working
# tree: exits non-zero, naming the stale files, when anything would change.
#   - golden trees: the golden test generates every case into a temp dir and
#     compares it with testdata/golden/*/want (missing, extra and different
#     files fail) and want.stderr;
#   - examples/crd/generated: informer-gen --verify compares what it would
#     write with the disk and writes nothing (same flags as
#     examples/crd/hack/update-codegen.sh).
# Usage: hack/verify-codegen.sh
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
echo "== golden trees (testdata/golden)"
if ! go test ./generator -run 'TestGolden' -count=1; then
  echo "golden trees are stale: run hack/update-codegen.sh" >&2
  status=1
fi

if [ -d examples/crd/apis ] && [ -d examples/crd/generated ]; then
  echo "== examples/crd/generated"
  if ! (cd examples/crd && go run github.com/informer-gen/informer-gen/cmd/informer-gen --verify \
      --output-dir ./generated \
      --output-pkg github.com/informer-gen/informer-gen/examples/crd/generated \
      ./apis/...); then
    echo "examples/crd/generated is stale: run hack/update-codegen.sh" >&2
    status=1
  fi
fi
exit $status
