#!/usr/bin/env bats
# The groups a container gets for its GPU nodes when user namespaces are
# involved (core/oci/idmap.h): the runtime adds a node's group only when the
# container's user namespace maps it, as the container's id of it, and never
# the overflow gid.  Rootless Podman runs the runtime inside the user's
# namespace, where the nodes' host groups (video, render) are not mapped and
# read as 65534; here `unshare --user --map-root-user` makes such a namespace
# (only root mapped).  The low-level runtime is a stand-in that exits 0: what
# is checked is the spec the runtime wrote (engines-rootless.bats runs real
# containers).

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle
load helpers/fakefs

SEED=seed-4xmi210 # card nodes root:44 0660, render nodes and kfd root:109 0660

setup() {
        command -v runc >/dev/null || fail "runc is not installed"
        command -v unshare >/dev/null || fail "unshare is not installed (util-linux)"
        [ -x "$RT_SHIM" ] || fail "$RT_SHIM is missing (run make)"
        T=$(mktemp -d /tmp/ctk-userns.XXXXXX)
        B=$T/bundle
        ID=ctk-userns-$BATS_TEST_NUMBER-$$
        CFG=$T/config.json
        export RT_STATE_DIR=$T/amd-state
        printf '#!/bin/sh\nexit 0\n' >"$T/low-level"
        chmod 755 "$T/low-level"
        rt_config "$CFG" profile "$RT_PROFILES/$SEED.json" runtime-path "$T/low-level" log-file "$T/runtime.log"
        export AMD_CTK_CONFIG=$CFG
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=2
}

teardown() {
        [ -z "${NS_PID:-}" ] || kill "$NS_PID" 2>/dev/null || true
        fakefs_teardown
        rm -rf "$T"
}

fail() {
        echo "$*" >&2
        return 1
}

gids() { jq -c '.process.user.additionalGids // []' "$B/config.json"; }

create() { "$RT_SHIM" --root "$T/state" create --bundle "$B" "$ID" </dev/null; }

@test "no user namespace: the nodes' groups as they are (the initial namespace maps every group)" {
        run --separate-stderr create
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[44,109]' ]
        [ -z "$stderr" ]
}

@test "a user namespace that does not map the nodes' groups: none is added, one warning line per group naming the fix" {
        run --separate-stderr unshare --user --map-root-user "$RT_SHIM" --root "$T/state" create --bundle "$B" "$ID"
        echo "$stderr"
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[]' ]
        [ "${stderr_lines[0]}" = "amd-container-runtime: warning: container $ID: the group of /dev/dri/card1 is not added to the container's groups: the runtime's user namespace does not map it (it reads as gid 44); a rootless container opens them when it keeps the groups of its user (who must be in that group): Podman's --group-add keep-groups, Docker's --annotation run.oci.keep_original_groups=1, with crun as the low-level runtime" ]
        [ "${stderr_lines[1]}" = "amd-container-runtime: warning: container $ID: the group of /dev/dri/renderD129, /dev/kfd is not added to the container's groups: the runtime's user namespace does not map it (it reads as gid 109); a rootless container opens them when it keeps the groups of its user (who must be in that group): Podman's --group-add keep-groups, Docker's --annotation run.oci.keep_original_groups=1, with crun as the low-level runtime" ]
        [ "${#stderr_lines[@]}" -eq 2 ]
        # the devices themselves are there
        [ "$(jq -c '[.linux.devices[].path]' "$B/config.json")" = '["/dev/dri/card1","/dev/dri/renderD129","/dev/kfd"]' ]
        grep -q 'level=WARNING.*the group of /dev/dri/card1 is not added' "$T/runtime.log"
}

# rootless_ns_start: a user namespace shaped like rootless Podman's (root
# -> root, 1..65536 -> 100000..165535: the overflow gid 65534 is mapped, to
# a subordinate-like id, as in the user's namespace); rootless_ns CMD...
# runs CMD in it as its root.
rootless_ns_start() {
        unshare --user sleep infinity 3>&- &
        NS_PID=$!
        ctk_wait_for 10 _ns_new || return 1
        local m
        for m in gid_map uid_map; do
                python3 -c 'import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.write(fd, b"0 0 1\n1 100000 65536\n")' "/proc/$NS_PID/$m" || return 1
        done
}
_ns_new() {
        kill -0 "$NS_PID" 2>/dev/null || return 2
        [ "$(readlink "/proc/$NS_PID/ns/user")" != "$(readlink /proc/self/ns/user)" ]
}
rootless_ns() { nsenter --user -t "$NS_PID" "$@"; }

