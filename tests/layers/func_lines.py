#!/usr/bin/env python3
"""Lists the functions of the C files under src/ longer than a ceiling.

usage: func_lines.py SRC_ROOT [--max N]     (the rule: default 150)
       func_lines.py --self-test           (the scanner on a known text)

A function's length is the number of lines from its opening brace to its
closing one, both included, found by a brace-depth scanner that skips
comments, strings, character literals and preprocessor lines. Prints every
function over --max (file:line: name: length). Exit 0 when there is none,
1 when there is one (or the scanner found implausibly few functions), 2 on
usage.
"""
import argparse
import os
import re
import sys


def strip_code(text):
    """text with comments, strings and char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
        else:
            out.append(c)
            i += 1
    s = "".join(out)
    # preprocessor lines (with their continuations) hold no function bodies
    return re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), s)


def functions(path):
    """(name, first line, length in lines) of each top-level brace block that is a function body."""
    with open(path, encoding="utf-8", errors="replace") as f:
        s = strip_code(f.read())
    res, depth, start, line = [], 0, None, 1
    for i, c in enumerate(s):
        if c == "\n":
            line += 1
        elif c == "{":
            if depth == 0:
                start = (i, line)
            depth += 1
        elif c == "}" and depth > 0:
            depth -= 1
            if depth == 0 and start:
                head = s[max(0, start[0] - 400) : start[0]].rstrip()
                m = re.search(r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*$", head)
                if m and m.group(1) not in ("if", "for", "while", "switch"):
                    res.append((m.group(1), start[1], line - start[1] + 1))
                start = None
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?")
    ap.add_argument("--max", type=int, default=150)
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.root:
        ap.print_usage(sys.stderr)
        return 2
    src = os.path.join(a.root, "src")
    if not os.path.isdir(src):
        print(f"func_lines: {src}: no such folder", file=sys.stderr)
        return 2
    found = []
    for d, _, fs in os.walk(src):
        for f in fs:
            if f.endswith((".c", ".h")):
                p = os.path.join(d, f)
                found += [(n, os.path.relpath(p, a.root), l, k) for (n, l, k) in functions(p)]
    found.sort(key=lambda t: -t[3])
    over = [t for t in found if t[3] > a.max]
    for n, p, l, k in over:
        print(f"{p}:{l}: {n}: {k} lines (more than {a.max}): split it along its sections")
    print(f"func_lines: {len(found)} functions, {len(over)} over {a.max} lines, the longest {found[0][3] if found else 0}")
    if len(found) < 1000:
        print("func_lines: found fewer than 1000 functions: the scanner is broken", file=sys.stderr)
        return 1
    return 1 if over else 0


SAMPLE = r"""#include <stdio.h>
#define BRACE {
/* a comment with { braces } */
static const int table[] = {1, 2,
                            3};
int five(int x) {
    const char *s = "}}}{";
    char c = '}';
    // }
    if (x) {
        return 1;
    }
    return 5;
}
struct s {
    int a;
};
static int
two(void)
{
    return 2;
}
"""


def self_test():
    """The scanner on SAMPLE: exactly five (9 lines) and two (3 lines), not the table, struct or macro."""
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as f:
        f.write(SAMPLE)
    try:
        got = functions(f.name)
    finally:
        os.unlink(f.name)
    want = [("five", 6, 9), ("two", 20, 3)]
    if got != want:
        print(f"func_lines self-test: got {got}, want {want}", file=sys.stderr)
        return 1
    print("func_lines self-test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
