#!/usr/bin/env bash
# Runs the Go test suite. When the live-cluster harness can be built (see
# test/kubeharness), it is started once for the run and its kubeconfig is
# passed to the tests through CASEBOOK_KUBEHARNESS_KUBECONFIG.
set -euo pipefail
cd "$(dirname "$0")/.."

cleanup() { :; }
trap 'cleanup' EXIT

if [ -z "${CASEBOOK_KUBEHARNESS_KUBECONFIG:-}" ] && [ -x scripts/kubeharness.sh ] && [ "${CASEBOOK_SKIP_KUBEHARNESS:-}" != "1" ]; then
  if out=$(scripts/kubeharness.sh start); then
    export CASEBOOK_KUBEHARNESS_KUBECONFIG="$out"
    cleanup() { scripts/kubeharness.sh stop "$CASEBOOK_KUBEHARNESS_KUBECONFIG" || true; }
  else
    echo "kube harness unavailable; live-cluster tests will skip (or fail under CI=true)" >&2
  fi
fi

go test -race -count=1 -timeout 30m ./...

# CI also runs every fuzz target briefly; make fuzz runs them longer.
if [ "${CI:-}" = "true" ]; then
  FUZZTIME=${CI_FUZZTIME:-5s} scripts/fuzz.sh
fi
