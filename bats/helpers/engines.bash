# The engine roots (sim/engines.sh builds each once, below build/roots):
# Debian 13's (default), Debian 12's and Debian sid's packaged engines,
# run inside a root in a mount and network namespace of the test's own,
# started and stopped by the tests.
#
#   load helpers/common; load helpers/images; load helpers/engines
#   setup_file()    { engines_start; }   # Debian 13, dockerd answering, images imported
#   (it needs our programs built and /dev/fuse)
#   teardown_file() { engines_stop; }
#
# engines_start [--release R] [--cgroup L] [--deb] [--no-dockerd]
#   --release R   trixie (Debian 13, default), bookworm (Debian 12), sid or
#                 experimental (sid with Podman 6 and runc 1.4)
#   --cgroup L    the cgroup layout the engines see (ENGINES_CGROUP):
#                 hybrid  this machine's as it is (default): cgroup v1, and
#                         the cgroup2 mount at /sys/fs/cgroup/unified
#                 v1      cgroup v1 alone, no cgroup2 mount (crun refuses
#                         the hybrid layout)
#                 v2      the cgroup2 hierarchy alone at /sys/fs/cgroup:
#                         runc and crun enforce device access with eBPF
#                         programs, there is no devices.list
#                 Every hierarchy the engines see is rooted at a cgroup of
#                 the test's own (a cgroup namespace, cgroup file systems
#                 mounted afresh: helpers/cgroup.sh), so every cgroup they
#                 make is removed with it by engines_stop (the host's own
#                 mounts are never touched)
#   --deb         as a user installs it: `make deb`'s amd-container-toolkit
#                 package (built or brought up to date first) installed with
#                 dpkg -i into the root, whose changes live in ENGINES_DIR
#                 (the cached root is an overlay's lower layer in every
#                 case); the installed config.json then gets "root":
#                 "/ctk-host" (the simulated host, the one setting a real
#                 host does not need); no bind mounts of /etc/cdi,
#                 /etc/amd-container-toolkit, /etc/containerd or
#                 containers.conf.d: the engines read their default paths,
#                 and the machine's settings are written where a machine
#                 has them: /etc/docker/daemon.json (no bridge, no
#                 iptables), /etc/containers/containers.conf (cgroupfs,
#                 file events, no network namespace, pids_limit 0: the
#                 unified hierarchy here has no pids controller; nofile and
#                 nproc 1024, below the hard limits root here cannot raise) and
#                 storage.conf (vfs in ENGINES_DIR).  Commands then run as
#                 the README types them: engines_in docker run ..., podman
#                 run ..., amd-ctk runtime configure --runtime=podman.
#   --no-dockerd  the namespace only (for containerd's own daemon,
#                 helpers/cri.bash, or podman alone)
#
# The namespace holds a tmpfs /run and /tmp, /proc, /sys and /dev of the
# host, and, bind-mounted into the root:
#   /ctk        ENGINES_DIR (daemon.json, sockets, logs, docker's data)
#   /ctk-build  the packages' static build (build/static, brought up to date
#               first: bin/amd-ctk, bin/amd-container-runtime): the roots
#               are other Debian releases, without the libraries a program
#               linked dynamically on this machine needs
#   /ctk-host   the simulated host (engines_fakefs_mount), served inside
#   without --deb also: /etc/cdi ENGINES_DIR/cdi; /etc/amd-container-toolkit
#               ENGINES_DIR/toolkit (its config.json: the simulated host,
#               runc as the runtime); /etc/containers/containers.conf.d
#               ENGINES_DIR/containers.conf.d; /etc/containerd
#               ENGINES_DIR/containerd
# With ENGINES_NETNS=FILE the namespace joins the network namespace FILE
# names (/proc/PID/ns/net of a process holding it, set up by the caller:
# helpers/swarm_cluster.bash) instead of a new one.
#
# Exported: ENGINES_ROOT (the cached root's path; inside the namespace the
# overlay is mounted there), ENGINES_DIR, ENGINES_PID, ENGINES_RELEASE,
# ENGINES_CGROUP, ENGINES_DEB (the package installed, with --deb).
#
#   engines_in CMD...        CMD in the root (PATH: the root's)
#   engines_docker ARGS...   its docker client on the test's dockerd
#   engines_podman [--runtime NAME] ARGS...  podman with private storage in
#                            ENGINES_DIR (runtime runc by default; without
#                            --deb only)
#   engines_dockerd_start, engines_dockerd_restart
#   engines_versions         one line: the engines' versions, for the log
#   engines_expected INDEX...  the nodes of those GPUs on /ctk-host
#   engines_fakefs_mount PROFILE, engines_fakefs_umount
#   engines_hostdev PROFILE  the profile's /dev as real nodes at /ctk/hostdev
#                            (a file system that allows device files),
#                            to bind into containers for dev-probe --host
#   engines_probe_verdict GIVEN OTHERS: the last line of a dev-probe run
#                            whose GIVEN nodes were allowed and OTHERS denied
#   engines_proven INDEX... -- COMMAND...  (after engines_hostdev) COMMAND,
#                            an engine's run up to and with the image, with
#                            ENGINES_HOSTDEV_BIND's directory at /host-dev,
#                            runs `sh -c "$ENGINES_CHECK"`: the container must
#                            hold exactly the nodes of GPUs INDEX... (none
#                            when none is given), the kernel must have let it
#                            open them and refused the host's other nodes
#   engines_stop

