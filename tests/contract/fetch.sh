#!/bin/bash
# fetch.sh - the engines' released wheels, for the contract tests: `pip
# download --no-deps` of vllm==V for each V of $MCK_VLLM_VERSIONS and
# sglang==V for each V of $MCK_SGLANG_VERSIONS (the releases tests/tests.mk
# pins; retried, cached in $MCK_ENGINES/wheels), then the few modules
# tests/contract/engines.py loads, unpacked into
# $MCK_ENGINES/<engine>-<version>/ (again when engines.py names other
# modules). Nothing is installed: the wheels' dependencies (torch among
# them) are never downloaded.
#
# The same wheel file is fetched on every machine (CPython 3.11 tags,
# x86_64 or aarch64 manylinux), whatever Python runs the tests: only its
# Python sources are read.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
MOONCAKE_VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
MCK_ENGINES=${MCK_ENGINES:-/var/cache/spank-mooncake/engines}
MCK_VLLM_VERSIONS=${MCK_VLLM_VERSIONS:-0.34.0 0.33.0}
MCK_SGLANG_VERSIONS=${MCK_SGLANG_VERSIONS:-0.5.23 0.5.22}
PY=$MOONCAKE_VENV/bin/python
. "$HERE/../retry.sh"

log() { printf '[contract %s] %s\n' "$(date +%T)" "$*" >&2; }
mkdir -p "$MCK_ENGINES/wheels"
m=$(uname -m)
specs=()
for v in $MCK_VLLM_VERSIONS; do specs+=("vllm $v"); done
for v in $MCK_SGLANG_VERSIONS; do specs+=("sglang $v"); done
for spec in "${specs[@]}"; do
	set -- $spec
	engine=$1 version=$2 dest=$MCK_ENGINES/$1-$2
	modules=$("$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import engines; print(" ".join(engines.MODULES[sys.argv[2]]))' "$HERE" "$engine")
	[ "$(cat "$dest/.complete" 2>/dev/null)" = "$modules" ] && continue
	wheel=$(ls "$MCK_ENGINES/wheels/$engine-$version-"*.whl 2>/dev/null | head -1 || true)
	if [ -z "$wheel" ]; then
		log "downloading $engine==$version (its wheel only)"
		dl() {
			"$PY" -m pip download -q --disable-pip-version-check --no-cache-dir --no-deps --only-binary=:all: \
				--python-version 3.11 --implementation cp --abi cp311 --abi abi3 --abi none \
				--platform "manylinux_2_34_$m" --platform "manylinux_2_28_$m" \
				--platform "manylinux_2_17_$m" \
				-d "$MCK_ENGINES/wheels" "$engine==$version" >"$MCK_ENGINES/wheels/pip.log" 2>&1
		}
		retry 3 dl || { tail -5 "$MCK_ENGINES/wheels/pip.log" >&2; exit 1; }
		wheel=$(ls "$MCK_ENGINES/wheels/$engine-$version-"*.whl | head -1)
	fi
	log "unpacking $engine's Mooncake readers from $(basename "$wheel")"
	rm -rf "$dest.tmp"
	"$PY" - "$HERE" "$wheel" "$dest.tmp" "$engine" <<'EOF'
import sys, zipfile
here, wheel, dest, engine = sys.argv[1:5]
sys.path.insert(0, here)
import engines
with zipfile.ZipFile(wheel) as z:
    for rel in engines.MODULES[engine]:
        z.extract(rel, dest)
EOF
	printf '%s\n' "$modules" >"$dest.tmp/.complete"
	rm -rf "$dest" && mv "$dest.tmp" "$dest"
done
