#!/bin/bash
# latest.sh MOONCAKE_RECIPE - `make engines-latest`: a report, not a test.
# Whether the package index has a release of vLLM or SGLang newer than the
# newest pinned one (MCK_VLLM_VERSIONS, MCK_SGLANG_VERSIONS of
# tests/tests.mk), and, for each such release, the contract tests
# (tests/contract/run.py) on it, with the other engine's newest pin. One
# line on stdout; at most ENGINES_LATEST_SECONDS (600) in all; it downloads
# a wheel only when a newer release exists (cached as fetch.sh caches the
# pinned ones). Always exits 0: what it finds is news, not a failure.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CLI=$1
MOONCAKE_VENV=${MOONCAKE_VENV:-/opt/spank-mooncake/venv}
PY=$MOONCAKE_VENV/bin/python
LIMIT=${ENGINES_LATEST_SECONDS:-600}
MCK_VLLM_VERSIONS=${MCK_VLLM_VERSIONS:-0.34.0 0.33.0}
MCK_SGLANG_VERSIONS=${MCK_SGLANG_VERSIONS:-0.5.23 0.5.22}
START=$(date +%s)

say() { echo "engines-latest: $*"; exit 0; }
left() { echo $((LIMIT - ($(date +%s) - START))); }
newest() { printf '%s\n' "$@" | sort -V | tail -1; }

# the index's newest release of $1, as pip sees it (pip index versions)
index_newest() {
	timeout "$(left)" "$PY" -m pip index versions --disable-pip-version-check "$1" 2>/dev/null |
		sed -n "s/^$1 (\(.*\))\$/\1/p" | head -1
}

# the contract on vLLM $1 with SGLang $2: "N/M" checks passed, or why not
contract() {
	local out t
	t=$(left)
	[ "$t" -gt 0 ] || { echo "was not run: no time left of the ${LIMIT} s"; return; }
	if ! out=$(MCK_VLLM_VERSIONS=$1 MCK_SGLANG_VERSIONS=$2 timeout "$t" "$HERE/fetch.sh" 2>&1); then
		echo "was not run: the wheel was not fetched ($(tail -1 <<<"$out" | cut -c1-120))"
		return
	fi
	t=$(left)
	out=$(MCK_VLLM_VERSION=$1 MCK_SGLANG_VERSION=$2 timeout "$t" "$PY" "$HERE/run.py" "$CLI" \
		"$HERE"/../recipes/valid/*.yaml "$HERE"/../../examples/*.yaml 2>&1)
	local summary checks failures
	summary=$(grep -E '^[0-9]+%: Checks' <<<"$out" | tail -1)
	[ -n "$summary" ] || { echo "did not finish within the ${LIMIT} s ($(tail -1 <<<"$out" | cut -c1-120))"; return; }
	checks=$(sed 's/.*Checks: \([0-9]*\).*/\1/' <<<"$summary")
	failures=$(sed 's/.*Failures: \([0-9]*\).*/\1/' <<<"$summary")
	if [ "$failures" = 0 ]; then
		echo "passes ($checks checks)"
	else
		echo "fails $failures of $checks checks, first: $(grep -m1 '^FAIL' <<<"$out" | cut -c6-120)"
	fi
}

pin_vllm=$(newest $MCK_VLLM_VERSIONS)
pin_sglang=$(newest $MCK_SGLANG_VERSIONS)
top_vllm=$(index_newest vllm)
top_sglang=$(index_newest sglang)
[ -n "$top_vllm" ] && [ -n "$top_sglang" ] ||
	say "the package index did not answer within ${LIMIT} s (pinned: vLLM $pin_vllm, SGLang $pin_sglang)"
news=()
if [ "$(newest "$top_vllm" "$pin_vllm")" != "$pin_vllm" ]; then
	news+=("vLLM $top_vllm is newer than the pinned $pin_vllm: the contract $(contract "$top_vllm" "$pin_sglang")")
fi
if [ "$(newest "$top_sglang" "$pin_sglang")" != "$pin_sglang" ]; then
	news+=("SGLang $top_sglang is newer than the pinned $pin_sglang: the contract $(contract "$pin_vllm" "$top_sglang")")
fi
[ ${#news[@]} -gt 0 ] || say "vLLM $pin_vllm and SGLang $pin_sglang, the pinned releases, are the package index's newest"
say "$(IFS=';'; echo "${news[*]}" | sed 's/;/; /g')"
