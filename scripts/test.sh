#!/usr/bin/env bash
# Runs the Go test suite. When the live-cluster harness can be built (see
# test/kubeharness), two instances are started for the run: one without
# controllers, whose tests write what controllers would
# (CASEBOOK_KUBEHARNESS_KUBECONFIG), and one running kube-controller-manager,
# where workloads create their own pods
# (CASEBOOK_KUBEHARNESS_CONTROLLERS_KUBECONFIG).
set -euo pipefail
cd "$(dirname "$0")/.."

started=()
cleanup() {
  for k in "${started[@]}"; do scripts/kubeharness.sh stop "$k" || true; done
}
trap 'cleanup' EXIT

if [ -x scripts/kubeharness.sh ] && [ "${CASEBOOK_SKIP_KUBEHARNESS:-}" != "1" ]; then
  if [ -z "${CASEBOOK_KUBEHARNESS_KUBECONFIG:-}" ]; then
    if out=$(scripts/kubeharness.sh start); then
      export CASEBOOK_KUBEHARNESS_KUBECONFIG="$out"
      started+=("$out")
    else
      echo "kube harness unavailable; live-cluster tests will skip (or fail under CI=true)" >&2
    fi
  fi
  if [ -z "${CASEBOOK_KUBEHARNESS_CONTROLLERS_KUBECONFIG:-}" ]; then
    if out=$(scripts/kubeharness.sh start --with-controllers); then
      export CASEBOOK_KUBEHARNESS_CONTROLLERS_KUBECONFIG="$out"
      started+=("$out")
    else
      echo "kube harness with controllers unavailable; its tests will skip (or fail under CI=true)" >&2
    fi
  fi
fi

go test -race -count=1 -timeout 30m ./...

# CI also runs every fuzz target briefly; make fuzz runs them longer.
# CI bounds each target by execution count, not by time: with a duration,
# Go before 1.27 can fail a target with a bare "context deadline exceeded"
# when the time is up on a loaded machine (a race in its fuzz coordinator,
# go.dev/issue/75804), and a count also does the same work on any runner.
if [ "${CI:-}" = "true" ]; then
  FUZZTIME=${CI_FUZZTIME:-3000x} scripts/fuzz.sh
fi