@test "nodes served by the kernel: unmapped groups read as the overflow gid, which is never added, even where the namespace maps it" {
        fakefs_require_fuse
        fakefs_mount "$FAKEFS_PROFILES/$SEED.json"
        rt_config "$CFG" root "$FAKEFS_MNT" runtime-path "$T/low-level" log-file "$T/runtime.log"
        rootless_ns_start
        [ "$(rootless_ns awk '$1 == 1 { print $2 }' /proc/self/gid_map)" = 100000 ]
        # what the kernel answers inside the namespace
        [ "$(rootless_ns stat -c %g "$FAKEFS_MNT/dev/kfd")" = "$(cat /proc/sys/kernel/overflowgid)" ]
        run --separate-stderr rootless_ns "$RT_SHIM" --root "$T/state" create --bundle "$B" "$ID"
        kill "$NS_PID"
        echo "$stderr"
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[]' ]
        [ "$stderr" = "amd-container-runtime: warning: container $ID: the group of /dev/dri/card1, /dev/dri/renderD129, /dev/kfd is not added to the container's groups: the runtime's user namespace does not map it (it reads as gid 65534); a rootless container opens them when it keeps the groups of its user (who must be in that group): Podman's --group-add keep-groups, Docker's --annotation run.oci.keep_original_groups=1, with crun as the low-level runtime" ]
        # in the initial namespace the same nodes give their groups
        rm -rf "$B" && rt_bundle "$B" true && rt_spec_env "$B" AMD_VISIBLE_DEVICES=2
        run --separate-stderr create
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[44,109]' ]
}

@test "a container with a user namespace of its own: a group its gidMappings map becomes the container's id of it; one they do not is left out" {
        rt_spec_edit "$B" '.linux.namespaces += [{"type": "user"}] | .linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
                .linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 1000}, {"containerID": 1044, "hostID": 44, "size": 1}]'
        run --separate-stderr create
        echo "$stderr"
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[1044]' ]
        [ "$stderr" = "amd-container-runtime: warning: container $ID: group 109 of /dev/dri/renderD129, /dev/kfd is not added to the container's groups: its user namespace does not map it (linux.gidMappings); map that group into the container to open them" ]
        # an invalid mapping fails the create with the member named, spec unchanged
        rt_spec_edit "$B" '.linux.gidMappings[1].size = 0 | .process.user.additionalGids = []'
        cp "$B/config.json" "$T/before.json"
        run --separate-stderr create
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: invalid container spec: $B/config.json: linux.gidMappings[1]: size must be > 0 and the range within 32 bits" ]]
        cmp "$T/before.json" "$B/config.json"
}

@test "a container that keeps its user's groups (crun's keep-groups): the log says it, stderr stays quiet" {
        cp "$T/low-level" "$T/crun"
        rt_config "$CFG" profile "$RT_PROFILES/$SEED.json" runtime-path "$T/crun" log-file "$T/runtime.log"
        rt_spec_edit "$B" '.annotations["run.oci.keep_original_groups"] = "1"'
        run --separate-stderr unshare --user --map-root-user "$RT_SHIM" --root "$T/state" create --bundle "$B" "$ID"
        echo "$stderr"
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[]' ]
        [ -z "$stderr" ]
        grep -q 'level=INFO.*renderD129, /dev/kfd is not added' "$T/runtime.log"
}

@test "keeping the user's groups with a low-level runtime that does not (runc): the create fails with the line that names the fix" {
        cp "$T/low-level" "$T/runc"
        rt_config "$CFG" profile "$RT_PROFILES/$SEED.json" runtime-path "$T/runc" log-file "$T/runtime.log"
        rt_spec_edit "$B" '.annotations["run.oci.keep_original_groups"] = "1"'
        cp "$B/config.json" "$T/before.json"
        run --separate-stderr unshare --user --map-root-user "$RT_SHIM" --root "$T/state" create --bundle "$B" "$ID"
        echo "$stderr"
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: container $ID keeps its user's groups for GPU nodes (run.oci.keep_original_groups: Podman's --group-add keep-groups) but $T/runc does not keep them: set \"runtime-path\": \"crun\" in $CFG" ]
        cmp "$T/before.json" "$B/config.json"
        # the groups are mapped (no user namespace): nothing to keep, no refusal
        run --separate-stderr create
        [ "$status" -eq 0 ]
        [ "$(gids)" = '[44,109]' ]
}
