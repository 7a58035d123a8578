#!/bin/bash
# uninstalled.sh DESTDIR [KEPT...] - after `make install DESTDIR=... && make
# uninstall DESTDIR=...`, DESTDIR holds nothing but the KEPT paths (files
# that were there before the install, relative to DESTDIR) and their
# directories: no file and no emptied directory of the install is left.
set -u
D=$1
shift
pass=0 fails=0
left=$(cd "$D" && find . -mindepth 1 | sed 's|^\./||' | sort)
want=$(for k in "$@"; do
	p=$k
	while [ "$p" != . ] && [ -n "$p" ]; do echo "$p"; p=$(dirname "$p"); done
done | sort -u)
if [ "$left" = "$want" ]; then
	pass=$((pass + 1))
	echo "PASS: make uninstall left $D ${*:+with only $* }without anything make install wrote"
else
	fails=$((fails + 1))
	echo "FAIL: after make uninstall, $D holds:"
	diff <(echo "$want") <(echo "$left") | sed -n 's/^> /    /p'
	[ $# = 0 ] || diff <(echo "$want") <(echo "$left") | sed -n 's/^< /    missing (was there before): /p'
fi
echo "$((100 * pass / (pass + fails)))%: Checks: $((pass + fails)), Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
