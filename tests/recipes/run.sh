#!/usr/bin/env bash
# tests/recipes/run.sh - the recipe corpus, run through the CLI.
#
#   tests/recipes/run.sh PATH_TO_mooncake-recipe [FILTER]
#
# FILTER (optional) is a bash glob matched against the case name
# ("valid/trtllm_agg_only", "invalid/c5_external_trtllm", "usage/...").
#
# valid/NAME.yaml      may start with `# warn: SUBSTRING` lines; `check` exits 0,
#                      prints one warning ("mooncake: warning: ...") per such
#                      line, each containing its SUBSTRING, and no other
#                      warning; and `render NAME.yaml --infra-addr
#                      10.1.1.1 --out DIR` exits 0 and writes exactly the files of
#                      valid/NAME.expected/ (same set of names, byte for byte; an
#                      .expected dir with no files, apart from dotfiles such as
#                      .gitkeep, means render writes nothing).
# invalid/NAME.yaml    starts with one or more `# expect: SUBSTRING` lines; `check`
#                      and `render` exit 1, their stderr starts with "mooncake: "
#                      and contains every SUBSTRING, and render writes nothing.
# usage cases          (below) exit 2: missing file, directory, unknown command...
#
# Every expectation was reasoned from srtctl's behaviour as doc/recipe-reference.md
# states it, not taken from the CLI's output: when a case fails, the CLI
# disagrees with the reference.
#
# Prints one PASS/FAIL line per case (details indented below a FAIL) and a
# summary in Check's format; exits 1 if any case failed. A case where the CLI
# dies from a signal counts as an error.

set -u

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 PATH_TO_mooncake-recipe [FILTER]" >&2
	exit 2
