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
