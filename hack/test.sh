#!/usr/bin/env bash
# Runs every check CI runs: gofmt, go vet, go test -race over every module in the
# repository, and the generated-code verification. Usage: hack/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Every Go module in the repo (the root one, the examples, integrations, benchmarks), found, not listed,
# so a new module is tested without editing this script.
mapfile -t modules < <(git ls-files --cached --others --exclude-standard -- '*go.mod' | grep -Ev '(^|/)testdata/' | xargs -n1 dirname | sort)

echo "== no build outputs tracked"
# A compiled binary in git costs every clone its size forever; build outputs belong in .gitignore.
# Binaries are found by their magic number (ELF, Mach-O, PE), so a new name cannot slip through.
# git grep -I lists the text files; only the rest (a handful) are read for a magic number.
binaries=$(comm -23 <(git ls-files | sort) <(git grep -I --name-only -e '' | sort) | while IFS= read -r f; do
  [ -f "$f" ] || continue
  case "$(head -c 4 -- "$f" | od -An -tx1 | tr -d ' \n')" in
    7f454c46|cffaedfe|cefaedfe|feedfacf|feedface|4d5a*) echo "$f" ;;
  esac
done)
if [ -n "$binaries" ]; then
  echo "compiled binaries are tracked (remove them and list them in .gitignore):"; echo "$binaries"; exit 1
fi

echo "== gofmt"
bad=$(git ls-files --cached --others --exclude-standard -- '*.go' | grep -Ev '(^|/)testdata/' | xargs -r gofmt -l)
if [ -n "$bad" ]; then
  echo "gofmt needed on:"; echo "$bad"; exit 1
fi

echo "== no hand-written Go file over 600 lines"
# A file past 600 lines holds more than one idea; split it by purpose (issue 48). Tests, testdata
# and generated files (the "Code generated ... DO NOT EDIT." header) are exempt.
long=$(git ls-files --cached --others --exclude-standard -- '*.go' | grep -Ev '(^|/)testdata/|_test\.go$' | while IFS= read -r f; do
  [ -f "$f" ] || continue
  n=$(wc -l < "$f")
  if [ "$n" -gt 600 ] && ! head -n 20 -- "$f" | grep -q '^// Code generated .* DO NOT EDIT\.$'; then echo "$f: $n lines"; fi
done)
if [ -n "$long" ]; then
  echo "hand-written Go files over 600 lines (split them by purpose):"; echo "$long"; exit 1
fi

# -race: vet type-checks against compiled dependencies, and with the same flags as
# go test -race below it reuses them; plain go vet compiled every dependency (the
# API server's included) a second time, without the race detector.
for m in "${modules[@]}"; do
  echo "== go vet ($m)"
  (cd "$m" && go vet -race ./...)
done

# -race here too, so that the golden trees compile against the race-built
# packages go vet -race just compiled, not against a second, uninstrumented
# copy of k8s.io/api and its dependencies (2.5 minutes on a cold cache).
if [ -d testdata/golden ]; then
  echo "== golden output trees compile"
  go build -race ./testdata/golden/...
fi

# -timeout is a safety net for a hung test, not a speed check: ./generator
# (it builds and vets every golden tree) took 24 minutes with two CPU hogs
# and other builds on 2 cores, 4–5 on a quiet machine.
# -vet=off: go vet -race above ran every analyzer over the same packages with
# the same flags; go test's own vet pass (a subset of the analyzers, so a
# different cache key) would analyze every dependency once more for facts —
# 1,790 packages in a module that builds kube-apiserver, 5 CPU minutes cold.
# A module that builds k8s.io/kubernetes starts a kube-apiserver in more than one
# test package: those run one at a time (-p 1). kube-apiserver's rbac/bootstrap-roles
# start-up hook gives up after a fixed 30 s and exits the process, and two race-built
# servers starting at once on a busy 2-core machine missed it.
for m in "${modules[@]}"; do
  echo "== go test -race ($m)"
  p=()
  if grep -q '^[[:space:]]*k8s.io/kubernetes ' "$m/go.mod"; then p=(-p 1); fi
  (cd "$m" && go test -race -vet=off -count=1 -timeout 60m "${p[@]}" ./...)
done

# The next Kubernetes minor, on the Go it needs: the root module's tests (the
# runtime, the generator, the command, the generated trees) again with
# k8s.io/api, apimachinery and client-go raised as hack/next.mod raises them
# (hack/update-next.sh writes it from go.mod), since a user who takes the new
# client-go the day it is out gets our runtime with it. go.mod keeps the
# oldest versions we support. The go command fetches the toolchain named in
# next.mod through the module proxy. Without -race: the first leg ran every
# test under the race detector, and a second race-built copy of the graph
# would double this leg's cost.
if [ -f hack/next.mod ]; then
  next_go=$(awk '$1 == "toolchain" { print $2 }' hack/next.mod)
  next_k8s=$(awk '$1 == "k8s.io/client-go" { print $2 }' hack/next.mod)
  echo "== go vet, go test (root module on k8s.io $next_k8s, $next_go)"
  next_start=$SECONDS
  GOTOOLCHAIN=$next_go go vet -modfile=hack/next.mod ./...
  # Code generated on the older minor still compiles after a user raises
  # client-go without generating again (generator's TestGenerateOnNextMinor
  # generates on the newer one).
  GOTOOLCHAIN=$next_go go build -modfile=hack/next.mod ./testdata/golden/...
  GOTOOLCHAIN=$next_go go test -modfile=hack/next.mod -vet=off -count=1 -timeout 60m ./...
  echo "== the next minor's leg took $((SECONDS - next_start)) s"
fi

if [ -x hack/verify-codegen.sh ]; then
  echo "== verify-codegen"
  # The root module's go test above already ran the checks verify-codegen
  # runs through go test (the shared decoders, the golden trees).
  hack/verify-codegen.sh --skip-go-tests
fi
echo "== all checks passed in $SECONDS s"
