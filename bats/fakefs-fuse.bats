#!/usr/bin/env bats
# The FUSE fake host: lifecycle, device nodes, same answers as --profile and
# the materialized tree, live repartitioning, fault injection, concurrency.

bats_require_minimum_version 1.5.0
load helpers/common
load helpers/fakefs

setup() {
        fakefs_require_fuse
        TMP="$(mktemp -d "${TMPDIR:-/tmp}/fakefs-fuse.XXXXXX")"
}

teardown() {
        fakefs_teardown
        rm -rf "$TMP"
        [ -z "${CG:-}" ] || rmdir "$CG"/* "$CG" 2>/dev/null || true
}

GPU0=sys/devices/pci0000:00/0000:05:00.0

# amd-ctk with status, stdout and stderr in one string, for comparisons
ctk_all() {
        local out err status=0
        out="$("$FAKEFS_CTK" "$@" 2>"$TMP/stderr")" || status=$?
        err="$(cat "$TMP/stderr")"
        printf 'status=%s\n%s\nstderr:\n%s\n' "$status" "$out" "$err"
}

@test "mount, read, umount: nothing left in mountinfo, the server exits" {
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        [ "$(cat "$FAKEFS_MNT/sys/bus/pci/devices/0000:03:00.0/device")" = "0x740f" ]
        [ "$(ls "$FAKEFS_MNT/sys/module/amdgpu/drivers/pci:amdgpu")" = "$(printf '0000:03:00.0\n0000:26:00.0\n0000:43:00.0\n0000:63:00.0')" ]
        grep -q "^unique_id 16876665094921906997$" "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/4/properties"
        grep -q " $FAKEFS_MNT .* fuse.amd-ctk-fakefs " /proc/self/mountinfo
        run "$FAKEFS_BIN" umount "$FAKEFS_MNT"
        [ "$status" -eq 0 ]
        ! grep -q " $FAKEFS_MNT " /proc/self/mountinfo || false
        fakefs_wait_gone "$FAKEFS_PID"
}

@test "SIGTERM unmounts cleanly" {
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        kill -TERM "$FAKEFS_PID"
        fakefs_wait_gone "$FAKEFS_PID"
        ! grep -q " $FAKEFS_MNT " /proc/self/mountinfo
}

@test "--foreground: SIGINT stops the server (also as a background job, where the shell ignores SIGINT)" {
        mnt="$TMP/mnt"
        mkdir "$mnt"
        echo "$mnt" >>"$(fakefs_list)"
        "$FAKEFS_BIN" mount "$FAKEFS_PROFILES/seed-4xmi210.json" "$mnt" --foreground --pidfile "$mnt.pid" &
        pid=$!
        for i in $(seq 100); do fakefs_is_mounted "$mnt" && break; sleep 0.1; done
        fakefs_is_mounted "$mnt"
        [ "$(cat "$mnt.pid")" = "$pid" ]
        kill -INT "$pid"
        fakefs_wait_gone "$pid" # fails after 10 s instead of hanging
        status=0
        wait "$pid" || status=$?
        [ "$status" -eq 0 ]
        ! fakefs_is_mounted "$mnt"
}

@test "the tree refuses to be changed: create, mkdir, remove, rename, chmod" {
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        run bash -c "echo x > '$FAKEFS_MNT/sys/new'"
        [[ "$output" == *"Permission denied"* ]]
        run mkdir "$FAKEFS_MNT/sys/d"
        [ "$status" -ne 0 ]
        run rm "$FAKEFS_MNT/dev/kfd"
        [ "$status" -ne 0 ]
        run mv "$FAKEFS_MNT/dev/kfd" "$FAKEFS_MNT/dev/kfd2"
        [ "$status" -ne 0 ]
        run chmod 0666 "$FAKEFS_MNT/dev/kfd"
        [ "$status" -ne 0 ]
        [ "$(stat -c '%a' "$FAKEFS_MNT/dev/kfd")" = "660" ]
        [ -z "$(ls "$FAKEFS_MNT/sys" | grep -v -x -e bus -e class -e devices -e module)" ]
}

@test "SIGKILL of the server: the teardown leaves no mount" {
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        kill -KILL "$FAKEFS_PID"
        fakefs_wait_gone "$FAKEFS_PID"
        run ls "$FAKEFS_MNT/sys"
        [ "$status" -ne 0 ] # a dead mount: "Transport endpoint is not connected"
        grep -q " $FAKEFS_MNT " /proc/self/mountinfo
        fakefs_unmount "$FAKEFS_MNT"
        ! grep -q " $FAKEFS_MNT " /proc/self/mountinfo
}

@test "umount refuses what is not an amd-ctk-fakefs mount; usage errors exit 2" {
        run "$FAKEFS_BIN" umount "$TMP"
        [ "$status" -eq 1 ]
        [[ "$output" == *"is not an amd-ctk-fakefs mount point"* ]]
        run "$FAKEFS_BIN" umount /proc
        [ "$status" -eq 1 ]
        run "$FAKEFS_BIN" umount
        [ "$status" -eq 2 ]
        run "$FAKEFS_BIN" mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        [ "$status" -eq 2 ]
        run "$FAKEFS_BIN" mount --bogus "$FAKEFS_PROFILES/seed-4xmi210.json" "$TMP"
        [ "$status" -eq 2 ]
        run "$FAKEFS_BIN" mount --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"current_compute_partition"* ]]
        run "$FAKEFS_BIN" umount --help
        [ "$status" -eq 0 ]
}

@test "mount errors: bad profile, missing mount point, bad faults file; nothing is mounted" {
        printf '{"gpus": [}' >"$TMP/bad.json"
        run "$FAKEFS_BIN" mount "$TMP/bad.json" "$TMP"
        [ "$status" -eq 1 ]
        [[ "$output" == "amd-ctk-fakefs: $TMP/bad.json:1:"* ]]
        run "$FAKEFS_BIN" mount "$FAKEFS_PROFILES/seed-4xmi210.json" "$TMP/missing"
        [ "$status" -eq 1 ]
        [[ "$output" == *"mount point $TMP/missing"* ]]
        printf 'eio /sys/x\nexplode\n' >"$TMP/faults"
        run "$FAKEFS_BIN" mount "$FAKEFS_PROFILES/seed-4xmi210.json" "$TMP" --faults "$TMP/faults"
        [ "$status" -eq 1 ]
        [[ "$output" == *"$TMP/faults:2: expected"* ]]
        ! grep -q " $TMP " /proc/self/mountinfo
}

@test "device nodes: stat shows the profile's numbers, mode and group; by-path links resolve" {
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        [ "$(stat -c '%t %T %a %g' "$FAKEFS_MNT/dev/dri/renderD130")" = "e2 82 660 109" ]
        [ "$(stat -c '%t %T %a %g' "$FAKEFS_MNT/dev/dri/card2")" = "e2 2 660 44" ]
        [ "$(stat -c '%t %T %a %g' "$FAKEFS_MNT/dev/kfd")" = "eb 0 660 109" ]
        [ "$(stat -c '%F' "$FAKEFS_MNT/dev/kfd")" = "character special file" ]
        [ "$(readlink "$FAKEFS_MNT/dev/dri/by-path/pci-0000:03:00.0-render")" = "../renderD130" ]
        [ "$(stat -L -c '%t %T' "$FAKEFS_MNT/dev/dri/by-path/pci-0000:63:00.0-card")" = "e2 0" ]
        [ "$(readlink -f "$FAKEFS_MNT/sys/class/drm/renderD131")" = "$FAKEFS_MNT/sys/devices/pci0000:00/0000:26:00.0/drm/renderD131" ]
        # readable by other users (allow_other)
        run setpriv --reuid=65534 --regid=65534 --clear-groups cat "$FAKEFS_MNT/sys/bus/pci/devices/0000:03:00.0/vendor"
        [ "$status" -eq 0 ]
        [ "$output" = "0x1002" ]
        # files are read-only except the partition switches
        run sh -c "echo 0x1234 > '$FAKEFS_MNT/sys/bus/pci/devices/0000:03:00.0/vendor'"
        [ "$status" -ne 0 ]
        [ "$(cat "$FAKEFS_MNT/sys/bus/pci/devices/0000:03:00.0/vendor")" = "0x1002" ]
}

@test "device nodes: owners, groups and modes other than root's come from the profile" {
        jq '.kfd.device += {uid: 11, gid: 12, mode: "0606"} | .dri.card += {uid: 21, gid: 22, mode: "0640"}
            | .dri.render += {uid: 31, gid: 32, mode: "0666"}' \
                "$FAKEFS_PROFILES/seed-4xmi210.json" >"$TMP/owners.json"
        fakefs_mount "$TMP/owners.json"
        [ "$(stat -c '%t %T %a %u %g' "$FAKEFS_MNT/dev/kfd")" = "eb 0 606 11 12" ]
        [ "$(stat -c '%t %T %a %u %g' "$FAKEFS_MNT/dev/dri/card2")" = "e2 2 640 21 22" ]
        [ "$(stat -c '%t %T %a %u %g' "$FAKEFS_MNT/dev/dri/renderD130")" = "e2 82 666 31 32" ]
        [ "$(stat -L -c '%u %g' "$FAKEFS_MNT/dev/dri/by-path/pci-0000:63:00.0-render")" = "31 32" ]
}

@test "every profile: the FUSE mount is the materialized tree; gpu list, cdi list and cdi generate agree through all three" {
        for p in "$FAKEFS_PROFILES"/*.json; do
                name=$(basename "$p" .json)
                "$FAKEFS_BIN" materialize "$p" "$TMP/$name"
                fakefs_mount "$p"
                listing() { (cd "$1" && find sys dev -printf '%p %y %m %U %G %l\n' | LC_ALL=C sort); }
                diff <(listing "$TMP/$name") <(listing "$FAKEFS_MNT")
                diff <(cd "$TMP/$name" && find sys dev -type c -exec stat -c '%n %t %T' {} + | sort) \
                        <(cd "$FAKEFS_MNT" && find sys dev -type c -exec stat -c '%n %t %T' {} + | sort)
                # every file's bytes (one process: the KFD topology of a capture is thousands of files)
                diff -r --no-dereference "$TMP/$name/sys" "$FAKEFS_MNT/sys"
                for cmd in "gpu list --json" "gpu list" "gpu list --all-vendors" "cdi list" \
                        "cdi generate --output -" "cdi generate --output - --device-name-strategy index,uuid"; do
                        a=$(ctk_all --profile "$p" $cmd)
                        b=$(ctk_all --root "$FAKEFS_MNT" $cmd)
                        c=$(ctk_all --root "$TMP/$name" $cmd)
                        # a FUSE host's spec also binds its sysfs into containers (simulation.md):
                        # its top-level containerEdits, the last member
                        if [[ "$cmd" == "cdi generate"* ]] && [[ "$b" == *'"containerEdits": {'* ]]; then
                                b=$(awk '/^  \],$/ && !done { print "  ]"; skip = 1; done = 1; next }
                                        skip && /^}$/ { skip = 0 } !skip' <<<"$b")
                        fi
                        if [ "$a" != "$b" ] || [ "$a" != "$c" ]; then
                                echo "$name: amd-ctk $cmd differs"
                                diff <(echo "$a") <(echo "$b") || true
                                diff <(echo "$a") <(echo "$c") || true
                                return 1
                        fi
                done
                fakefs_unmount "$FAKEFS_MNT"
        done
}

count() { "$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json | grep -c '"index"'; }

@test "repartition GPU 0 of mi300x-spx-x8: SPX -> CPX gives 15 devices, back to SPX restores the output" {
        fakefs_mount "$FAKEFS_PROFILES/mi300x-spx-x8.json"
        before=$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)
        [ "$(count)" -eq 8 ]
        [ "$(cat "$FAKEFS_MNT/$GPU0/available_compute_partition")" = "SPX, DPX, QPX, CPX" ]
        echo CPX >"$FAKEFS_MNT/$GPU0/current_compute_partition"
        [ "$(cat "$FAKEFS_MNT/$GPU0/current_compute_partition")" = "CPX" ]
        [ "$(cat "$FAKEFS_MNT/sys/class/kfd/kfd/topology/generation_id")" = "2" ]
        [ "$(count)" -eq 15 ]
        json=$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)
        # GPU 0's 8 partitions are indices 0-7 (renderD128-135), GPU 1 moves from index 1 to 8
        [ "$(echo "$json" | jq -r '.[7].pci, .[7].render_minor, .[7].partition')" = "$(printf '0000:05:00.0\n135\n')" ]
        [ "$(echo "$json" | jq -r '.[0].partition')" = "cpx_nps1" ]
        [ "$(echo "$json" | jq -r '.[8].pci, .[8].render_minor')" = "$(printf '0000:27:00.0\n136')" ]
        [ "$(echo "$json" | jq -r '[.[].uuid] | unique | length')" -eq 8 ]
        [ "$(ls "$FAKEFS_MNT/sys/devices/platform")" = "$(printf 'amdgpu_xcp_%s\n' 0 1 2 3 4 5 6)" ]
        echo spx >"$FAKEFS_MNT/$GPU0/current_compute_partition"
        [ "$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)" = "$before" ]
        [ "$(cat "$FAKEFS_MNT/sys/class/kfd/kfd/topology/generation_id")" = "3" ]
}

@test "a file kept open reads what the host holds now: after a repartition, a fault rule, an unplug" {
        fakefs_mount "$FAKEFS_PROFILES/mi300x-spx-x8.json"
        # (pread: each read from offset 0 again, the second one from what the
        # kernel kept of the first)
        run python3 - "$FAKEFS_MNT" "$GPU0" <<'EOF_PY'
import os, sys
mnt, gpu = sys.argv[1:]
def ctl(line):
    with open(mnt + "/.fakefs/ctl", "w") as f:
        f.write(line + "\n")
def read(fd):
    try:
        return os.pread(fd, 4096, 0).decode().strip()
    except OSError as e:
        return e.strerror
part = os.open(mnt + "/" + gpu + "/current_compute_partition", os.O_RDONLY)
gen = os.open(mnt + "/sys/class/kfd/kfd/topology/generation_id", os.O_RDONLY)
print(read(part), read(gen), read(part), read(gen))
with open(mnt + "/" + gpu + "/current_compute_partition", "w") as f:
    f.write("CPX\n")
print(read(part), read(gen))
ctl("eio /sys/class/kfd/kfd/topology/generation_id")
print(read(gen))
ctl("clear")
print(read(gen))
ctl("unplug 0000:05:00.0")
print(read(part), read(gen))
EOF_PY
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf 'SPX 1 SPX 1\nCPX 2\nInput/output error\n2\nNo such file or directory 3')" ]
}

@test "repartition: an unsupported mode is refused with EINVAL and nothing changes" {
        fakefs_mount "$FAKEFS_PROFILES/mi300x-spx-x8.json"
        before=$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)
        run bash -c "echo HPX > '$FAKEFS_MNT/$GPU0/current_compute_partition'"
        [ "$status" -ne 0 ]
        [[ "$output" == *"Invalid argument"* ]]
        run bash -c "echo NPS2 > '$FAKEFS_MNT/$GPU0/current_memory_partition'"
        [[ "$output" == *"Invalid argument"* ]]
        [ "$(cat "$FAKEFS_MNT/$GPU0/current_compute_partition")" = "SPX" ]
        [ "$(cat "$FAKEFS_MNT/sys/class/kfd/kfd/topology/generation_id")" = "1" ]
        [ "$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)" = "$before" ]
        # a GPU without partition support has no partition files to write
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        [ ! -e "$FAKEFS_MNT/sys/devices/pci0000:00/0000:03:00.0/current_compute_partition" ]
}

@test "repartition: memory mode NPS4 and DPX/QPX" {
        fakefs_mount "$FAKEFS_PROFILES/mi300x-spx-x8.json"
        echo NPS4 >"$FAKEFS_MNT/$GPU0/current_memory_partition"
        [ "$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json | jq -r '.[0].partition')" = "spx_nps4" ]
        echo DPX >"$FAKEFS_MNT/sys/devices/pci0000:00/0000:27:00.0/current_compute_partition"
        [ "$(count)" -eq 9 ]
        echo QPX >"$FAKEFS_MNT/sys/devices/pci0000:00/0000:27:00.0/current_compute_partition"
        [ "$(count)" -eq 11 ]
}

@test "KFD reads follow the reader's device cgroup at each open: moved, moved back, cgroup made again" {
        local dev=/sys/fs/cgroup/devices
        [ -w "$dev/cgroup.procs" ] || skip "no cgroup v1 devices hierarchy on this host"
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        CG=$dev/ctk-test-devcg-$$
        mkdir "$CG" "$CG/open" "$CG/shut"
        echo 'c 226:* rwm' >"$CG/shut/devices.deny"
        # one process (its reads are the shell's own): the same pid in three cgroups
        run sh -c '
                f=$1 cg=$2 dev=$3
                r() { if read -r line <"$f" 2>/dev/null; then echo "$1 read"; else echo "$1 refused"; fi; }
                echo $$ >"$cg/open/cgroup.procs" && r open
                echo $$ >"$cg/shut/cgroup.procs" && r shut
                echo $$ >"$cg/open/cgroup.procs" && r open-again
                rmdir "$cg/shut" && mkdir "$cg/shut" && echo $$ >"$cg/shut/cgroup.procs" && r shut-made-again
                echo $$ >"$dev/cgroup.procs"' sh "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/4/properties" "$CG" "$dev"
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf 'open read\nshut refused\nopen-again read\nshut-made-again read')" ]
}

@test "faults: eio on one KFD properties file gives one clear error line, no partial table" {
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json"
        echo "eio /sys/class/kfd/kfd/topology/nodes/3/properties" >"$FAKEFS_MNT/.fakefs/ctl"
        [ "$(cat "$FAKEFS_MNT/.fakefs/ctl")" = "eio /sys/class/kfd/kfd/topology/nodes/3/properties" ]
        run cat "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/3/properties"
        [[ "$output" == *"Input/output error"* ]]
        for args in "gpu list" "gpu list --json"; do
                run --separate-stderr timeout 20 "$FAKEFS_CTK" --root "$FAKEFS_MNT" $args
                [ "$status" -eq 1 ]
                [ -z "$output" ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == *"nodes/3/properties"* ]]
        done
        echo clear >"$FAKEFS_MNT/.fakefs/ctl"
        [ -z "$(cat "$FAKEFS_MNT/.fakefs/ctl")" ]
        [ "$(count)" -eq 4 ]
}

@test "faults: unplug one GPU gives the reduced list, plug restores it" {
        fakefs_mount "$FAKEFS_PROFILES/mi300x-spx-x8.json"
        before=$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)
        echo "unplug 0000:27:00.0" >"$FAKEFS_MNT/.fakefs/ctl"
        [ "$(cat "$FAKEFS_MNT/.fakefs/ctl")" = "unplug 0000:27:00.0" ]
        [ ! -e "$FAKEFS_MNT/sys/bus/pci/devices/0000:27:00.0" ]
        [ ! -e "$FAKEFS_MNT/dev/dri/renderD136" ]
        run --separate-stderr timeout 20 "$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json
        [ "$status" -eq 0 ]
        [ "$(echo "$output" | jq length)" -eq 7 ]
        [ "$(echo "$output" | jq -r '.[1].pci')" = "0000:47:00.0" ]
        echo "plug 0000:27:00.0" >"$FAKEFS_MNT/.fakefs/ctl"
        [ "$("$FAKEFS_CTK" --root "$FAKEFS_MNT" gpu list --json)" = "$before" ]
}

@test "faults: enoent hides paths, delay slows them, bad rules are refused, --faults applies at start" {
        printf '# start with GPU 0 gone\nunplug 0000:03:00.0\n\nenoent /sys/class/kfd/kfd/topology/nodes/5\n' >"$TMP/faults"
        fakefs_mount "$FAKEFS_PROFILES/seed-4xmi210.json" --faults "$TMP/faults"
        [ "$(cat "$FAKEFS_MNT/.fakefs/ctl")" = "$(printf 'enoent /sys/class/kfd/kfd/topology/nodes/5\nunplug 0000:03:00.0')" ]
        [ ! -e "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/5" ]
        ! ls "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes" | grep -qx 5 || false
        run bash -c "echo 'explode /sys' > '$FAKEFS_MNT/.fakefs/ctl'"
        [[ "$output" == *"Invalid argument"* ]]
        run bash -c "echo 'unplug 0000:99:00.0' > '$FAKEFS_MNT/.fakefs/ctl'"
        [[ "$output" == *"No such file or directory"* ]]
        echo "delay 400 /sys/class/kfd/kfd/topology/generation_id" >"$FAKEFS_MNT/.fakefs/ctl"
        start=$(date +%s%N)
        cat "$FAKEFS_MNT/sys/class/kfd/kfd/topology/generation_id"
        [ $((($(date +%s%N) - start) / 1000000)) -ge 400 ]
        echo clear >"$FAKEFS_MNT/.fakefs/ctl"
        [ -e "$FAKEFS_MNT/sys/bus/pci/devices/0000:03:00.0" ]
        [ -e "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/5" ]
}

@test "concurrency: 4 readers x 50 discoveries while GPU 0 is repartitioned back and forth" {
        # In-process discoveries (a fresh sysfs backend each time) through the
        # mount; another process switches GPU 0 between SPX and CPX once every
        # 4 discoveries, while 4 more run (paced by pipes, not by time: 4 x 50
        # race 50 switches however loaded the machine).
        readers="${CTK_BIN%/bin}/tests/backends/fakefs/tests/fuse_readers"
        [ -x "$readers" ] || {
                echo "missing $readers: run 'make tests' (make bats builds it)" >&2
                return 1
        }
        fakefs_mount "$FAKEFS_PROFILES/mi300x-spx-x8.json"
        run "$readers" "$FAKEFS_MNT" "$GPU0" 4 50
        echo "$output"
        [ "$status" -eq 0 ]
        [[ "$output" == *"4 readers x 50 discoveries: 0 inconsistent, 0 failed, 0 crashed; "* ]]
}
