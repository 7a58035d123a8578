#!/bin/bash
# installed.sh DESTDIR PREFIX LIBDIR SLURM_PLUGINDIR - what `make install`
# put under DESTDIR for that layout, and that the installed pkg-config file
# builds a program against the installed header and library.
set -u
D=$1 P=$2 L=$3 SP=$4
pass=0 fails=0
ok() { pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }
for f in "$P/bin/mooncake-recipe" "$SP/spank_mooncake.so" "$L/libmooncake_recipe.so" \
	"$L/libmooncake_recipe.a" "$L/pkgconfig/mooncake_recipe.pc" "$P/include/mooncake_recipe.h" \
	"$P/share/man/man1/mooncake-recipe.1" "$P/share/man/man8/spank_mooncake.8" \
	"$P/share/spank-mooncake/mooncake.conf"; do
	[ -e "$D$f" ] && ok || ko "make install did not install $f"
done
# the shared library: its real name, the soname link to it, the
# development link to the soname (doc/libmooncake_recipe.md)
soname=$(readelf -d "$D$L/libmooncake_recipe.so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
real=$(readlink "$D$L/$soname" 2>/dev/null)
[ "$soname" = libmooncake_recipe.so.0 ] && [ "$(readlink "$D$L/libmooncake_recipe.so")" = "$soname" ] &&
	[[ $real == libmooncake_recipe.so.0.*.* ]] && [ -f "$D$L/$real" ] && [ ! -L "$D$L/$real" ] && ok ||
	ko "the library is not installed as libmooncake_recipe.so.0.x.y with the links .so.0 (soname '$soname') and .so"
want="required $SP/spank_mooncake.so"
got=$(grep -v '^#' "$D$P/share/spank-mooncake/mooncake.conf" 2>/dev/null)
[ "$got" = "$want" ] && ok || ko "the plugstack snippet says '$got', not '$want'"
"$D$P/bin/mooncake-recipe" --version >/dev/null && ok || ko "the installed tool does not run"

# pkg-config against DESTDIR: compile, link (shared, then static) and run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mck-pc.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/prog.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <mooncake_recipe.h>
int main(void)
{
	static const char text[] = "schema: 2\nengine: sglang\n"
		"roles: {prefill: {args: {disaggregation-transfer-backend: mooncake}}}\n"
		"services: [{name: mooncake-master, type: mooncake-master}]\n";
	struct mcr_recipe *r = NULL;
	static struct mcr_error err;
	char msg[MCR_ERROR_MESSAGE_LENGTH];

	if (mcr_recipe_load_buffer(text, strlen(text), "prog.yaml", &r, &err)) {
		mcr_error_format(&err, msg, sizeof(msg));
		fprintf(stderr, "%s\n", msg);
		return 1;
	}
	printf("%s\n", mcr_engine_name(mcr_recipe_engine(r)));
	mcr_recipe_free(r);
	return 0;
}
C
export PKG_CONFIG_SYSROOT_DIR=$D PKG_CONFIG_PATH=$D$L/pkgconfig
if flags=$(pkg-config --cflags --libs mooncake_recipe 2>&1); then
	ok
	[ "$(pkg-config --modversion mooncake_recipe)" = "$(sed -n 's/^VERSION := //p' Makefile)" ] && ok ||
		ko "pkg-config --modversion is not the Makefile's VERSION"
	# shellcheck disable=SC2086
	if out=$(cc -o "$tmp/prog" "$tmp/prog.c" $flags 2>&1); then
		ok
		run=$(LD_LIBRARY_PATH=$D$L "$tmp/prog" 2>&1)
		[ "$run" = sglang ] && ok || ko "the program linked through pkg-config printed '$run'"
		LD_LIBRARY_PATH=$D$L ldd "$tmp/prog" | grep -q "=> $D$L/$soname" && ok ||
			ko "the program does not load the installed $soname"
	else
		ko "cc prog.c \$(pkg-config --cflags --libs mooncake_recipe) failed: $out"
	fi
	cflags=$(pkg-config --cflags mooncake_recipe)
	static=$(pkg-config --static --libs mooncake_recipe | sed 's/-lmooncake_recipe\b/-l:libmooncake_recipe.a/')
	# shellcheck disable=SC2086
	if out=$(cc -o "$tmp/prog-static" "$tmp/prog.c" $cflags $static 2>&1) &&
		[ "$(env -u LD_LIBRARY_PATH "$tmp/prog-static")" = sglang ] &&
		! ldd "$tmp/prog-static" | grep -q libmooncake_recipe; then
		ok
	else
		ko "linking the static library with pkg-config --static --libs failed: $out"
	fi
else
	ko "pkg-config --cflags --libs mooncake_recipe: $flags"
fi
[ "$fails" = 0 ] && echo "PASS: make install ($P, $L, $SP) puts the tool, library, header, pkg-config file, plugin, man pages and plugstack snippet in place; a program builds with pkg-config against it"
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