fi
CLI=$1
FILTER=${2:-*}
case $CLI in
/*) ;;
*) CLI=$PWD/$CLI ;;
esac
if [ ! -x "$CLI" ]; then
	echo "$0: $CLI is not an executable" >&2
	exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
INFRA=10.1.1.1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mcr-corpus.XXXXXX") || exit 2
trap 'rm -rf "$WORK"' EXIT

checks=0
failures=0
errors=0
failed_names=()
reasons=()
crashed=0

fail() { reasons+=("$*"); }

# run OUT ERR ARGS...: run the CLI, stdout/stderr to files; sets $rc, notes crashes
run() {
	local out=$1 err=$2
	shift 2
	"$CLI" "$@" >"$out" 2>"$err" </dev/null
	rc=$?
	if [ $rc -ge 128 ]; then
		crashed=1
		fail "'$*' was killed by signal $((rc - 128)): $(head -c 300 "$err")"
	fi
}

# files_in DIR: the names in DIR (all entries, dotfiles too), sorted; nothing if DIR is absent
files_in() {
	[ -d "$1" ] || return 0
	find "$1" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort
}

# expected_in DIR: the expected names (dotfiles such as .gitkeep ignored)
expected_in() {
	[ -d "$1" ] || return 0
	find "$1" -mindepth 1 -maxdepth 1 ! -name '.*' -printf '%f\n' | LC_ALL=C sort
}

# oneline: newline-separated names as one space-separated line
oneline() { tr '\n' ' ' | sed 's/ $//'; }

starts_with_prefix() { [ "$(head -c 10 "$1")" = "mooncake: " ]; }

first_line() { head -n 1 "$1" | cut -c 1-400; }

finish() {
	local name=$1
	checks=$((checks + 1))
	if [ ${#reasons[@]} -eq 0 ]; then
		echo "PASS $name"
	else
		if [ $crashed -eq 1 ]; then
			errors=$((errors + 1))
			echo "FAIL $name (error: the CLI crashed)"
		else
			failures=$((failures + 1))
			echo "FAIL $name"
		fi
		failed_names+=("$name")
		local r
		for r in "${reasons[@]}"; do
			printf '%s\n' "$r" | sed 's/^/    /'
		done
	fi
	reasons=()
	crashed=0
}

wanted() {
	# shellcheck disable=SC2053
	[[ $1 == $FILTER ]]
}

# ---------------------------------------------------------------- valid

for recipe in "$HERE"/valid/*.yaml; do
	[ -e "$recipe" ] || continue
	base=$(basename "$recipe" .yaml)
	name=valid/$base
	wanted "$name" || continue
	expected=$HERE/valid/$base.expected
	dir=$WORK/$base
	mkdir -p "$dir"
	out=$dir/out

	if [ ! -d "$expected" ]; then
		fail "no $base.expected directory next to the recipe"
		finish "$name"
		continue
	fi
	warns=()
	while IFS= read -r line; do
		case $line in
		"# warn: "*) warns+=("${line#"# warn: "}") ;;
		*) break ;;
		esac
	done <"$recipe"
	run "$dir/check.out" "$dir/check.err" check "$recipe"
	if [ $rc -ne 0 ]; then
		fail "check exited $rc, expected 0: $(first_line "$dir/check.err")"
	else
		grep '^mooncake: warning: ' "$dir/check.err" >"$dir/warnings"
		got=$(wc -l <"$dir/warnings")
		if [ "$got" -ne ${#warns[@]} ]; then
			fail "check printed $got warnings, expected ${#warns[@]}: $(cut -c 1-300 "$dir/warnings")"
		fi
		for w in "${warns[@]}"; do
			if ! grep -qF -- "$w" "$dir/warnings"; then
				fail "check warned no \"$w\": $(cut -c 1-300 "$dir/warnings")"
			fi
		done
	fi
	run "$dir/render.out" "$dir/render.err" render "$recipe" --infra-addr "$INFRA" --out "$out"
	if [ $rc -ne 0 ]; then
		fail "render exited $rc, expected 0: $(first_line "$dir/render.err")"
	else
		want=$(expected_in "$expected")
		got=$(files_in "$out")
		if [ "$want" != "$got" ]; then
			fail "render wrote [$(oneline <<<"$got")], expected [$(oneline <<<"$want")]"
		fi
		while IFS= read -r f; do
			if [ -z "$f" ] || [ ! -f "$out/$f" ]; then
				continue
			fi
			if ! cmp -s "$expected/$f" "$out/$f"; then
				fail "$f differs from $base.expected/$f (--- expected, +++ written):
$(diff -u --label expected --label written "$expected/$f" "$out/$f" | head -n 40)"
			fi
		done <<<"$want"
	fi
	finish "$name"
done

# ---------------------------------------------------------------- invalid

for recipe in "$HERE"/invalid/*.yaml; do
	[ -e "$recipe" ] || continue
	base=$(basename "$recipe" .yaml)
	name=invalid/$base
	wanted "$name" || continue
	dir=$WORK/$base
	mkdir -p "$dir"
	out=$dir/out

	expects=()
	while IFS= read -r line; do
		case $line in
		"# expect: "*) expects+=("${line#"# expect: "}") ;;
		*) break ;;
		esac
	done <"$recipe"
	if [ ${#expects[@]} -eq 0 ]; then
		fail "the recipe does not start with a '# expect: <substring>' line"
		finish "$name"
		continue
	fi

	for cmd in check render; do
		if [ $cmd = check ]; then
			run "$dir/$cmd.out" "$dir/$cmd.err" check "$recipe"
		else
			run "$dir/$cmd.out" "$dir/$cmd.err" render "$recipe" --infra-addr "$INFRA" --out "$out"
		fi
		if [ $rc -ne 1 ]; then
			fail "$cmd exited $rc, expected 1: $(first_line "$dir/$cmd.err")"
			continue
		fi
		if ! starts_with_prefix "$dir/$cmd.err"; then
			fail "$cmd: stderr does not start with 'mooncake: ': $(first_line "$dir/$cmd.err")"
		fi
		for e in "${expects[@]}"; do
			if ! grep -qF -- "$e" "$dir/$cmd.err"; then
				fail "$cmd: stderr lacks \"$e\"; it was: $(first_line "$dir/$cmd.err")"
			fi
		done
	done
	got=$(files_in "$out")
	if [ -n "$got" ]; then
		fail "render wrote [$(oneline <<<"$got")] for an invalid recipe, expected nothing"
	fi
	finish "$name"
done

# ---------------------------------------------------------------- usage / I-O

GOOD=$HERE/valid/trtllm_example_serve.yaml
U=$WORK/usage
mkdir -p "$U"
: >"$U/regular-file"

# usage_case NAME STDERR_SUBSTRING_OR_EMPTY NEED_PREFIX OUTDIR_OR_EMPTY ARGS...
usage_case() {
	local short=$1 name=usage/$1 want=$2 prefix=$3 outdir=$4
	shift 4
	wanted "$name" || return 0
	run "$U/$short.out" "$U/$short.err" "$@"
	if [ $rc -ne 2 ]; then
		fail "exited $rc, expected 2: $(first_line "$U/$short.err")"
	else
		if [ "$prefix" = yes ] && ! starts_with_prefix "$U/$short.err"; then
			fail "stderr does not start with 'mooncake: ': $(first_line "$U/$short.err")"
		fi
		if [ -n "$want" ] && ! grep -qF -- "$want" "$U/$short.err"; then
			fail "stderr lacks \"$want\": $(first_line "$U/$short.err")"
		fi
	fi
	if [ -n "$outdir" ] && [ -n "$(files_in "$outdir")" ]; then
		fail "wrote [$(files_in "$outdir" | oneline)], expected nothing"
	fi
	finish "$name"
}

usage_case missing_file "" yes "" check "$U/no-such-recipe.yaml"
usage_case directory_instead_of_file "" yes "" check "$HERE/valid"
usage_case unknown_command "unknown command" yes "" frobnicate "$GOOD"
usage_case no_arguments "" no ""
usage_case render_without_out "" no "$U/o1" render "$GOOD" --infra-addr "$INFRA"
usage_case render_missing_file "" yes "$U/o2" render "$U/no-such-recipe.yaml" --infra-addr "$INFRA" --out "$U/o2"
usage_case render_out_is_a_file "" yes "" render "$GOOD" --infra-addr "$INFRA" --out "$U/regular-file"
usage_case render_out_empty "render --out is empty" yes "" render "$GOOD" --infra-addr "$INFRA" --out ""
usage_case env_config_dir_newline "contains a newline, which would break the NAME=value lines" yes "" env "$GOOD" --role prefill \
	--infra-addr "$INFRA" --config-dir "$(printf '/logs\nMOONCAKE_MASTER=evil:8700')"

# ---------------------------------------------------------------- summary

passed=$((checks - failures - errors))
if [ $checks -eq 0 ]; then
	percent=0
elif [ $failures -eq 0 ] && [ $errors -eq 0 ]; then
	percent=100
else
	percent=$((passed * 100 / checks))
fi
if [ ${#failed_names[@]} -gt 0 ]; then
	echo
	echo "Failed cases:"
	printf '  %s\n' "${failed_names[@]}"
fi
echo "$percent%: Checks: $checks, Failures: $failures, Errors: $errors"
[ $failures -eq 0 ] && [ $errors -eq 0 ]
