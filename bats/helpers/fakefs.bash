# Helpers for bats tests that mount the FUSE fake host (amd-ctk-fakefs mount).
#
#   load helpers/common; load helpers/fakefs
#   setup()    { fakefs_require_fuse; }
#   teardown() { fakefs_teardown; }
#   @test ... { fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"; ls "$FAKEFS_MNT/sys"; }
#
# fakefs_mount PROFILE [mount options...] mounts into a fresh temporary
# directory and sets FAKEFS_MNT and FAKEFS_PID; every mount of a test is
# unmounted by fakefs_teardown (lazily if it is busy or its server died), and
# its server is killed if it is still running.

# The binaries under test and the profiles come from helpers/common.bash
# (CTK_BIN, PROFILES).
: "${CTK_BIN:?load helpers/common before helpers/fakefs}"
FAKEFS_BIN="$CTK_BIN/amd-ctk-fakefs"
FAKEFS_CTK="$CTK_BIN/amd-ctk"
FAKEFS_PROFILES="$PROFILES"

# Skips the test unless FUSE mounts are possible (root and /dev/fuse).
fakefs_require_fuse() {
        [ "$(id -u)" -eq 0 ] || skip "FUSE tests need root"
        [ -c /dev/fuse ] || skip "FUSE tests need /dev/fuse"
        [ -x "$FAKEFS_BIN" ] || {
                echo "build first: make" >&2
                return 1
        }
}

fakefs_list() { echo "${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/fakefs-mounts"; }

fakefs_mount() {
        local profile="$1"
        shift
        FAKEFS_MNT="$(mktemp -d "${TMPDIR:-/tmp}/fakefs-mnt.XXXXXX")"
        echo "$FAKEFS_MNT" >>"$(fakefs_list)"
        "$FAKEFS_BIN" mount "$profile" "$FAKEFS_MNT" --pidfile "$FAKEFS_MNT.pid" "$@" || return 1
        FAKEFS_PID="$(cat "$FAKEFS_MNT.pid")"
        fakefs_is_mounted "$FAKEFS_MNT"
}

# Is DIR a mount point in /proc/self/mountinfo?
fakefs_is_mounted() {
        awk -v m="$1" '$5 == m { found = 1 } END { exit !found }' /proc/self/mountinfo
}

# Waits up to 10 s for a process to exit.
fakefs_wait_gone() {
        local i
        for i in $(seq 100); do
                kill -0 "$1" 2>/dev/null || return 0
                sleep 0.1
        done
        return 1
}

# Unmounts one mount and reaps its server; fails if anything stays behind.
fakefs_unmount() {
        local mnt="$1" pid=""
        [ -f "$mnt.pid" ] && pid="$(cat "$mnt.pid")"
        if fakefs_is_mounted "$mnt"; then
                "$FAKEFS_BIN" umount "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
        fi
        if [ -n "$pid" ] && ! fakefs_wait_gone "$pid"; then
                kill -9 "$pid" 2>/dev/null || true
                fakefs_wait_gone "$pid" || true
        fi
        rm -f "$mnt.pid"
        rmdir "$mnt" 2>/dev/null || true
        ! fakefs_is_mounted "$mnt"
}

fakefs_teardown() {
        local list mnt rc=0
        list="$(fakefs_list)"
        [ -f "$list" ] || return 0
        while read -r mnt; do
                fakefs_unmount "$mnt" || rc=1
        done <"$list"
        rm -f "$list"
        return $rc
}
