#!/usr/bin/env bash
# Builds (once) and starts the in-process Kubernetes control plane used by the
# cluster reader's tests. See test/kubeharness/README.md.
#
#   scripts/kubeharness.sh build         build or reuse the cached binary, print its path
#   scripts/kubeharness.sh start [--with-controllers] [DIR]
#                                        start it in the background, wait until ready,
#                                        print the admin kubeconfig path (DIR defaults to a temp dir);
#                                        --with-controllers also runs kube-controller-manager
#   scripts/kubeharness.sh stop [DIR]    stop the instance started in DIR (default: the last one started)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$root/test/kubeharness"
k8s_version="v1.37.2"
cache_root="${CASEBOOK_KUBEHARNESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/casebook-kubeharness}"

# The cache key covers everything that changes the binary: the harness's
# go.mod, go.sum and sources, and the Go toolchain.
harness_hash() {
	(
		cd "$src"
		go version
		sha256sum go.mod go.sum $(ls *.go | sort)
	) | sha256sum | cut -c1-16
}

build() {
	local bin="$cache_root/$(harness_hash)/kubeharness"
	if [[ -x "$bin" ]]; then
		echo "$bin"
		return
	fi
	mkdir -p "$(dirname "$bin")"
	local minor="${k8s_version#v1.}"
	minor="${minor%%.*}"
	# Clients refuse an API server whose version they cannot parse, and a
	# binary built from the module cache has no version stamped in.
	local pkg="k8s.io/component-base/version"
	local ldflags="-s -w -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
	echo "kubeharness: building $bin (takes several minutes the first time)" >&2
	# A unique temporary name: two test runs may build at the same time.
	local tmp="$bin.tmp.$$"
	(cd "$src" && go build -trimpath -ldflags "$ldflags" -o "$tmp" .)
	mv -f "$tmp" "$bin"
	# Binaries of older harness sources (130 MB each) are never used again.
	local d
	for d in "$cache_root"/*/; do
		[[ "${d%/}" == "$(dirname "$bin")" ]] || rm -rf "${d%/}"
	done
	echo "$bin"
}

start() {
	local bin dir flags=()
	if [[ "${1:-}" == "--with-controllers" ]]; then
		flags+=(--with-controllers)
		shift
	fi
	bin="$(build)"
	if [[ -n "${1:-}" ]]; then
		dir="$1"
		mkdir -p "$dir"
	else
		# A folder of our own, which stop removes: its etcd data is about
		# 64 MB, and a machine running the suite all day fills up otherwise.
		dir="$(mktemp -d "${TMPDIR:-/tmp}/kubeharness.XXXXXX")"
		touch "$dir/.remove-on-stop"
	fi
	rm -f "$dir/ready"
	nohup "$bin" --dir "$dir" "${flags[@]}" >"$dir/harness.log" 2>&1 &
	echo $! >"$dir/pid"
	mkdir -p "$cache_root"
	echo "$dir" >"$cache_root/last-dir"
	for _ in $(seq 1 240); do
		if [[ -f "$dir/ready" ]]; then
			echo "$dir/admin.kubeconfig"
			return
		fi
		if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "kubeharness: exited while starting; last lines of $dir/harness.log:" >&2
			tail -n 30 "$dir/harness.log" >&2
			return 1
		fi
		sleep 0.5
	done
	echo "kubeharness: not ready after 120s; see $dir/harness.log" >&2
	return 1
}

stop() {
	# DIR, or the kubeconfig path that start printed, or else the last
	# instance started (which, on a machine shared by several test runs,
	# may be someone else's: pass the path when you have it).
	local dir="${1:-$(cat "$cache_root/last-dir" 2>/dev/null || true)}"
	[[ -n "$dir" ]] || return 0
	[[ -f "$dir" ]] && dir="$(dirname "$dir")"
	[[ -f "$dir/pid" ]] || return 0
	local pid
	pid="$(cat "$dir/pid")"
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	rm -f "$dir/pid"
	if [[ -f "$dir/.remove-on-stop" ]]; then
		rm -rf "$dir"
	fi
}

case "${1:-start}" in
build) build ;;
start) shift || true; start "$@" ;;
stop) shift; stop "$@" ;;
*) echo "usage: $0 build | start [--with-controllers] [DIR] | stop [DIR]" >&2; exit 2 ;;
esac
