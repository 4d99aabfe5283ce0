#!/usr/bin/env bash
# Regenerates everything informer-gen generates in this repository:
#   - the shared decoders generated packages call: runtime/wire's of
#     apimachinery types (runtime/wire/json_generated_metav1.go),
#     runtime/wire/corev1's of the core/v1 types custom resources embed
#     (runtime/wire/corev1/json_generated.go) and the generator's table of
#     the latter (generator/decode/shared_corev1.go), all written by
#     generator/decode's planner: go test ./generator/decode -run
#     TestSharedFile -update. They come first: the goldens use the table;
#   - the golden expected trees, testdata/golden/*/want and want.stderr
#     (go test ./generator -run Golden -update rewrites them wholesale);
#   - bench/generated (core/v1 with JSON decoders, for benchmarks and tests);
#   - the example project's code, through examples/crd/hack/update-codegen.sh
#     when it exists (that module owns how it is generated);
#   - the kubebuilder example's informers and listers, as its `make generate`
#     writes them.
# Review the diff before committing: a golden change is a change of the
# generated API. Usage: hack/update-codegen.sh
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== shared decoders (runtime/wire, runtime/wire/corev1, generator/decode's table)"
go test ./generator/decode -run 'TestSharedFile' -count=1 -update

echo "== golden trees (testdata/golden)"
go test ./generator -run 'TestGolden' -count=1 -update

# bench's generated decoders of core/v1 (the Pod decode benchmarks and
# runtime/wire's differential tests use them): all kinds, JSON decoders on;
# and PodSummary, the projection bench/decode_projection_test.go measures.
echo "== bench/generated (k8s.io/api/core/v1, --json-decoders all, PodSummary)"
go run ./cmd/informer-gen --json-decoders all --output-dir ./bench/generated \
  --projection 'k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase;.status.podIP;.status.conditions' \
  k8s.io/api/core/v1

if [ -x examples/crd/hack/update-codegen.sh ]; then
  echo "== examples/crd"
  examples/crd/hack/update-codegen.sh
fi

if [ -x examples/builtin/hack/update-codegen.sh ]; then
  echo "== examples/builtin"
  examples/builtin/hack/update-codegen.sh
fi

if [ -d examples/kubebuilder ]; then
  # What the kubebuilder example's `make generate` runs for informer-gen.
  echo "== examples/kubebuilder"
  (cd examples/kubebuilder && go tool informer-gen --output-dir ./internal/generated ./api/...)
fi
