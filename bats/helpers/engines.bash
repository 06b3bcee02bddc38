# Today's engines, from Debian 13's packages (sim/engines.sh builds the root
# once): dockerd 26 with its containerd 1.7, podman 5 and ctr, run inside
# that root in a mount and network namespace of their own, started and
# stopped by the tests.
#
#   load helpers/common; load helpers/engines
#   setup_file()    { engines_start; }     # dockerd 26 answering, images imported
#   (it needs our programs built and /dev/fuse)
#   teardown_file() { engines_stop; }
#
# (engines_start --no-dockerd: the namespace only, for containerd's own
# daemon, helpers/cri.bash.)
#
# The namespace holds a tmpfs /run and /tmp, /proc, /sys and /dev of the
# host, and, bind-mounted into the root:
#   /ctk        ENGINES_DIR (daemon.json, sockets, logs, docker's data)
#   /ctk-build  this build (bin/amd-ctk, bin/amd-container-runtime, libexec/)
#   /ctk-host   the simulated host (engines_fakefs_mount), served inside
#   /etc/cdi    ENGINES_DIR/cdi; /etc/amd-container-toolkit ENGINES_DIR/toolkit
#               (its config.json: the simulated host, runc as the runtime);
#               /etc/containers/containers.conf.d ENGINES_DIR/containers.conf.d;
#               /etc/containerd ENGINES_DIR/containerd
# With ENGINES_NETNS=FILE the namespace joins the network namespace FILE
# names (/proc/PID/ns/net of a process holding it, set up by the caller:
# helpers/swarm_cluster.bash) instead of a new one.  engines_in CMD... runs CMD in the root; engines_docker ARGS... is its
# docker client on dockerd 26; engines_podman [--runtime NAME] ARGS... is
# podman 5 with private storage in ENGINES_DIR (runtime runc by default:
# crun refuses hybrid cgroups).

: "${CTK_REPO:?load helpers/common before helpers/engines}"
ENGINES_TIMEOUT=${ENGINES_TIMEOUT:-90}

engines_start() {
        local dockerd=1
        [ "${1:-}" != --no-dockerd ] || dockerd=0
        ctk_require_built "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-container-runtime" "$CTK_BIN/amd-ctk-fakefs" || return 1
        [ -c /dev/fuse ] || {
                echo "FUSE is required (/dev/fuse)" >&2
                return 1
        }
        ENGINES_ROOT=$(sh "$CTK_REPO/sim/engines.sh") || return 1
        ENGINES_ROOT=$(realpath "$ENGINES_ROOT")
        ENGINES_DIR=$(ctk_tmpdir engines) || return 1
        export ENGINES_ROOT ENGINES_DIR
        local e=$ENGINES_DIR r=$ENGINES_ROOT d
        mkdir -p "$e"/{docker,cdi,toolkit,podman,state,containers.conf.d,containerd} || return 1
        for d in ctk ctk-build ctk-host etc/cdi etc/amd-container-toolkit etc/containers/containers.conf.d \
                etc/containerd var/lib/docker; do
                mkdir -p "$r/$d" || return 1
        done
        echo '{"features": {"cdi": true}, "bridge": "none", "iptables": false, "ip6tables": false}' >"$e/daemon.json"
        # the toolkit configuration our runtime reads inside the root
        printf '{"root": "/ctk-host", "state-dir": "/ctk/state", "log-file": "/ctk/runtime.log", "runtime-path": "runc"}\n' \
                >"$e/toolkit/config.json"
        cat >"$e/ns.sh" <<NS
set -e
mount --bind "$r" "$r"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --rbind /dev "$r/dev"
mount -t tmpfs tmpfs "$r/run"
mount -t tmpfs tmpfs "$r/tmp"
mount --bind "$e" "$r/ctk"
mount --bind "$(realpath "$CTK_BIN/..")" "$r/ctk-build"
mount --bind "$e/docker" "$r/var/lib/docker"
mount --bind "$e/cdi" "$r/etc/cdi"
mount --bind "$e/toolkit" "$r/etc/amd-container-toolkit"
mount --bind "$e/containers.conf.d" "$r/etc/containers/containers.conf.d"
mount --bind "$e/containerd" "$r/etc/containerd"
ip link set lo up
echo 1 >/proc/sys/net/ipv4/ip_forward
touch "$e/ns.ready"
exec sleep infinity
NS
        local ns=(unshare -m -n --propagation private)
        [ -z "${ENGINES_NETNS:-}" ] || ns=(nsenter --net="$ENGINES_NETNS" unshare -m --propagation private)
        setsid "${ns[@]}" sh "$e/ns.sh" </dev/null >"$e/ns.log" 2>&1 3>&- &
        echo $! >"$e/ns.pid"
        ENGINES_PID=$!
        disown # (stopped by a kill, which the shell need not report)
        export ENGINES_PID
        ctk_wait_for 20 _engines_ns_ready || {
                echo "engines: the namespace did not come up:" >&2
                cat "$e/ns.log" >&2
                engines_stop
                return 1
        }
        [ $dockerd = 0 ] || engines_dockerd_start || {
                engines_stop
                return 1
        }
}

_engines_ns_ready() {
        kill -0 "$ENGINES_PID" 2>/dev/null || return 2
        [ -e "$ENGINES_DIR/ns.ready" ]
}

