#!/usr/bin/env bats
# `make sim` (sim/sim.sh): the demo runs every part, shows what the documents
# show, and leaves nothing behind.

load helpers/common
load helpers/amd_tools

@test "demo_quote prints commands as a user would type them" {
        . "$CTK_REPO/sim/lib/demo.bash"
        [ "$(demo_quote docker run -e AMD_VISIBLE_DEVICES=0,1 rocm/rocm-terminal)" = \
                "docker run -e AMD_VISIBLE_DEVICES=0,1 rocm/rocm-terminal" ]
        [ "$(demo_quote docker info --format '{{.Runtimes}}')" = "docker info --format '{{.Runtimes}}'" ]
        [ "$(demo_quote echo "it's" '')" = "echo 'it'\\''s' ''" ]
}

@test "demo_run and demo_fails count results that differ from what is shown" {
        . "$CTK_REPO/sim/lib/demo.bash"
        run demo_run sh -c 'echo out; echo err >&2'
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf '$ sh -c %s\nout\nerr' "'echo out; echo err >&2'")" ]
        demo_run false >/dev/null || true
        demo_fails true >/dev/null || true
        demo_fails false >/dev/null
        [ "$DEMO_FAILURES" -eq 2 ]
}

# rows_after PROMPT [N]: the GPU rows of rocm-smi's table in the output of
# the N-th (default first) command printed as PROMPT in sim.out
rows_after() {
        awk -v p="$1" -v n="${2:-1}" -v row="$ROCM_SMI_ROW" '
                $0 == p { k++; on = (k == n); next }
                /^\$ / { on = 0 }
                on && $0 ~ row { c++ }
                END { print c + 0 }' "$BATS_TEST_TMPDIR/sim.out"
}

@test "make sim runs every part of the demo and cleans up after itself" {
        run sh "$CTK_REPO/sim/sim.sh"
        printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/sim.out"
        [ "$status" -eq 0 ]
        [ -z "$(grep -n -e 'not available yet' -e '^!!' "$BATS_TEST_TMPDIR/sim.out")" ]
        [ "${lines[-1]}" = "make sim: done" ]
        # the seed host is mounted over FUSE (not the plain-file fallback) and shown with gpu list and cdi list
        grep -qx '(the host is served over FUSE)' "$BATS_TEST_TMPDIR/sim.out"
        for cmd in "gpu list" "cdi list"; do
                [ "$(grep -A1 -x "\$ amd-ctk --root /tmp/ctk-sim\.[^ ]*/host $cmd" "$BATS_TEST_TMPDIR/sim.out" |
                        sed -n 2p)" = "Found 4 AMD GPU devices" ]
        done
        grep -q '^0         0xEA35F57CC80DEB35       /dev/dri/renderD130 ' "$BATS_TEST_TMPDIR/sim.out"
        # Debian's rocm-smi on the host: the GPU tracker document's table
        grep -q '^0       4     0x740f,   12261  33.0°C  42.0W  N/A, N/A, 0         800Mhz  1600Mhz  0%   auto  300.0W' \
                "$BATS_TEST_TMPDIR/sim.out"
        # the documented sessions happened: each container's rocm-smi lists its GPUs, the =9 error, the
        # exclusive refusal
        [ "$(rows_after '$ docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi')" = 4 ]
        [ "$(rows_after '$ docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal rocm-smi')" = 3 ]
        grep -q 'GPU 9' "$BATS_TEST_TMPDIR/sim.out"
        # 0-3,5,8 on the 63-partition host; amd as the default runtime, then removed
        [ "$(rows_after '$ docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal rocm-smi' 2)" = 6 ]
        grep -q '^default runtime: amd$' "$BATS_TEST_TMPDIR/sim.out"
        grep -q '^Removed the amd runtime$' "$BATS_TEST_TMPDIR/sim.out"
        grep -q 'exclusive' "$BATS_TEST_TMPDIR/sim.out"
        # nothing left: temp directory, daemons, mounts
        dir=$(sed -n 's/^containers, dockerd, containerd, the simulated host and //p' "$BATS_TEST_TMPDIR/sim.out")
        [[ "$dir" == /tmp/ctk-sim.* ]]
        [ ! -e "$dir" ]
        [ -z "$(pgrep -f -- "$dir")" ]
        [ -z "$(ctk_mounts_under "$dir")" ]
}
