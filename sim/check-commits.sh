#!/bin/sh
# Commit subjects are at most 72 characters (git log --oneline stays
# readable; the detail goes in the body).  Checked on the commits after
# BASE, the main branch's tip when the rule was made: older history is not
# rewritten.  Prints one line per subject too long; exits 1 if any.
#
#   sh sim/check-commits.sh [DIR [BASE]]     (DIR: a git work tree, default this one)
set -eu
cd "${1:-$(dirname "$0")/..}"
base=${2:-dbc14f938d4d6d5447c0d63d023eea7803c38a3f}
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
        echo "commits: $base is not in this clone (shallow?): subjects not checked"
        exit 0
fi
git log --format='%h%x09%s' "$base..HEAD" | awk -F '\t' '
        length($2) > 72 { printf "commit %s: subject of %d characters (at most 72): %s\n", $1, length($2), $2; bad = 1 }
        END { if (!bad) print "commits: ok"; exit bad }'
