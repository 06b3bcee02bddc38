#!/usr/bin/env bats
# Rootless Podman and rootless Docker on Debian sid's packages, as an
# unprivileged user of the test's own in the groups of the GPU nodes (video,
# render) with subordinate ids (helpers/rootless.bash), the toolkit installed
# from `make deb` with dpkg.  Inside the user's namespace the nodes' host
# groups are not mapped: they read as the overflow gid 65534, and only a
# process that keeps the groups of the user (crun's keep-groups) can open
# the nodes.  The kernel proves it: dev-probe opens each GPU node the
# container was given (ENXIO: allowed, no driver behind the simulated node)
# or is refused (EACCES: the container's process lacks the group).  A
# rootless container has no device cgroup of its own (an unprivileged user
# cannot set one): what it can open is what is bound into it, which the
# node list checks.  cgroup v2 view (users' hosts), one root and one set of
# daemons for the file.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines
load helpers/rootless

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-600}

SEED=$PROFILES/seed-4xmi210.json
# the container's GPU nodes (name type major:minor mode: owner and group read
# as 65534 in the user's namespace), Groups of /proc/self/status, dev-probe
CHECK="stat -c '%n %F %t:%T %a' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '; echo --;
grep '^Groups:' /proc/self/status | sed 's/ *$//'; echo --; dev-probe"

setup_file() {
        engines_start --release sid --cgroup v2 --deb --no-dockerd
        echo "# $(engines_versions)" >&3
        engines_fakefs_mount "$SEED"
        engines_hostdev "$SEED"
        engines_in amd-ctk cdi generate >/dev/null
        engines_in amd-ctk runtime configure --runtime=podman >/dev/null
        # Podman's low-level runtime under ours: crun, which keeps the user's groups
        engines_in sed -i 's|"runtime-path": null|"runtime-path": "crun"|' /etc/amd-container-toolkit/config.json
        images_rootfs_tar "$ENGINES_DIR" >/dev/null
        rootless_start
        rootless_in podman import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' "/home/$ROOTLESS_USER/rootfs.tar" \
                rocm/rocm-terminal >/dev/null
}

teardown_file() {
        rootless_stop
        engines_stop
}

# nodes INDEX...: the nodes of those GPUs (and /dev/kfd) as CHECK prints them
nodes() { engines_expected "$@" | sed 's/ [0-9]* [0-9]*$//'; }

# part N: the Nth part (from 1) of CHECK's output in $output (without the
# warning rootless Docker prints for a container on its default network:
# "WARNING: IPv4 forwarding is disabled. Networking will not work.")
part() { awk -v n="$1" '$0 == "--" { p++; next } /^WARNING: / { next } p == n - 1' <<<"$output"; }

@test "rootless Podman, CDI with crun: --device amd.com/gpu=1 --group-add keep-groups: the GPU's nodes, opened; without keep-groups refused (EACCES)" {
        run rootless_in podman run --rm --device amd.com/gpu=1 --group-add keep-groups rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 1)" ]
        # the kept groups: the user's own, and video and render unmapped
        [ "$(part 2)" = "$(printf 'Groups:\t65534 65534 0')" ]
        [ "${lines[-1]}" = "$(engines_probe_verdict 3 0)" ]
        run rootless_in podman run --rm --device amd.com/gpu=1 rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 1 ]
        [ "$(part 1)" = "$(nodes 1)" ]
        [ "$(grep -c ' EACCES neither WRONG' <<<"$output")" -eq 3 ]
}

@test "rootless Podman through our runtime: podman --runtime amd run --group-add keep-groups -e AMD_VISIBLE_DEVICES=1: the GPU's nodes, opened; no overflow gid added" {
        run rootless_in podman --runtime amd run --rm --group-add keep-groups -e AMD_VISIBLE_DEVICES=1 \
                rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 1)" ]
        [ "$(part 2)" = "$(printf 'Groups:\t65534 65534 0')" ]
        [ "${lines[-1]}" = "$(engines_probe_verdict 3 0)" ]
        # another user in the container: its groups are its own, never the
        # overflow gid the nodes' groups read as (it was added: "1000 65534")
        run rootless_in podman --runtime amd run --rm --user 1000:1000 -e AMD_VISIBLE_DEVICES=2 \
                rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$(part 1)" = "$(nodes 2)" ]
        [ "$(part 2)" = "$(printf 'Groups:\t1000')" ]
        [ "$(grep -c ' EACCES neither WRONG' <<<"$output")" -eq 3 ]
}

