# check.sh — the assertion helpers of the shell test scripts, to be sourced
# after TMP (a scratch folder) is set:
#   expect CODE DESCRIPTION -- COMMAND...   runs COMMAND (stdout, stderr to
#                                           $TMP/out, $TMP/err), checks its exit code
#   check DESCRIPTION COMMAND...            a condition that must hold
#   check_summary NAME                      prints "NAME: P passed, F failed";
#                                           its status is 0 when nothing failed
PASS=0
FAIL=0

expect() {
    local want=$1 what=$2
    shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then
        PASS=$((PASS + 1))
    else
        FAIL=$((FAIL + 1))
        echo "FAIL: $what: exit $got, expected $want: $*"
        sed 's/^/    out: /' "$TMP/out" | tail -5
        sed 's/^/    err: /' "$TMP/err" | tail -5
    fi
}

check() {
    local what=$1
    shift
    if "$@"; then PASS=$((PASS + 1)); else
        FAIL=$((FAIL + 1))
        echo "FAIL: $what"
    fi
}

check_summary() {
    echo "$1: $PASS passed, $FAIL failed"
    [ "$FAIL" -eq 0 ]
}
