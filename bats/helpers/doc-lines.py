#!/usr/bin/env python3
"""The error lines the documentation quotes, and the tests that produce them.

A quoted line is a line of a fenced code block without a language in
README.md or docs/*.md (the blocks where the pages show what a program
prints), and the code span a "###" heading (when it holds words, not a name) or a bullet
of docs/troubleshooting.md starts with.  bats/doc-lines.tsv gives each one the test that produces it:

    DOC-FILE <TAB> QUOTED LINE <TAB> TEST-FILE <TAB> SUBSTITUTIONS

The test file must hold the line as its assertion spells it: the quoted
line with each "FROM=>TO" of SUBSTITUTIONS (separated by " || ") applied
(the doc's paths become the test's variables, "..." its glob), and with
"dq" among them, what is not substituted escaped as in a shell string in
double quotes.  So a message that changes fails its test until the page
changes with it, and a new quoted line needs a row.  Another program's line
that no test here can make has "-" for its test and "untested: WHY" for
its substitutions (`list-untested` prints them).

    doc-lines.py check REGISTRY FILE...   what is wrong, one line each; exit 1 if anything
    doc-lines.py list FILE...             the quoted lines, DOC <TAB> LINE
    doc-lines.py list-untested REGISTRY   the rows without a test, and why
"""
import os
import re
import sys

FENCE = re.compile(r"^\s*```(\S*)\s*$")
SPAN = re.compile(r"`([^`]+)`")


def quoted(path):
    """The quoted lines of the page at path, in order."""
    out = []
    lines = open(path, encoding="utf-8").read().split("\n")
    in_block, lang = False, ""
    para = []
    trouble = os.path.basename(path) == "troubleshooting.md"

    def flush():
        # a bullet's first code span (joined over its lines)
        if para and trouble:
            text = " ".join(l.strip() for l in para)
            m = re.match(r"^\* `([^`]+)`", text)
            if m:
                out.append(m.group(1))
        para.clear()

    for line in lines:
        m = FENCE.match(line)
        if m:
            flush()
            if not in_block:
                in_block, lang = True, m.group(1)
            else:
                in_block = False
            continue
        if in_block:
            if lang == "" and line.strip():
                out.append(line)
            continue
        if trouble and line.startswith("#"):
            flush()
            m = re.match(r"^### `([^`]*\s[^`]*)`", line)  # (a message: words, not a name)
            if m:
                out.append(m.group(1))
            continue
        if line.startswith("* ") or not line.strip():
            flush()
        if line.strip():
            para.append(line)
    flush()
    return out


def test_form(line, subs):
    """line as the test's assertion spells it."""
    pairs, dq = [], False
    for s in subs.split(" || ") if subs else []:
        if s == "dq":
            dq = True
        elif "=>" in s:
            a, b = s.split("=>", 1)
            pairs.append((a, b))
        else:
            raise ValueError("bad substitution %r" % s)
    pairs.sort(key=lambda p: -len(p[0]))
    out, i = [], 0
    while i < len(line):
        for a, b in pairs:
            if a and line.startswith(a, i):
                out.append(b)
                i += len(a)
                break
        else:
            c = line[i]
            out.append("\\" + c if dq and c in '"\\$`' else c)
            i += 1
    return "".join(out)


def check(registry, files):
    problems = []
    have = {}
    for path in files:
        for line in quoted(path):
            have.setdefault((path, line), 0)
    rows = set()
    for n, row in enumerate(open(registry, encoding="utf-8").read().split("\n"), 1):
        if not row.strip() or row.startswith("#"):
            continue
        f = row.split("\t")
        if len(f) != 4:
            problems.append("%s:%d: not four fields separated by tabs" % (registry, n))
            continue
        doc, line, test, subs = f
        rows.add((doc, line))
        if (doc, line) not in have:
            problems.append("%s:%d: %s quotes no such line: %s" % (registry, n, doc, line))
        if test == "-":  # another program's line no test here can make: the reason given
            if not subs.startswith("untested: ") or len(subs) < 30:
                problems.append("%s:%d: no test and no reason (\"untested: ...\")" % (registry, n))
            continue
        if not os.path.isfile(test):
            problems.append("%s:%d: no test file %s" % (registry, n, test))
            continue
        try:
            want = test_form(line, subs)
        except ValueError as e:
            problems.append("%s:%d: %s" % (registry, n, e))
            continue
        if want not in open(test, encoding="utf-8").read():
            problems.append("%s:%d: %s does not assert: %s" % (registry, n, test, want))
    for doc, line in have:
        if (doc, line) not in rows:
            problems.append("%s: quoted line with no test in %s: %s" % (doc, registry, line))
    for p in problems:
        print(p)
    return 1 if problems else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "check":
        return check(argv[2], argv[3:])
    if len(argv) == 3 and argv[1] == "list-untested":
        for row in open(argv[2], encoding="utf-8").read().split("\n"):
            f = row.split("\t")
            if len(f) == 4 and not row.startswith("#") and f[2] == "-":
                print("%s: %s (%s)" % (f[0], f[1], f[3]))
        return 0
    if len(argv) >= 2 and argv[1] == "list":
        for path in argv[2:]:
            for line in quoted(path):
                print("%s\t%s" % (path, line))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
