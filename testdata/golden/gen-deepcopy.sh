#!/usr/bin/env bash
# Regenerates the zz_generated.deepcopy.go files of the golden input packages
# with upstream deepcopy-gen (the inputs are hand-written API packages and need
# DeepCopy funcs to compile). Run it after editing an input's types; the
# generator itself does not need it. Usage: testdata/golden/gen-deepcopy.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install k8s.io/code-generator/cmd/deepcopy-gen@v0.37.2
mapfile -t pkgs < <(grep -rl --include='*.go' -e '+k8s:deepcopy-gen' testdata/golden/*/input | xargs -n1 dirname | sort -u | sed 's|^|./|')
"$bin/deepcopy-gen" --go-header-file testdata/golden/boilerplate.go.txt --output-file zz_generated.deepcopy.go "${pkgs[@]}"
