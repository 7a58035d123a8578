#!/bin/bash
# installed.sh DESTDIR - what `make install DESTDIR=... PREFIX=/usr` put there
set -u
D=$1
pass=0 fails=0
for f in usr/bin/mooncake-recipe usr/lib/x86_64-linux-gnu/slurm-wlm/spank_mooncake.so \
	usr/lib/libmooncake_recipe.so.0 usr/lib/libmooncake_recipe.a usr/include/mooncake_recipe.h \
	usr/share/man/man1/mooncake-recipe.1 usr/share/man/man8/spank_mooncake.8 \
	usr/share/spank-mooncake/mooncake.conf; do
	if [ -e "$D/$f" ]; then pass=$((pass + 1)); else echo "FAIL: make install did not install /$f"; fails=$((fails + 1)); fi
done
# the library: its real name, the soname link, the development link
real=$(cd "$D/usr/lib" 2>/dev/null && ls libmooncake_recipe.so.*.*.* 2>/dev/null | head -1)
if [ -n "$real" ] && [ "$(readlink "$D/usr/lib/libmooncake_recipe.so.0")" = "$real" ] &&
	[ "$(readlink "$D/usr/lib/libmooncake_recipe.so")" = libmooncake_recipe.so.0 ]; then
	pass=$((pass + 1))
else
	echo "FAIL: the library is not installed as libmooncake_recipe.so.0.x.y with the links .so.0 and .so"
	fails=$((fails + 1))
fi
want="required /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_mooncake.so"
if [ "$(cat "$D/usr/share/spank-mooncake/mooncake.conf" 2>/dev/null)" = "$want" ]; then
	pass=$((pass + 1))
else
	echo "FAIL: the plugstack snippet is not '$want'"; fails=$((fails + 1))
fi
if "$D/usr/bin/mooncake-recipe" --version >/dev/null; then pass=$((pass + 1)); else echo "FAIL: the installed tool does not run"; fails=$((fails + 1)); fi
[ "$fails" = 0 ] && echo "PASS: make install puts the tool, library, header, plugin, man pages and plugstack snippet in place"
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
