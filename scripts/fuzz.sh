#!/usr/bin/env bash
# Runs every Go fuzz target of the module for a bounded time each
# (FUZZTIME, default 30s; a count such as 3000x bounds it by executions
# instead). A crasher is written by go test under the package's
# testdata/fuzz/<Target>/ and fails the run: commit it, and it becomes a
# regression test that every `go test` replays.
set -euo pipefail
cd "$(dirname "$0")/.."
FUZZTIME=${FUZZTIME:-30s}
status=0
while IFS= read -r line; do
  file=${line%%:*}
  target=$(sed -E 's/.*func (Fuzz[A-Za-z0-9_]+).*/\1/' <<<"$line")
  pkg=./$(dirname "$file")
  echo "== $pkg $target ($FUZZTIME)"
  if ! go test -run '^$' -fuzz "^${target}\$" -fuzztime "$FUZZTIME" -parallel 1 "$pkg"; then
    status=1
  fi
done < <(grep -rn --include='*_test.go' -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' . | grep -v '^./test/kubeharness')
exit $status
