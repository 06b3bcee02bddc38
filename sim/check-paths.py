#!/usr/bin/env python3
"""Comments and docs name files that exist.

Reads the comments of the tracked C files and headers, shell scripts, bats
files and helpers, GNUmakefile and Python scripts, and the whole text of the
Markdown documents, and prints one line for every repository path they name
that does not exist:

    core/tracker/state.h:12: core/tracker/json_fast.c does not exist

A path is a word of the form DIR/.../NAME whose first component is a
top-level entry of the repository (core/x/y.c, sim/foo.sh, bats/x.bats,
docs/), or one relative to the file's own folder whose first component
exists there (fixtures/x.json beside a test, ../README.md in docs/); a
Markdown link's target is resolved from the document's folder.  It exists
when git tracks it or ignores it (build/..., a generated report).  A bare
file name of ours (reconcile.h, cmd_cdi.c, gpu-list.bats) must exist
somewhere in the repository (a .h may also be a system header under
/usr/include).
Paths of the installed system (/etc/..., /usr/...), URLs, and words with a
placeholder (core/F/F.h, fuzz/corpus/NAME, <dir>/x, *.c) are not checked.

    python3 sim/check-paths.py [DIR]    (DIR: a git work tree, default this one)

Prints "paths: ok", or exits 1 when a path is missing.
"""
import os
import re
import subprocess
import sys

COMMENTED = re.compile(r'(\.(c|h|sh|bash|bats|py)|(^|/)GNUmakefile)$')
# bare names checked (those of other projects' scripts and documents are common)
SOURCE_EXT = ('.c', '.h', '.bats')
# a word that may be a path: the characters of file names, and of placeholders
WORD = re.compile(r'[A-Za-z0-9_.+\-/~*?<>{}$]*[A-Za-z0-9_*>}]/[A-Za-z0-9_.+\-/*?<>{}$]*'
                  r'|[A-Za-z0-9_.+\-*<>]+\.(?:c|h|bats)\b')
MD_LINK = re.compile(r'\]\(([^)\s]+)\)')


def c_comments(text):
    """(line, text) of each line of the /* */ and // comments of C text."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
        elif c in '"\'':  # a literal: skipped
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j
        elif text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end
            for k, part in enumerate(text[i + 2:end].split('\n')):
                yield line + k, part
            line += text.count('\n', i, end)
            i = end + 1
        elif text.startswith('//', i):
            end = text.find('\n', i)
            end = n if end < 0 else end
            yield line, text[i + 2:end]
            i = end - 1
        i += 1


def hash_comments(text):
    """(line, text) of each '#' comment: at the start of a line or after a blank
    (so not ${x#y} nor $#)."""
    for k, l in enumerate(text.split('\n')):
        m = re.search(r'(^|\s)#(.*)$', l)
        if m and not l.lstrip().startswith('#!'):
            yield k + 1, m.group(2)


def markdown(text):
    """Every line, the inside of a Markdown link's parentheses set apart."""
    for k, l in enumerate(text.split('\n')):
        yield k + 1, MD_LINK.sub(' ', l)


def placeholder(path):
    """A word that stands for paths (core/F/F.h, fuzz/corpus/NAME, <dir>/x)."""
    if re.search(r'[*?\[\]{}<>$]', path):
        return True
    return any(re.fullmatch(r'[A-Z][A-Z0-9]*', word) for word in re.split(r'[/._-]', path))


class Tree:
    def __init__(self, root):
        self.root = root
        files = subprocess.run(['git', '-C', root, 'ls-files', '-z'], check=True, capture_output=True,
                               text=True).stdout.split('\0')
        self.files = [f for f in files if f and os.path.lexists(os.path.join(root, f))]
        self.top = {f.split('/')[0] for f in self.files}
        self.names = {os.path.basename(f) for f in self.files}
        self.paths = set(self.files)
        for f in self.files:
            while f:
                f = os.path.dirname(f)
                self.paths.add(f)

    def exists(self, rel):
        """Tracked (a file or a folder), or one that git ignores (a build output)."""
        rel = os.path.normpath(rel)
        if rel in self.paths:
            return True
        return any(subprocess.run(['git', '-C', self.root, 'check-ignore', '-q', '--no-index', p]).returncode == 0
                   for p in (rel, rel + '/'))

    def check_word(self, src, word):
        """The repository path word names, if it names one that is missing."""
        word = word.strip('.,:;`\'"()')
        word = re.sub(r':[0-9][0-9,-]*$', '', word)  # file:LINE
        if not word or word.startswith(('/', '~')) or '//' in word or placeholder(word):
            return None
        here = os.path.dirname(src)
        if '/' not in word:
            if not word.endswith(SOURCE_EXT) or word in self.names:
                return None
            if word.endswith('.h') and system_header(word):
                return None
            return word
        first = word.split('/')[0]
        if first in ('.', '..') or (first not in self.top and os.path.join(here, first) in self.paths):
            rel = os.path.join(here, word)
        elif first in self.top:
            rel = word
        else:
            return None
        if os.path.normpath(rel).startswith('..'):
            return None
        return None if self.exists(rel) else word

    def check_link(self, src, target):
        if re.match(r'[a-z]+:', target) or target.startswith(('#', '/')):
            return None
        path = target.split('#')[0]
        if not path or placeholder(path):
            return None
        rel = os.path.normpath(os.path.join(os.path.dirname(src), path))
        return None if self.exists(rel) else target


_system = {}


def system_header(name):
    if name not in _system:
        found = False
        for d, _, names in os.walk('/usr/include'):
            if name in names:
                found = True
                break
        _system[name] = found
    return _system[name]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    tree = Tree(root)
    bad = 0
    for f in sorted(tree.files):
        if f.endswith('.md'):
            reader = markdown
        elif COMMENTED.search(f):
            reader = c_comments if f.endswith(('.c', '.h')) else hash_comments
        else:
            continue
        try:
            with open(os.path.join(root, f), encoding='utf-8', errors='replace') as fh:
                text = fh.read()
        except OSError:
            continue
        found = []
        for line, part in reader(text):
            found += [(line, w) for w in (tree.check_word(f, m.group(0)) for m in WORD.finditer(part)) if w]
        if f.endswith('.md'):
            for k, l in enumerate(text.split('\n')):
                found += [(k + 1, t) for t in (tree.check_link(f, m.group(1)) for m in MD_LINK.finditer(l)) if t]
        for line, w in found:
            print(f'{f}:{line}: {w} does not exist')
            bad = 1
    if not bad:
        print('paths: ok')
    return bad


if __name__ == '__main__':
    sys.exit(main())
