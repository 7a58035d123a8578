#!/bin/bash
# run.sh SUITE... - the whole test suite (tests/setup.sh, make all, make
# check, less the live layer, which runs on the host's Slurm release only:
# CHECK_LIVE=) and the Debian packages (make deb) on other Slurm releases, each in
# a Debian chroot of its own:
#   trixie    Slurm 24.11, gcc 14, Python 3.13
#   sid       Slurm 26.05, gcc 16, Python 3.14 (the wheel runs on 3.13)
# or, for bullseye, the floor (make check-oldest): what the source needs of
# an older toolchain, with no cluster and no wheel:
#   bullseye  glibc 2.31, gcc 10, Slurm 20.11's headers: tests/setup.sh
#             build, make all, check-unit, check-plugin, and check-glibc
#             (nothing shipped imports a glibc symbol newer than 2.28)
# The chroots are kept in MCK_MATRIX_DIR (/var/cache/spank-mooncake/matrix)
# and reused; a new one is made with debootstrap (retried). The source is
# the working tree's files (tracked and new, not ignored), copied fresh each
# run. Each run happens in new PID and mount namespaces: everything it
# starts dies with it, and its /run (where the test cluster's network
# namespaces are named) is its own; so is its /sys/fs/cgroup, an empty
# tmpfs, which crun (Slurm's OCI containers, tests/cluster/test_container.sh)
# accepts where it refuses a hybrid cgroup tree. Run as root; prints each layer's
# summary line and one "matrix SUITE: PASS|FAIL" line per suite.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BASE=${MCK_MATRIX_DIR:-/var/cache/spank-mooncake/matrix}

log() { printf '[matrix %s] %s\n' "$(date +%T)" "$*" >&2; }

# retry N CMD...: a download, retried
. "$(dirname "$0")/../retry.sh"
# the Debian archive of this machine's apt (empty: debootstrap's default)
MIRROR=$(debian_mirror)

make_chroot() {
	local suite=$1 r=$BASE/$1
	[ -f "$r/.mck-ready" ] && return 0
	command -v debootstrap >/dev/null || { log "debootstrap is missing: run tests/setup.sh"; return 1; }
	log "$suite: debootstrap into $r"
	mkdir -p "$BASE"
	debootstrap_once() {
		rm -rf "$r"
		debootstrap --variant=minbase --include=ca-certificates "$suite" "$r" ${MIRROR:+"$MIRROR"} >"$r.debootstrap.log" 2>&1
	}
	retry 3 debootstrap_once || { tail -5 "$r.debootstrap.log" >&2; return 1; }
	# no service starts inside the chroot when a package is installed
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	touch "$r/.mck-ready"
}

copy_source() {
	local r=$1
	rm -rf "$r/src/spank-mooncake"
	mkdir -p "$r/src/spank-mooncake"
	(cd "$TOP" && git ls-files -z --cached --others --exclude-standard | xargs -0 -r ls -d 2>/dev/null | tar -c -T -) |
		tar -x -C "$r/src/spank-mooncake"
	# the test user that sbatch runs as must read the tree
	chmod -R a+rX "$r/src"
}

# the engines' readers this machine's own contract run unpacked
# (tests/contract/fetch.sh): a few modules, copied so that no chroot downloads
# the 375 MB of wheels again (time, disk, one more download that can fail);
# a chroot without them fetches them itself
copy_engines() {
	local r=$1 src=${MCK_ENGINES:-/var/cache/spank-mooncake/engines} d
	for d in "$src"/*-*/; do
		[ -f "$d/.complete" ] || continue
		mkdir -p "$r/var/cache/spank-mooncake/engines"
		rm -rf "$r/var/cache/spank-mooncake/engines/$(basename "$d")"
		cp -a "$d" "$r/var/cache/spank-mooncake/engines/"
	done
}

# the CA bundle this machine trusts (a proxy's, on some machines) for pip
host_ca() {
	local f
	for f in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}" /etc/ssl/certs/ca-certificates.crt; do
		[ -n "$f" ] && [ -s "$f" ] && { echo "$f"; return; }
	done
}

