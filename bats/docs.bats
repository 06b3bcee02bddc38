#!/usr/bin/env bats
# The documentation: a README that fits on a page, links that lead somewhere.

load helpers/common

DOCS_LINKS=$CTK_REPO/bats/helpers/doc-links.py

@test "README.md fits on a page: at most 200 lines" {
        n=$(wc -l <"$CTK_REPO/README.md")
        echo "README.md has $n lines"
        [ "$n" -le 200 ]
}

@test "every relative link of README, CONTRIBUTING, ARCHITECTURE and docs/ names an existing file and heading" {
        cd "$CTK_REPO"
        run python3 "$DOCS_LINKS" README.md CONTRIBUTING.md ARCHITECTURE.md docs/*.md sim/bench/README.md
        echo "$output"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
}

@test "every page of docs/ is linked from the README" {
        cd "$CTK_REPO"
        for page in docs/*.md; do
                grep -qF "]($page)" README.md || {
                        echo "README.md does not link $page"
                        return 1
                }
        done
}

@test "the link check finds a missing file, a missing heading and nothing in code" {
        d=$BATS_TEST_TMPDIR/d
        mkdir -p "$d/sub"
        cat >"$d/sub/page.md" <<'MD'
# A page
## `--gpus`
## Files under attack
## Twice
## Twice
MD
        cat >"$d/index.md" <<'MD'
# Index
Good: [page](sub/page.md), [flag](sub/page.md#--gpus), [files](sub/page.md#files-under-attack),
[second](sub/page.md#twice-1), [here](#index), [dir](sub/), [web](https://example.com/x.md).
Bad: [gone](sub/gone.md) and [heading](sub/page.md#no-such-heading) and [thrice](sub/page.md#twice-2).
Code is not a link: `[x](nowhere.md)`
```
[y](nowhere-either.md)
```
MD
        run python3 "$DOCS_LINKS" "$d/index.md"
        echo "$output"
        [ "$status" -eq 1 ]
        [ "${#lines[@]}" -eq 3 ]
        [ "${lines[0]}" = "$d/index.md:4: sub/gone.md: no such file" ]
        [ "${lines[1]}" = "$d/index.md:4: sub/page.md#no-such-heading: no heading 'no-such-heading' in $d/sub/page.md" ]
        [ "${lines[2]}" = "$d/index.md:4: sub/page.md#twice-2: no heading 'twice-2' in $d/sub/page.md" ]
}

@test "LICENSE is the Apache License 2.0 the Debian package declares" {
        grep -q '^ *Apache License$' "$CTK_REPO/LICENSE"
        grep -q '^ *Version 2.0, January 2004$' "$CTK_REPO/LICENSE"
        grep -q '^License: Apache-2.0$' "$CTK_REPO/packaging/debian/copyright"
}

DOC_LINES=$CTK_REPO/bats/helpers/doc-lines.py

@test "every error line the documentation quotes is asserted, as quoted, by a test (bats/doc-lines.tsv), and nothing else is listed" {
        cd "$CTK_REPO"
        run python3 "$DOC_LINES" check bats/doc-lines.tsv README.md docs/*.md
        echo "$output"
        [ "$status" -eq 0 ]
        [ -z "$output" ]
        # (another program's lines no test here can make, said in the log)
        python3 "$DOC_LINES" list-untested bats/doc-lines.tsv | sed 's/^/# untested: /' >&3
}

@test "the doc-lines check finds a quoted line without a row, a row the page does not quote, a test that does not assert it, a row without a test or a reason" {
        d=$BATS_TEST_TMPDIR
        mkdir -p "$d/docs" "$d/bats"
        cat >"$d/docs/troubleshooting.md" <<'MD'
# Troubleshooting
### `GPU 9 does not exist (this host has GPUs 0-3)`
### `log-file` is a name, not a message
* `no such device in FILE (LIST)`: a bullet's
  first code span
```
amd-ctk: /etc/x/config.json:1:2: "mode" must be a string
amd-ctk: not listed anywhere
amd-ctk: nor this one
```
```sh
amd-ctk gpu list            # a command, not a message
```
MD
        cat >"$d/bats/x.bats" <<'BATS'
[ "$output" = "amd-ctk: $CFG:1:2: \"mode\" must be a string" ]
[ "$output" = "$CDI/amd.json: no such device in $CDI/amd.json (0-3, all)" ]
BATS
        printf '%s\t%s\t%s\t%s\n' \
                docs/troubleshooting.md 'GPU 9 does not exist (this host has GPUs 0-3)' bats/x.bats '' \
                docs/troubleshooting.md 'no such device in FILE (LIST)' bats/x.bats 'FILE=>$CDI/amd.json || LIST=>0-3, all' \
                docs/troubleshooting.md 'amd-ctk: /etc/x/config.json:1:2: "mode" must be a string' bats/x.bats '/etc/x/config.json=>$CFG || dq' \
                docs/troubleshooting.md 'a line the page does not have' bats/x.bats '' \
                docs/troubleshooting.md 'amd-ctk: not listed anywhere' - '' >"$d/lines.tsv"
        cd "$d"
        run python3 "$DOC_LINES" check lines.tsv docs/troubleshooting.md
        echo "$output"
        [ "$status" -eq 1 ]
        [ "${#lines[@]}" -eq 5 ]
        [ "${lines[0]}" = "lines.tsv:1: bats/x.bats does not assert: GPU 9 does not exist (this host has GPUs 0-3)" ]
        [ "${lines[1]}" = "lines.tsv:4: docs/troubleshooting.md quotes no such line: a line the page does not have" ]
        [ "${lines[2]}" = "lines.tsv:4: bats/x.bats does not assert: a line the page does not have" ]
        [ "${lines[3]}" = 'lines.tsv:5: no test and no reason ("untested: ...")' ]
        [ "${lines[4]}" = "docs/troubleshooting.md: quoted line with no test in lines.tsv: amd-ctk: nor this one" ]
}
