#!/usr/bin/env bats
# The test harness itself: private dockerd, local images (Debian's rocm-smi
# in rocm/rocm-terminal), podman.

load helpers/common
load helpers/dockerd
load helpers/images
load helpers/amd_tools
load helpers/podman

setup_file() {
        export IMAGES_CACHE=$BATS_FILE_TMPDIR
        dockerd_start
        images_docker_import --rocm
}

teardown_file() {
        dockerd_stop
}

# pids of processes whose command line mentions DIR
procs_mentioning() {
        local f
        for f in /proc/[0-9]*/cmdline; do
                { tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF -- "$1" || continue
                f=${f#/proc/}
                echo "${f%/cmdline}"
        done
}

# asserts that nothing of the dockerd in DIR is left: processes, mounts, files
assert_nothing_left() {
        local dir=$1 pid
        for pid in "${@:2}"; do
                ! kill -0 "$pid" 2>/dev/null || {
                        echo "process $pid is still alive: $(tr '\0' ' ' </proc/"$pid"/cmdline)"
                        return 1
                }
        done
        [ -z "$(procs_mentioning "$dir")" ] || {
                echo "processes still mention $dir: $(procs_mentioning "$dir")"
                return 1
        }
        [ -z "$(ctk_mounts_under "$dir")" ] || {
                echo "mounts left: $(ctk_mounts_under "$dir")"
                return 1
        }
        [ ! -e "$dir" ] || {
                echo "$dir still exists"
                return 1
        }
}

@test "the private dockerd is ours: data root, socket and key file below its directory" {
        run docker info --format '{{.DockerRootDir}} {{.DefaultRuntime}}'
        [ "$status" -eq 0 ]
        [ "$output" = "$DOCKERD_DIR/data runc" ]
        [ "$DOCKER_HOST" = "unix://$DOCKERD_DIR/d.sock" ]
        [ -e "$DOCKERD_DIR/key.json" ]
        [ "${#DOCKERD_DIR}" -lt 40 ] # room for socket names within 108 bytes
}

@test "a private dockerd starts and stops leaving no process, mount or file" {
        (
                trap dockerd_stop EXIT
                dockerd_start
                dir=$DOCKERD_DIR
                images_docker_import
                pids="$(cat "$dir/dockerd.launch.pid") $(cat "$dir/containerd.pid")"
                docker run -d --network none busybox sleep 1000 >/dev/null
                pids="$pids $(docker inspect -f '{{.State.Pid}}' "$(docker ps -q)")"
                [ -n "$(ctk_mounts_under "$dir")" ]
                dockerd_stop
                assert_nothing_left "$dir" $pids
        )
}

@test "teardown cleans up after dockerd and containerd were killed with a container running" {
        (
                trap dockerd_stop EXIT
                dockerd_start
                dir=$DOCKERD_DIR
                images_docker_import
                docker run -d --network none busybox sleep 1000 >/dev/null
                cpid=$(docker inspect -f '{{.State.Pid}}' "$(docker ps -q)")
                kill -KILL "$(cat "$dir/dockerd.launch.pid")" "$(cat "$dir/containerd.pid")"
                kill -0 "$cpid"
                dockerd_stop
                assert_nothing_left "$dir" "$cpid"
        )
}

@test "dockerd_reload picks up a runtime added to daemon.json, found on PATH through CTK_BIN" {
        (
                bin=$(ctk_tmpdir bin)
                trap 'dockerd_stop; rm -rf "$bin"' EXIT
                printf '#!/bin/sh\necho "$*" >>"%s/calls"\nexec runc "$@"\n' "$bin" >"$bin/probe-runtime"
                chmod +x "$bin/probe-runtime"
                CTK_BIN=$bin dockerd_start
                images_docker_import
                dockerd_write_config '{"runtimes": {"probe": {"path": "probe-runtime"}}}'
                dockerd_reload
                out=$(docker run --rm --network none --runtime=probe busybox echo via-probe)
                [ "$out" = via-probe ]
                grep -q ' create ' "$bin/calls"
        )
}

@test "dockerd_reload reports a daemon.json that dockerd rejects" {
        cp "$DOCKERD_CONFIG" "$BATS_TEST_TMPDIR/daemon.json"
        dockerd_write_config '{"default-runtime": "nope"}'
        run dockerd_reload
        [ "$status" -ne 0 ]
        [[ "$output" == *"specified default runtime 'nope' does not exist"* ]]
        printf '{"runtimes": ' >"$DOCKERD_CONFIG"
        run dockerd_reload
        [ "$status" -ne 0 ]
        [[ "$output" == *"unexpected EOF"* ]]
        cp "$BATS_TEST_TMPDIR/daemon.json" "$DOCKERD_CONFIG"
        dockerd_reload
}

@test "dockerd_restart applies daemon.json and keeps the images" {
        cp "$DOCKERD_CONFIG" "$BATS_TEST_TMPDIR/daemon.json"
        old=$(cat "$DOCKERD_DIR/dockerd.launch.pid")
        dockerd_write_config '{"runtimes": {"other": {"path": "runc"}}, "default-runtime": "other"}'
        dockerd_restart
        [ "$(cat "$DOCKERD_DIR/dockerd.launch.pid")" != "$old" ]
        ! kill -0 "$old" 2>/dev/null || false
        run docker info --format '{{.DefaultRuntime}}'
        [ "$output" = other ]
        run docker run --rm --network none busybox echo still-here
        [ "$output" = still-here ]
        cp "$BATS_TEST_TMPDIR/daemon.json" "$DOCKERD_CONFIG"
        dockerd_restart
        [ "$(docker info --format '{{.DefaultRuntime}}')" = runc ]
}

@test "docker run --rm --network none busybox echo hi works with plain runc" {
        run docker run --rm --network none busybox echo hi
        [ "$status" -eq 0 ]
        [ "$output" = hi ]
}

@test "rocm/rocm-terminal has bash and Debian's rocm-smi, and runs detached like the tracker document" {
        run docker run --rm --network none rocm/rocm-terminal bash -c 'for c in rocm-smi dev-probe; do command -v $c; done'
        [ "$status" -eq 0 ]
        [ "$output" = "$(printf '%s\n' /usr/bin/rocm-smi /usr/local/bin/dev-probe)" ]
        # it runs (Python and the library are in the image); with plain runc
        # the container's sysfs is this machine's, without amdgpu
        run docker run --rm --network none rocm/rocm-terminal rocm-smi
        [ "$status" -eq 0 ]
        [ "$output" = "ERROR:root:Driver not initialized (amdgpu not found in modules)" ]
        id=$(docker run -itd rocm/rocm-terminal bash)
        [[ "$id" =~ ^[0-9a-f]{64}$ ]]
        [ "$(docker inspect -f '{{.State.Status}} {{.Config.Cmd}}' "$id")" = "running [bash]" ]
        docker rm -f "$id"
}

@test "podman runs the imported image with private storage and a private CDI directory" {
        (
                trap podman_stop EXIT
                podman_start
                dir=$PODMAN_DIR
                podman_import_images
                out=$(ctk_podman run --rm rocm/rocm-terminal bash -c 'echo hi; ulimit -n')
                [ "$out" = "$(printf 'hi\n1024')" ]
                [ "$(ctk_podman info --format '{{.Store.GraphRoot}}')" = "$dir/root" ]
                printf '%s\n' '{"cdiVersion": "0.5.0", "kind": "harness.test/gpu", "devices": [{"name": "0",' \
                        '"containerEdits": {"deviceNodes": [{"path": "/dev/dri/renderD128", "hostPath": "/dev/null"}]}}]}' \
                        >"$PODMAN_CDI_DIR/test.json"
                out=$(ctk_podman run --rm --device harness.test/gpu=0 busybox stat -c '%n %t:%T' /dev/dri/renderD128)
                [ ! -e /etc/cdi/test.json ]
                podman_stop
                assert_nothing_left "$dir"
                [ "$out" = "/dev/dri/renderD128 1:3" ]
        )
}
