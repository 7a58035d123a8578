# shellcheck shell=bash
# await.sh - waiting on an event, for the tests and for the job scripts
# they write (a job script sources this file; lib.sh does too). Each wait
# is on an event, with one bound, and a wait that reaches its bound says
# so: a script that goes on after an event that never came checks the
# wrong thing (a job of test_keep.sh went on after 60 s while its test
# still waited, under load in CI, and the checks failed for what they did
# not test).
#
# await SECONDS CMD...: until CMD succeeds, tried every 0.1 s, for at most
# SECONDS; when it never did, 1 and "await: CMD... not so after SECONDS s"
# on stderr
await() {
	local bound=$1 end
	shift
	end=$((SECONDS + bound))
	until "$@"; do
		if [ "$SECONDS" -ge "$end" ]; then
			echo "await: $* not so after $bound s" >&2
			return 1
		fi
		sleep 0.1
	done
}