@test "rootless Podman, keep-groups through our runtime over runc: refused with one line naming runtime-path" {
        engines_in sed -i 's|"runtime-path": "crun"|"runtime-path": "runc"|' /etc/amd-container-toolkit/config.json
        run rootless_in podman --runtime amd run --rm --group-add keep-groups -e AMD_VISIBLE_DEVICES=1 \
                rocm/rocm-terminal true
        engines_in sed -i 's|"runtime-path": "runc"|"runtime-path": "crun"|' /etc/amd-container-toolkit/config.json
        printf '%s\n' "$output"
        [ "$status" -ne 0 ]
        [[ "$output" == *"amd-container-runtime: container "*" keeps its user's groups for GPU nodes (run.oci.keep_original_groups: Podman's --group-add keep-groups) but /usr/bin/runc does not keep them: set \"runtime-path\": \"crun\" in /etc/amd-container-toolkit/config.json"* ]]
}

@test "rootless Docker (dockerd-rootless.sh): CDI and our runtime over crun keep the user's groups with --annotation run.oci.keep_original_groups=1; without it, the runtime's warning line" {
        # the user's daemon (docs/engines.md): crun beside runc, then our
        # runtime; with this machine's settings: vfs storage (the home is on
        # an overlay), no bridge and no iptables (no network here)
        rootless_in sh -c 'mkdir -p ~/.config/docker && printf "%s\n" "{\"storage-driver\": \"vfs\", \"bridge\": \"none\",
                \"iptables\": false, \"ip6tables\": false, \"runtimes\": {\"crun\": {\"path\": \"/usr/bin/crun\"}}}" \
                >~/.config/docker/daemon.json'
        run rootless_in amd-ctk runtime configure --runtime=docker --config-path "/home/$ROOTLESS_USER/.config/docker/daemon.json"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        rootless_dockerd_start
        echo "# $(rootless_in docker info --format 'rootless docker {{.ServerVersion}}: {{.SecurityOptions}}')" >&3
        run rootless_in docker run --rm --runtime crun --annotation run.oci.keep_original_groups=1 --device amd.com/gpu=1 \
                rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 1)" ]
        [ "$(part 2)" = "$(printf 'Groups:\t65534 65534 0')" ]
        [ "${lines[-1]}" = "$(engines_probe_verdict 3 0)" ]
        run rootless_in docker run --rm --runtime amd --annotation run.oci.keep_original_groups=1 -e AMD_VISIBLE_DEVICES=2 \
                rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 2)" ]
        [ "${lines[-1]}" = "$(engines_probe_verdict 3 0)" ]
        # Docker's --gpus (the package put amd-container-runtime on the daemon's PATH)
        run rootless_in docker run --rm --runtime amd --annotation run.oci.keep_original_groups=1 --gpus '"device=0,3"' \
                rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 0 3)" ]
        [ "${lines[-1]}" = "$(engines_probe_verdict 5 0)" ]
        # without the annotation the nodes' groups are lost: Docker shows the runtime's line
        run rootless_in docker run --rm --runtime amd -e AMD_VISIBLE_DEVICES=1 rocm/rocm-terminal sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$(part 2)" = "$(printf 'Groups:\t0')" ]
        [ "$(grep -c ' EACCES neither WRONG' <<<"$output")" -eq 3 ]
        [[ "$(grep '^amd-container-runtime: ' <<<"$output")" == "amd-container-runtime: warning: container "*": the group of /dev/dri/card3, /dev/dri/renderD131, /dev/kfd is not added to the container's groups: the runtime's user namespace does not map it (it reads as gid 65534); a rootless container opens them when it keeps the groups of its user (who must be in that group): Podman's --group-add keep-groups, Docker's --annotation run.oci.keep_original_groups=1, with crun as the low-level runtime" ]]
}

@test "Apptainer (no CDI flag): --rocm binds every GPU's nodes; with --contain, without --rocm, none; without --contain, all" {
        echo "# $(rootless_in apptainer --version); CDI flag: $(rootless_in apptainer exec --help | grep -c -- '--device') line(s)" >&3
        rootless_in sh -c 'rm -rf ~/sandbox && mkdir ~/sandbox && tar -C ~/sandbox -xf ~/rootfs.tar'
        run rootless_in apptainer exec --contain --rocm "/home/$ROOTLESS_USER/sandbox" sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 0 1 2 3)" ]
        # the user's own groups, kept (Apptainer does not set groups)
        [ "${lines[-1]}" = "$(engines_probe_verdict 9 0)" ]
        run rootless_in apptainer exec --contain "/home/$ROOTLESS_USER/sandbox" sh -c "$CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ]
        [ -z "$(part 1)" ]
        [ "${lines[-1]}" = "$(engines_probe_verdict 0 0)" ]
        # without --contain, the host's whole /dev
        run rootless_in apptainer exec "/home/$ROOTLESS_USER/sandbox" sh -c "$CHECK"
        [ "$status" -eq 0 ]
        [ "$(part 1)" = "$(nodes 0 1 2 3)" ]
}
