#!/usr/bin/env bash
# Runs the benchmark suite of docs/performance.md: builds the server and the
# benchmark program, generates libraries of 1,000 and 10,000 incidents
# (BENCH_100K=1 adds 100,000), measures them and rewrites the generated part
# of docs/performance.md. Extra arguments go to the benchmark program
# (go run ./internal/bench/cmd/bench -h lists them).
set -euo pipefail
cd "$(dirname "$0")/.."

sizes="${BENCH_SIZES:-1000,10000}"
if [ "${BENCH_100K:-}" = "1" ]; then
  sizes="$sizes,100000"
fi

bin="$(mktemp -d "${TMPDIR:-/tmp}/casebook-bench-bin.XXXXXX")"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/casebook" ./cmd/server
go build -o "$bin/bench" ./internal/bench/cmd/bench
"$bin/bench" -server "$bin/casebook" -sizes "$sizes" -work "$bin/work" -json "$bin/results.json" "$@"
if [ -n "${BENCH_JSON:-}" ]; then
  cp "$bin/results.json" "$BENCH_JSON"
fi

# The server inside the chart's memory limit at 10,000 incidents, under load
# (test/replicas; the 1,000-incident case runs in make test). It makes a
# memory cgroup, which needs root or a delegated cgroup; without one it
# skips and says so.
CASEBOOK_MEMORY_10K=1 go test ./test/replicas -run 'TestServerStaysInsideItsMemoryLimit/10000' -count=1 -v -timeout 20m
