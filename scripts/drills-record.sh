#!/usr/bin/env bash
# Stages each drill's failure on a fresh API-server harness and records it
# with the live reader ("casebook drill record"), as real API output.
#
#   scripts/drills-record.sh [ID...]     (default: every test/drillstage/scenarios/*.yaml)
#
# A scenario whose Scenario document says "controllers: true" gets a harness
# with kube-controller-manager (workloads create their pods, ReplicaSets
# record FailedCreate). Each run also saves what kubectl itself prints for
# the drill's commands under internal/kubectl/testdata/real/ID/, which the
# renderer's tests compare with.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bin="$(mktemp -d "${TMPDIR:-/tmp}/drills-record.XXXXXX")"
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/drillstage" ./test/drillstage
go build -o "$bin/casebook" ./cmd/server

ids=("$@")
if [[ ${#ids[@]} -eq 0 ]]; then
	for f in test/drillstage/scenarios/*.yaml; do ids+=("$(basename "$f" .yaml)"); done
fi

failed=()
for id in "${ids[@]}"; do
	scen="test/drillstage/scenarios/$id.yaml"
	[[ -f "$scen" ]] || { echo "no scenario $scen" >&2; exit 1; }
	dir="$(mktemp -d "${TMPDIR:-/tmp}/drill-$id.XXXXXX")"
	flags=()
	if grep -q '^controllers: true' "$scen"; then flags+=(--with-controllers); fi
	kc="$(scripts/kubeharness.sh start "${flags[@]}" "$dir")"
	"$bin/drillstage" --kubeconfig "$kc" --scenario "$scen" --ready "$dir/staged" >"$dir/stage.log" 2>&1 &
	stage=$!
	# drillstage bounds its own staging (--timeout, or the scenario's
	# stageTimeout when a controller's deadline must pass first).
	while [[ ! -f "$dir/staged" ]] && kill -0 "$stage" 2>/dev/null; do
		sleep 0.5
	done
	if [[ ! -f "$dir/staged" ]]; then
		echo "drills-record: $id: staging failed:" >&2
		cat "$dir/stage.log" >&2
		kill "$stage" 2>/dev/null || true
		scripts/kubeharness.sh stop "$dir"
		failed+=("$id")
		continue
	fi
	{ read -r ns; read -r target; read -r route; } <"$dir/staged"
	if ! "$bin/casebook" drill record --kubeconfig "$kc" -n "$ns" "$target" --route "$route" --id "$id" --dir library/drills; then
		failed+=("$id")
	fi
	if command -v kubectl >/dev/null; then
		out="internal/kubectl/testdata/real/$id"
		rm -rf "$out" && mkdir -p "$out"
		cp "library/drills/$id.snapshot.json" "$out/snapshot.json"
		n=0
		while IFS= read -r cmd; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			kubectl --kubeconfig "$kc" $cmd >"$out/$n.txt" 2>&1 || true
			printf '%s\n' "$cmd" >"$out/$n.cmd"
		done < <("$bin/casebook" drill commands "$id" --library library)
	fi
	kill "$stage" 2>/dev/null || true
	wait "$stage" 2>/dev/null || true
	scripts/kubeharness.sh stop "$dir"
	rm -rf "$dir"
done
if [[ ${#failed[@]} -gt 0 ]]; then
	echo "drills-record: failed: ${failed[*]}" >&2
	exit 1
fi