# what runs in the chroot of SUITE, in the source tree (MCK_MATRIX_RUN, a
# shell command, runs instead when set: e.g. one cluster test, many rounds)
suite_run() {
	[ -z "${MCK_MATRIX_RUN:-}" ] || { echo "$MCK_MATRIX_RUN"; return; }
	case $1 in
	bullseye)
		echo 'tests/setup.sh build && make -j2 all && make check-unit check-plugin check-glibc' ;;
	*)
		echo 'tests/setup.sh && make -j2 all && make check CHECK_LIVE= &&
			git init -q && git add -A && git -c user.name=matrix -c user.email=matrix@localhost commit -q -m matrix &&
			make deb' ;;
	esac
}

run_suite() {
	local suite=$1 r=$BASE/$1 ca rc
	make_chroot "$suite" || return 1
	copy_source "$r"
	cp /etc/resolv.conf "$r/etc/resolv.conf"
	# the engines' readers: for make check (contract), not the floor's suite
	[ "$suite" = bullseye ] || copy_engines "$r"
	# the typing corpus (tests/unit/gen_typing.py) of the PyYAML the loader
	# follows, 6.0's, made here: bullseye's 5.3.1 still reads `._5` as a
	# float (PyYAML pull request 497, in 6.0)
	if [ "$suite" = bullseye ]; then
		mkdir -p "$r/src/spank-mooncake/build/tests"
		python3 "$TOP/tests/unit/gen_typing.py" >"$r/src/spank-mooncake/build/tests/typing.tsv" ||
			{ log "$suite: tests/unit/gen_typing.py failed here (python3-yaml: tests/setup.sh)"; return 1; }
	fi
	ca=$(host_ca)
	[ -n "$ca" ] && cp "$ca" "$r/etc/mck-host-ca.crt"
	log "$suite: $(suite_run "$suite" | head -1 | cut -c1-60)... in $r"
	# new PID and mount namespaces; inside, the chroot's /dev, /sys, /run,
	# and the chroot the namespace's root (pivot_root, not chroot(2): a
	# chrooted process may not create or join a user namespace, which the
	# pyxis stand-in's containers are, as enroot's)
	unshare --pid --fork --mount --propagation private \
		bash -c '
		r=$1; shift
		# the chroot'"'"'s / a mount point of its own (unshare --uts=FILE wants one)
		mount --bind "$r" "$r" &&
		mount -t proc proc "$r/proc" &&
		mount --rbind /dev "$r/dev" && mount --make-rslave "$r/dev" &&
		mount -t sysfs sysfs "$r/sys" &&
		mount -t tmpfs -o mode=755 tmpfs "$r/sys/fs/cgroup" &&
		mount -t tmpfs -o mode=755 tmpfs "$r/run" &&
		cd "$r" && pivot_root . . && umount -l . && cd / &&
		exec "$@"' bash "$r" \
		env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive TMPDIR=/tmp MCK_RACE_ROUNDS=${MCK_RACE_ROUNDS:-1} \
		${ca:+PIP_CERT=/etc/mck-host-ca.crt} PIP_DEFAULT_TIMEOUT=60 \
		bash -c "cd /src/spank-mooncake && $(suite_run "$suite")" \
		>"$r.log" 2>&1
	rc=$?
	grep -E '^[0-9]+%: Checks|^\[setup .*\] ready|^PASS: .*glibc' "$r.log" | sed "s/^/  $suite: /" >&2
	if [ $rc = 0 ]; then
		echo "matrix $suite: PASS (log: $r.log)"
		# the next suite's disk: the built tree and the downloaded .debs go
		# (the chroot itself stays, the next run's cache)
		rm -rf "$r/src/spank-mooncake"
		chroot "$r" apt-get clean >/dev/null 2>&1 || true
	else
		# what failed, then how the log ends (where a fatal: or a full disk shows)
		grep -E '^(FAIL|ERROR)' "$r.log" | head -20 >&2
		echo "--- the last lines of $r.log:" >&2
		tail -15 "$r.log" >&2
		df -h "$r" >&2
		echo "matrix $suite: FAIL (rc=$rc, log: $r.log)"
	fi
	return $rc
}

[ "$(id -u)" = 0 ] || { log "run as root (debootstrap, chroot, namespaces)"; exit 1; }
[ $# -gt 0 ] || set -- trixie sid
status=0
for s in "$@"; do run_suite "$s" || status=1; done
exit $status