: "${CTK_REPO:?load helpers/common before helpers/engines}"
ENGINES_TIMEOUT=${ENGINES_TIMEOUT:-90}

engines_start() {
        local dockerd=1 deb=0 release=trixie cgroup=hybrid
        while [ $# -gt 0 ]; do
                case $1 in
                --no-dockerd) dockerd=0 ;;
                --deb) deb=1 ;;
                --release)
                        release=$2
                        shift
                        ;;
                --cgroup)
                        cgroup=$2
                        shift
                        ;;
                *)
                        echo "engines_start: unknown option $1" >&2
                        return 1
                        ;;
                esac
                shift
        done
        case $cgroup in hybrid | v1 | v2) ;; *)
                echo "engines_start: --cgroup hybrid, v1 or v2, not $cgroup" >&2
                return 1
                ;;
        esac
        ctk_require_built "$CTK_BIN/amd-ctk" "$CTK_BIN/amd-container-runtime" "$CTK_BIN/amd-ctk-fakefs" || return 1
        [ -c /dev/fuse ] || {
                echo "FUSE is required (/dev/fuse)" >&2
                return 1
        }
        if [ "$cgroup" != hybrid ] && ! grep -q '^cgroup2 /sys/fs/cgroup/unified ' /proc/mounts &&
                [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
                echo "engines: --cgroup $cgroup needs a cgroup2 mount at /sys/fs/cgroup/unified or /sys/fs/cgroup" >&2
                return 1
        fi
        ENGINES_ROOT=$(sh "$CTK_REPO/sim/engines.sh" "$release") || return 1
        ENGINES_ROOT=$(realpath "$ENGINES_ROOT")
        ENGINES_DIR=$(ctk_tmpdir engines) || return 1
        ENGINES_RELEASE=$release ENGINES_CGROUP=$cgroup ENGINES_DEB=
        local build
        build=$(ctk_static_build) || return 1
        if [ $deb = 1 ]; then
                ENGINES_DEB=$(engines_deb) || return 1
                cp "$ENGINES_DEB" "$ENGINES_DIR/" || return 1
        fi
        export ENGINES_ROOT ENGINES_DIR ENGINES_RELEASE ENGINES_CGROUP ENGINES_DEB
        local e=$ENGINES_DIR r=$ENGINES_ROOT d binds=""
        mkdir -p "$e"/{docker,cdi,toolkit,podman,state,containers.conf.d,containerd,upper,work} || return 1
        # the engines' cgroups, below a cgroup of the test's own (helpers/cgroup.sh)
        sh "$CTK_REPO/bats/helpers/cgroup.sh" make "$e/cgroups" "$(basename "$e")" || {
                engines_stop
                return 1
        }
        echo '{"features": {"cdi": true}, "bridge": "none", "iptables": false, "ip6tables": false}' >"$e/daemon.json"
        # the toolkit configuration our runtime reads inside the root
        printf '{"root": "/ctk-host", "state-dir": "/ctk/state", "log-file": "/ctk/runtime.log", "runtime-path": "runc"}\n' \
                >"$e/toolkit/config.json"
        [ $deb = 1 ] || binds='mount --bind "$e/cdi" "$r/etc/cdi"
mount --bind "$e/toolkit" "$r/etc/amd-container-toolkit"
mount --bind "$e/containers.conf.d" "$r/etc/containers/containers.conf.d"
mount --bind "$e/containerd" "$r/etc/containerd"'
        cat >"$e/ns.sh" <<NS
set -e
e="$e" r="$r"
# the cached root, copy-on-write: changes go to ENGINES_DIR/upper
mount -t overlay overlay -o "lowerdir=\$r,upperdir=\$e/upper,workdir=\$e/work" "\$r"
for d in ctk ctk-build ctk-host etc/cdi etc/amd-container-toolkit etc/containers/containers.conf.d \
        etc/containerd var/lib/docker; do
        mkdir -p "\$r/\$d"
done
mount -t proc proc "\$r/proc"
mount --rbind /sys "\$r/sys"
sh "$CTK_REPO/bats/helpers/cgroup.sh" mount "\$e/cgroups" "\$r/sys/fs/cgroup" $cgroup \$\$
mount --rbind /dev "\$r/dev"
mount -t tmpfs tmpfs "\$r/run"
mount -t tmpfs tmpfs "\$r/tmp"
mount --bind "\$e" "\$r/ctk"
mount --bind "$build" "\$r/ctk-build"
mount --bind "\$e/docker" "\$r/var/lib/docker"
$binds
ip link set lo up
echo 1 >/proc/sys/net/ipv4/ip_forward
touch "\$e/ns.ready"
exec sleep infinity
NS
        local ns=(unshare -m -n -C --propagation private)
        [ -z "${ENGINES_NETNS:-}" ] || ns=(nsenter --net="$ENGINES_NETNS" unshare -m -C --propagation private)
        setsid sh "$CTK_REPO/bats/helpers/cgroup.sh" launch "$e/cgroups" "${ns[@]}" sh "$e/ns.sh" \
                </dev/null >"$e/ns.log" 2>&1 3>&- &
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
        if [ $deb = 1 ]; then
                _engines_install || {
                        engines_stop
                        return 1
                }
        fi
        [ $dockerd = 0 ] || engines_dockerd_start || {
                engines_stop
                return 1
        }
}

