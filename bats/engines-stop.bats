#!/usr/bin/env bats
# engines_stop (helpers/engines.bash) ends the processes of the engines'
# mount namespace, found by its number: the kernel gives that number to the
# next mount namespace made once the engines' is gone, such as the one of a
# container another test file creates at that moment.  engines_stop holds
# the namespace while it looks, so such a process is never taken for one of
# ours (killing a container between its create and its start made Podman
# fail to attach: "failed to connect to container's attach socket", exit
# 127, in engines-matrix.bats beside other files).

load helpers/common
load helpers/engines

setup() {
        T=$BATS_TEST_TMPDIR
        CG=$CTK_REPO/bats/helpers/cgroup.sh
        VICTIM=""
}

teardown() {
        [ -z "$VICTIM" ] || { kill "$VICTIM" 2>/dev/null; wait "$VICTIM" 2>/dev/null; } || true
        engines_stop
}

# mntns PID: the number of PID's mount namespace
mntns() { readlink "/proc/$1/ns/mnt"; }

# in_our_cgroup PID: PID runs in the engines' namespace, in its cgroup
in_our_cgroup() {
        [ -d "/proc/$1" ] || return 2
        grep -qF "/$(basename "$(head -n 1 "$ENGINES_DIR/cgroups")")/init" "/proc/$1/cgroup" &&
                [ "$(mntns "$1")" != "$(mntns $$)" ]
}

@test "engines_stop ends its namespace's processes, never one of a namespace that got its number afterwards" {
        # the engines' namespace, as engines_start makes it (without a root)
        ENGINES_DIR=$(ctk_tmpdir engines)
        sh "$CG" make "$ENGINES_DIR/cgroups" stop-test
        setsid sh "$CG" launch "$ENGINES_DIR/cgroups" unshare -m -C --propagation private sh -c \
                'sh "$1" mount "$2/cgroups" /sys/fs/cgroup host $$ && exec sleep infinity' sh "$CG" "$ENGINES_DIR" \
                </dev/null >/dev/null 2>&1 3>&- &
        local holder=$!
        echo "$holder" >"$ENGINES_DIR/ns.pid"
        ctk_wait_for 20 in_our_cgroup "$holder"
        # Another test's container comes up as soon as the namespace has no
        # process left: engines_stop pauses after its kill, and that is
        # when it starts.
        sleep() {
                if [ -z "$VICTIM" ]; then
                        wait "$holder" || true # (killed: reaped, its namespace is gone)
                        unshare -m --propagation private sleep 1000 </dev/null >/dev/null 2>&1 3>&- &
                        VICTIM=$!
                        while [ "$(mntns "$VICTIM")" = "$(mntns $$)" ]; do command sleep 0.01; done
                fi
                command sleep "$@"
        }
        engines_stop
        unset -f sleep
        [ -n "$VICTIM" ]
        kill -0 "$VICTIM" # not killed
        [ -z "${ENGINES_DIR:-}" ]
}
