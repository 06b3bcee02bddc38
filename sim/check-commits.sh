#!/bin/sh
# Commit subjects are at most 72 characters (git log --oneline stays
# readable; the detail goes in the body).  Checked on the commits after
# BASE, the main branch's tip once every branch made before the rule had
# been merged (one such subject has 73 characters): older history is not
# rewritten.  Prints one line per subject too long; exits 1 if any.
#
#   sh sim/check-commits.sh [DIR [BASE]]     (DIR: a git work tree, default this one)
set -eu
cd "${1:-$(dirname "$0")/..}"
base=${2:-8a0de5d189027154934a8066ed5dbd7f9124e793}
if ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
        echo "commits: $base is not in this clone (shallow?): subjects not checked"
        exit 0
fi
git log --format='%h%x09%s' "$base..HEAD" | awk -F '\t' '
        length($2) > 72 { printf "commit %s: subject of %d characters (at most 72): %s\n", $1, length($2), $2; bad = 1 }
        END { if (!bad) print "commits: ok"; exit bad }'