engines_in() { nsenter -t "$ENGINES_PID" -m -n chroot "$ENGINES_ROOT" "$@"; }
engines_docker() { engines_in docker -H unix:///ctk/d.sock "$@"; }
engines_podman() {
        local runtime=runc
        if [ "${1:-}" = --runtime ]; then
                runtime=$2
                shift 2
        fi
        engines_in env PODMAN_IGNORE_CGROUPSV1_WARNING=1 podman --root /ctk/podman/root --runroot /run/podman \
                --runtime "$runtime" --cgroup-manager cgroupfs --events-backend file --storage-driver vfs "$@"
}

# engines_dockerd_start: dockerd 26 (which starts its containerd) on
# /ctk/daemon.json; waits until it answers; imports the test images once.
engines_dockerd_start() {
        engines_in sh -c 'PATH=/ctk-build/bin:$PATH setsid dockerd --config-file /ctk/daemon.json \
                -H unix:///ctk/d.sock --pidfile /run/dockerd.pid --exec-root /run/docker \
                --ip-forward=false --ip-masq=false --userland-proxy=false \
                </dev/null >>/ctk/dockerd.log 2>&1 &' || return 1
        ctk_wait_for "$ENGINES_TIMEOUT" _engines_dockerd_ready || {
                echo "engines: dockerd 26 did not start:" >&2
                tail -n 20 "$ENGINES_DIR/dockerd.log" >&2
                return 1
        }
        engines_docker image inspect busybox >/dev/null 2>&1 && return 0
        local tar
        tar=$(images_rootfs_tar "$ENGINES_DIR") || return 1
        engines_docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["sh"]' /ctk/rootfs.tar busybox >/dev/null &&
                engines_docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' /ctk/rootfs.tar \
                        rocm/rocm-terminal >/dev/null
}

_engines_dockerd_ready() {
        kill -0 "$ENGINES_PID" 2>/dev/null || return 2
        engines_docker version >/dev/null 2>&1
}

# engines_dockerd_restart: stops dockerd (its containers first) and starts it
# again on the current /ctk/daemon.json.
engines_dockerd_restart() {
        engines_in sh -c 'kill $(cat /run/dockerd.pid) 2>/dev/null; for i in $(seq 100); do
                [ -e /run/dockerd.pid ] || exit 0; sleep 0.1; done; exit 1' || return 1
        engines_dockerd_start
}

# (name type major:minor mode uid gid) of a device node, as the scenarios
# compare them: one node per line, sorted
ENGINES_NODE_FORMAT='%n %F %t:%T %a %u %g'

# engines_expected INDEX...: the nodes of those GPUs on the simulated host at
# /ctk-host (what `amd-ctk gpu list --json` says they hold), and /dev/kfd
engines_expected() {
        local sel p
        sel=$(printf '%s\n' "$@" | jq -s -c 'map(tonumber)')
        {
                for p in $(engines_in /ctk-build/bin/amd-ctk --root /ctk-host gpu list --json |
                        jq -r --argjson s "$sel" '.[] | select(.index as $i | $s | index($i)) | .devices[]') /dev/kfd; do
                        engines_in stat -c "$ENGINES_NODE_FORMAT" "/ctk-host$p" | sed 's|^/ctk-host||'
                done
        } | sort
}

# engines_fakefs_mount PROFILE: the simulated host of PROFILE (a path on this
# host) at /ctk-host (replacing the one there), served inside the namespace.
engines_fakefs_mount() {
        engines_fakefs_umount
        nsenter -t "$ENGINES_PID" -m -n "$CTK_BIN/amd-ctk-fakefs" mount "$1" "$ENGINES_ROOT/ctk-host" \
                --pidfile "$ENGINES_DIR/fakefs.pid"
}

engines_fakefs_umount() {
        nsenter -t "$ENGINES_PID" -m sh -c 'grep -q " $1 " /proc/mounts || exit 0
                umount "$1" 2>/dev/null || umount -l "$1"
                [ -e "$2" ] && kill $(cat "$2") 2>/dev/null; rm -f "$2"; exit 0' \
                umount "$ENGINES_ROOT/ctk-host" "$ENGINES_DIR/fakefs.pid"
}

# engines_stop: ends every process of the namespace (daemons, shims,
# containers, the FUSE server); its mounts go with it.  Removes ENGINES_DIR.
engines_stop() {
        local e=${ENGINES_DIR:-} pid ns p n
        [ -n "$e" ] && [ -d "$e" ] || return 0
        pid=$(cat "$e/ns.pid" 2>/dev/null || true)
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ -S "$e/d.sock" ]; then
                # containers have namespaces of their own: removed through dockerd
                local ids
                ids=$(timeout 20 nsenter -t "$pid" -m -n chroot "$ENGINES_ROOT" docker -H unix:///ctk/d.sock \
                        ps -aq 2>/dev/null) || ids=
                # shellcheck disable=SC2086
                [ -z "$ids" ] || timeout 60 nsenter -t "$pid" -m -n chroot "$ENGINES_ROOT" \
                        docker -H unix:///ctk/d.sock rm -f $ids >/dev/null 2>&1 || true
        fi
        if [ -n "$pid" ] && ns=$(readlink "/proc/$pid/ns/mnt" 2>/dev/null); then
                for n in 1 2 3 4 5 6 7 8 9 10; do
                        local left=""
                        for p in /proc/[0-9]*; do
                                [ "$(readlink "$p/ns/mnt" 2>/dev/null)" = "$ns" ] && left="$left ${p#/proc/}"
                        done
                        [ -n "$left" ] || break
                        # shellcheck disable=SC2086
                        kill -9 $left 2>/dev/null || true
                        sleep 0.2
                done
        fi
        rm -rf "$e"
        unset ENGINES_DIR ENGINES_PID
}