# engines_deb: the amd-container-toolkit package of `make deb` (made, or
# brought up to date, first); prints its path
engines_deb() {
        local out
        # (one make deb at a time: test files run side by side share build/deb)
        mkdir -p "$CTK_REPO/build"
        out=$(flock "$CTK_REPO/build/.deb.lock" make --no-print-directory -s -C "$CTK_REPO" deb 2>&1) || {
                echo "engines: make deb failed: $out" >&2
                return 1
        }
        out=$(ls -t "$CTK_REPO"/build/deb/amd-container-toolkit_*.deb 2>/dev/null | head -n 1)
        [ -n "$out" ] || {
                echo "engines: no build/deb/amd-container-toolkit_*.deb after make deb" >&2
                return 1
        }
        printf '%s\n' "$out"
}

# the package installed with dpkg, as a user installs it, and the settings
# of this machine (no systemd, no network, the simulated host) where a
# machine keeps them
_engines_install() {
        local e=$ENGINES_DIR out
        out=$(engines_in dpkg -i "/ctk/$(basename "$ENGINES_DEB")" 2>&1) || {
                echo "engines: dpkg -i of $(basename "$ENGINES_DEB") failed:" >&2
                printf '%s\n' "$out" >&2
                return 1
        }
        printf '%s\n' "$out" >"$e/dpkg.log"
        engines_in sed -i 's|^\( *"root": \)null,$|\1"/ctk-host",|' /etc/amd-container-toolkit/config.json &&
                engines_in grep -q '"root": "/ctk-host"' /etc/amd-container-toolkit/config.json || {
                echo "engines: the installed config.json has no \"root\": null line to set" >&2
                return 1
        }
        engines_in mkdir -p /etc/docker /etc/containers || return 1
        echo '{"bridge": "none", "iptables": false, "ip6tables": false}' | engines_in tee /etc/docker/daemon.json >/dev/null
        # (nofile, nproc 1024: Podman 4's defaults exceed the hard limits
        # that root without CAP_SYS_RESOURCE, as on this machine, cannot
        # raise, and the OCI runtime fails to set them; as helpers/podman.bash)
        local nofile=1024 nproc=1024
        printf '[containers]\nnetns = "none"\npids_limit = 0\ndefault_ulimits = ["nofile=%s:%s", "nproc=%s:%s"]\n\n[engine]\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
                "$nofile" "$nofile" "$nproc" "$nproc" | engines_in tee /etc/containers/containers.conf >/dev/null
        printf '[storage]\ndriver = "vfs"\ngraphroot = "/ctk/podman/root"\nrunroot = "/run/podman"\n' |
                engines_in tee /etc/containers/storage.conf >/dev/null
}

