#!/usr/bin/env python3
"""Checks the relative links of Markdown files: each [text](target) outside
code must name an existing file or directory, and a #anchor must be a
heading of the target (as GitHub derives anchors from headings).

usage: doc-links.py FILE.md...   (prints FILE:LINE: what is wrong; exit 1)
"""
import os
import re
import sys

LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def strip_code(line):
    """The line with inline code spans blanked (their text is not markup)."""
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def lines_outside_fences(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
            if m:
                if fence is None:
                    fence = m.group(1)[0] * len(m.group(1))
                elif line.strip().startswith(fence):
                    fence = None
                continue
            if fence is None:
                yield n, line.rstrip("\n")


def slug(heading):
    """GitHub's anchor of a heading: its text, lower case, without
    punctuation but '-' and '_', spaces as '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = text.replace("`", "").replace("*", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        found = set()
        for _, line in lines_outside_fences(path):
            m = re.match(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if not m:
                continue
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            found.add(s if n == 0 else "%s-%d" % (s, n))
        _anchors[path] = found
    return _anchors[path]


def check(path):
    problems = []
    base = os.path.dirname(path)
    for n, line in lines_outside_fences(path):
        for m in LINK.finditer(strip_code(line)):
            target = m.group(2)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(base, file)) if file else path
            if not os.path.exists(dest):
                problems.append("%s:%d: %s: no such file" % (path, n, target))
            elif anchor:
                if not dest.endswith(".md") or os.path.isdir(dest):
                    problems.append("%s:%d: %s: an anchor in a file that is not Markdown" % (path, n, target))
                elif anchor not in anchors(dest):
                    problems.append("%s:%d: %s: no heading '%s' in %s" % (path, n, target, anchor, dest))
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    problems = [p for f in argv[1:] for p in check(f)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
