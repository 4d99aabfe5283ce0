#!/usr/bin/env bash
# Regenerates this module's informers, listers and projections of built-in
# kinds (k8s.io/api core/v1 and coordination/v1) with the repository's
# informer-gen. Usage: hack/update-codegen.sh [--verify]   (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/../../.."
go run ./cmd/informer-gen "$@" \
  --output-dir ./examples/builtin/generated \
  --output-pkg github.com/informer-gen/informer-gen/examples/builtin/generated \
  --projection 'k8s.io/api/core/v1.Pod:PodSummary=.spec.nodeName;.status.phase;.status.podIP;.status.conditions' \
  --projection 'k8s.io/api/core/v1.Secret:SecretKeys=.type;.data:keys' \
  --plural-exceptions SecretKeys:SecretKeys \
  k8s.io/api/core/v1 k8s.io/api/coordination/v1