_engines_ns_ready() {
        kill -0 "$ENGINES_PID" 2>/dev/null || return 2
        [ -e "$ENGINES_DIR/ns.ready" ]
}

# (in the engines' cgroup namespace: podman, a daemonless engine, makes
# cgroups itself)
engines_in() {
        sh "$CTK_REPO/bats/helpers/cgroup.sh" enter "$ENGINES_DIR/cgroups" \
                nsenter -t "$ENGINES_PID" -m -n -C chroot "$ENGINES_ROOT" "$@"
}
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

# engines_dockerd_start: the root's dockerd (which starts its containerd)
# on /ctk/daemon.json (with --deb: its default /etc/docker/daemon.json),
# serving /ctk/d.sock and the default /run/docker.sock; waits until it
# answers; imports the test images once.
engines_dockerd_start() {
        local config='--config-file /ctk/daemon.json' path='/ctk-build/bin:$PATH'
        [ -z "$ENGINES_DEB" ] || config='' path='$PATH'
        engines_in sh -c "PATH=$path setsid dockerd $config \
                -H unix:///ctk/d.sock -H unix:///run/docker.sock --pidfile /run/dockerd.pid --exec-root /run/docker \
                --ip-forward=false --ip-masq=false --userland-proxy=false \
                </dev/null >>/ctk/dockerd.log 2>&1 &" || return 1
        ctk_wait_for "$ENGINES_TIMEOUT" _engines_dockerd_ready || {
                echo "engines: dockerd ($ENGINES_RELEASE) did not start:" >&2
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

# engines_versions: the versions of the root's engines, one line (tests
# print it: they assert behaviour, never versions)
engines_versions() {
        engines_in sh -c 'v() { printf "%s %s; " "$1" "$("$@" 2>/dev/null | head -n 1)"; }
                echo "Debian $(cat /etc/debian_version), cgroup '"$ENGINES_CGROUP"' ($(stat -f -c %T /sys/fs/cgroup)): \
$(v dockerd --version)$(v containerd --version)$(v runc --version)$(v crun --version)$(v podman --version)"'
}

# engines_hostdev PROFILE: the nodes of PROFILE's /dev (every GPU's, and
# kfd) made with mknod at ENGINES_DIR/hostdev/dev (/ctk/hostdev/dev in the
# root), on a file system that allows device files (the FUSE mount is
# nodev): bind it into a container and run `dev-probe --host DIR` there.
engines_hostdev() {
        rm -rf "$ENGINES_DIR/hostdev"
        "$CTK_BIN/amd-ctk-fakefs" materialize "$1" "$ENGINES_DIR/hostdev" >/dev/null &&
                rm -rf "$ENGINES_DIR/hostdev/sys"
}

engines_proven() {
        local sel=() total nodes=() given
        while [ "$1" != -- ]; do
                sel+=("$1")
                shift
        done
        shift
        run "$@" sh -c "$ENGINES_CHECK"
        printf '%s\n' "$output"
        [ "$status" -eq 0 ] || return 1
        mapfile -t nodes < <(printf '%s\n' "${lines[@]}" | sed '/^--$/q' | grep '^/dev/' | sort)
        if [ ${#sel[@]} -gt 0 ]; then
                [ "$(printf '%s\n' "${nodes[@]}")" = "$(engines_expected "${sel[@]}")" ] || {
                        echo "engines_proven: the nodes are not those of GPUs ${sel[*]}:" >&2
                        engines_expected "${sel[@]}" >&2
                        return 1
                }
        else
                [ ${#nodes[@]} -eq 0 ] || return 1
        fi
        given=${#nodes[@]}
        total=$(find "$ENGINES_DIR/hostdev/dev" -type c | wc -l)
        [ "${lines[-1]}" = "$(engines_probe_verdict "$given" $((total - given)))" ]
}

# engines_probe_verdict GIVEN OTHERS: dev-probe's last line when GIVEN nodes
# were given (and opened or answered ENXIO) and OTHERS other nodes were
# refused with EPERM
engines_probe_verdict() { printf 'dev-probe: %s given allowed, %s others denied\n' "$1" "$2"; }

# (name type major:minor mode uid gid) of a device node, as the scenarios
# compare them: one node per line, sorted
ENGINES_NODE_FORMAT='%n %F %t:%T %a %u %g'

# what engines_proven runs in a container: its GPU nodes, a separator,
# dev-probe's lines; and where the host's nodes are for it
ENGINES_CHECK="stat -c '$ENGINES_NODE_FORMAT' /dev/dri/* /dev/kfd 2>/dev/null | grep -v ' directory '; echo --; dev-probe --host /host-dev"
ENGINES_HOSTDEV_BIND=/ctk/hostdev/dev

# engines_expected INDEX...: the nodes of those GPUs on the simulated host at
# /ctk-host (what `amd-ctk gpu list --json` says they hold), and /dev/kfd
engines_expected() {
        local sel
        sel=$(printf '%s\n' "$@" | jq -s -c 'map(tonumber)')
        # one stat for every node (a profile has up to 63 partitions)
        # shellcheck disable=SC2046
        engines_in stat -c "$ENGINES_NODE_FORMAT" $(engines_in /ctk-build/bin/amd-ctk --root /ctk-host gpu list --json |
                jq -r --argjson s "$sel" '.[] | select(.index as $i | $s | index($i)) | .devices[] | "/ctk-host" + .') \
                /ctk-host/dev/kfd | sed 's|^/ctk-host||' | sort
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

# _engines_ns_pids NS: the pids of the processes in the mount namespace NS
# ("mnt:[N]"), found by one find (a readlink per process took 20 s at load 12)
_engines_ns_pids() {
        find /proc -mindepth 3 -maxdepth 3 -path '/proc/[0-9]*/ns/mnt' -printf '%l %h\n' 2>/dev/null |
                awk -v ns="$1" '$1 == ns { sub("^/proc/", "", $2); sub("/ns$", "", $2); print $2 }'
}

# engines_stop: ends every process of the namespace (daemons, shims,
# containers, the FUSE server); its mounts go with it.  Removes ENGINES_DIR.
engines_stop() {
        local e=${ENGINES_DIR:-} pid ns n
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
        # The namespace's processes are found by its number, which the
        # kernel gives to the next namespace made once this one is gone
        # (another test's container, say): the namespace is held open
        # meanwhile, and taken from its holder only while that is still the
        # process of our cgroup (not another one that got its pid).
        local hold=""
        if [ -n "$pid" ] && [ -e "$e/cgroups" ] &&
                grep -qF "/$(basename "$(head -n 1 "$e/cgroups")")/" "/proc/$pid/cgroup" 2>/dev/null &&
                exec {hold}<"/proc/$pid/ns/mnt" && ns=$(readlink "/proc/self/fd/$hold"); then
                for n in 1 2 3 4 5 6 7 8 9 10; do
                        local left
                        left=$(_engines_ns_pids "$ns")
                        [ -n "$left" ] || break
                        # shellcheck disable=SC2086
                        kill -9 $left 2>/dev/null || true
                        sleep 0.2
                done
        fi 2>/dev/null
        [ -z "$hold" ] || exec {hold}<&-
        # the containers (their mount namespaces are their own) and the
        # cgroups of every engine
        local rc=0
        sh "$CTK_REPO/bats/helpers/cgroup.sh" remove "$e/cgroups" || rc=1
        rm -rf "$e"
        unset ENGINES_DIR ENGINES_PID
        return $rc
}
