#!/usr/bin/env bash
# Installs the build into a temporary prefix, then compiles and runs a small
# program against it through pkg-config (static and shared).
# Usage: test_install.sh BUILD_DIR WORK_DIR [EXTRA_CFLAGS]
set -euo pipefail
build=$1
work=$2
extra=${3:-}
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
cat >"$work/use.c" <<'C'
#include <nnfx.h>
#include <string.h>
int main(void) {
    nnfx_error e = {0};
    nnfx_graph *g = nnfx_graph_new();
    nnfx_node *x = nnfx_graph_placeholder(g, "x", NULL, &e);
    nnfx_arg a = nnfx_arg_node(x);
    nnfx_node *r = nnfx_graph_call_op(g, NNFX_OP_RELU, 1, &a, 0, NULL, &e);
    nnfx_graph_output(g, 1, &r, &e);
    int bad = nnfx_graph_lint(g, &e) != NNFX_OK || strcmp(nnfx_node_name(r), "relu") != 0;
    nnfx_graph_free(g);
    return bad;
}
C
# static: the archive itself, plus the private libraries pkg-config lists
static_libs=$(pkg-config --static --libs nnfx | sed 's/-lnnfx//')
cc -std=c11 $extra "$work/use.c" $(pkg-config --cflags nnfx) "$work/prefix/lib/libnnfx.a" $static_libs -o "$work/use_static"
"$work/use_static"
cc -std=c11 $extra "$work/use.c" $(pkg-config --cflags --libs nnfx) -Wl,-rpath,"$work/prefix/lib" -o "$work/use_shared"
"$work/use_shared"
"$work/prefix/bin/nnfx" --version
# the shared library's boundary: only the public API is exported
leaked=$(nm -D --defined-only "$work/prefix/lib/libnnfx.so" | awk '{print $3}' | grep -v '^nnfx_' || true)
if [ -n "$leaked" ]; then
  echo "install: libnnfx.so exports non-public symbols:" $(echo "$leaked" | head -n 20)
  exit 1
fi
echo "install: static and shared programs built against the installed nnfx run"
