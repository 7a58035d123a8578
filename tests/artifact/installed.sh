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
