#!/bin/bash
# check.sh PLUGIN DLOPEN_HELPER SLURM_LIBDIR - artifact checks of the built
# plugin (spec/spank.md 1.6, 2.6 #4 and #11): what it exports, what it needs,
# and that Slurm's loader would accept it.
set -u
plugin=$1 helper=$2 slurmlib=${3:-}
pass=0 fails=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
ko() { echo "FAIL: $*"; fails=$((fails + 1)); }
libslurm=$(ls "$slurmlib"/libslurmfull.so 2>/dev/null | head -1)
[ -n "$libslurm" ] || { echo "FAIL: no libslurmfull.so in '$slurmlib' (libslurm-dev/slurm-wlm installed?)"; exit 1; }

exports=$(nm -D --defined-only "$plugin" | awk '{print $3}' | sort)
bad=$(grep -Ev '^(plugin_(name|type|version)|slurm_spank_[a-z_]+)$' <<<"$exports")
[ -z "$bad" ] && ok "exports only plugin_* and slurm_spank_* ($(echo $exports))" ||
	ko "exports more than plugin_* and slurm_spank_*: $(echo $bad)"

# every undefined symbol is exported by a library the plugin links
# (libyaml, jansson, libc) or by libslurmfull (spank_*, slurm_*)
libs=$(ldd "$plugin" | awk '/=> \//{print $3}')
slurm_exports=$(for l in "$libslurm" $libs; do nm -D --defined-only "$l"; done | awk '{print $3}' | sed 's/@.*//' | sort -u)
missing=""
for s in $(nm -D --undefined-only "$plugin" | awk '$1 == "U" {print $2}'); do
	grep -qxF "${s%%@*}" <<<"$slurm_exports" || missing="$missing $s"
done
[ -z "$missing" ] && ok "every undefined symbol is provided by $(basename "$libslurm") or a linked library" ||
	ko "undefined symbols nobody provides:$missing"
needed=$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | xargs)
case " $needed " in *libslurm*) ko "links libslurm ($needed): Slurm provides its symbols at load time" ;; *) ok "links no Slurm library (NEEDED: $needed)" ;; esac
readelf -d "$plugin" | grep -q 'BIND_NOW\|FLAGS.*NOW' && ok "linked with -z now (missing symbols fail at load, not later)" || ko "not linked with -z now"
readelf -lW "$plugin" | grep -q GNU_RELRO && ok "RELRO" || ko "no RELRO"
if out=$("$helper" "$plugin" "$libslurm" 2>&1); then ok "dlopen after libslurmfull: $out"; else ko "dlopen: $out"; fi
total=$((pass + fails))
echo "$((100 * pass / total))%: Checks: $total, Failures: $fails, Errors: 0"
[ "$fails" = 0 ]
