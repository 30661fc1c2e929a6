#!/usr/bin/env bash
# The runtime package list (tools/install-deps-runtime.sh, what the Dockerfile
# installs) covers every shared library the nnfx binary links: each NEEDED
# entry resolves (ldd) to a file owned (dpkg -S) by a listed package, by a
# direct dependency of one, or by libc6. And the Dockerfile installs through
# that script in both stages. Skips (77) without dpkg.
# usage: check_runtime_deps.sh NNFX SOURCE_DIR
set -u
NNFX=$1 SRC=$2
command -v dpkg-query >/dev/null && command -v apt-cache >/dev/null && command -v ldd >/dev/null ||
    { echo "SKIP: needs dpkg, apt-cache and ldd (a Debian system)"; exit 77; }
fail=0
list=$(sed -n 's/^PKGS=(\(.*\))$/\1/p' "$SRC/tools/install-deps-runtime.sh")
[ -n "$list" ] || { echo "FAIL: no PKGS=(...) line in tools/install-deps-runtime.sh"; exit 1; }
allowed=" libc6 $list "
deps_added=
# the listed packages' direct dependencies, looked up only when needed (apt-cache is slow)
add_deps() {
    [ -z "$deps_added" ] || return 0
    deps_added=1
    for d in $(apt-cache depends --no-recommends --no-suggests $list 2>/dev/null | sed -n 's/^ *|\{0,1\}Depends: //p' | tr -d '<>'); do
        allowed+=" ${d%%:*} "
    done
}
needed=$(readelf -d "$NNFX" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
lddout=$(ldd "$NNFX")
for lib in $needed; do
    case $lib in lib[alt]san.so* | libubsan.so* | libclang_rt*) continue ;; esac # sanitizer builds only
    path=$(printf '%s\n' "$lddout" | awk -v l="$lib" '$1 == l {print $3}')
    # the dynamic loader is listed by its path alone ("/lib64/ld-linux-x86-64.so.2 (0x...)")
    [ -n "$path" ] || path=$(printf '%s\n' "$lddout" | awk -v l="$lib" 'index($1, "/") == 1 && $1 ~ ("/" l "$") {print $1}')
    [ -n "$path" ] || { echo "FAIL: $lib does not resolve"; fail=1; continue; }
    owner=$(dpkg-query -S "$(realpath "$path")" 2>/dev/null | head -1 | cut -d: -f1)
    [ -n "$owner" ] || owner=$(dpkg-query -S "$path" 2>/dev/null | head -1 | cut -d: -f1)
    case "$allowed" in *" $owner "*) ;; *) add_deps ;; esac
    case "$allowed" in
    *" $owner "*) echo "ok   $lib -> $owner" ;;
    *) echo "FAIL: $lib ($path) comes from '$owner', which tools/install-deps-runtime.sh does not install"; fail=1 ;;
    esac
done
n=$(grep -c 'install-deps-runtime.sh' "$SRC/Dockerfile")
[ "$n" -ge 2 ] || { echo "FAIL: the Dockerfile does not install through tools/install-deps-runtime.sh in both stages"; fail=1; }
grep -q '^FROM debian:bookworm-slim' "$SRC/Dockerfile" || { echo "FAIL: the Dockerfile is not based on debian:bookworm-slim"; fail=1; }
exit $fail
