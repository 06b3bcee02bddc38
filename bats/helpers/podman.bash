# Rootful podman with private state, as a real CDI client for the tests.
#
#   load helpers/common; load helpers/images; load helpers/podman
#   setup_file()    { podman_start; podman_import_images; }
#   teardown_file() { podman_stop; }
#   @test ... { run ctk_podman run --rm --device amd.com/gpu=0 busybox ls /dev/dri; }
#
# What podman 4.3 on these machines needs:
# * storage: --root/--runroot under PODMAN_DIR (a private storage.conf);
# * a private containers.conf: cgroupfs, file events, no network
#   (netns "none"), and default ulimits nofile/nproc 1024:1024 — podman's
#   defaults exceed this machine's hard limits and runc fails with
#   "error setting rlimits";
# * CDI: podman 4.3 (containers/common 0.50) ignores containers.conf's
#   cdi_spec_dirs and always reads /etc/cdi and /var/run/cdi. So podman runs
#   in a private mount namespace (held by one process for the whole test file)
#   where /etc and /var are overlays (writes land in PODMAN_DIR/ns),
#   /etc/cdi is PODMAN_CDI_DIR and /run is a fresh tmpfs: podman's
#   hard-coded /etc/containers/networks, /var/lib/containers/cache,
#   /var/cache/containers (its short-name alias lock), /var/tmp (image
#   imports), /run/libpod and runc's /run/runc stay private too; and in a
#   cgroup namespace rooted at cgroups of the test's own, on cgroup file
#   systems mounted afresh (helpers/cgroup.sh): podman's /libpod_parent
#   goes with them at podman_stop.
#   (cdi_spec_dirs is written too, for newer podman.)
# Plain bash: sim/sim.sh uses the same functions.

# podman_start [DIR]: prepares PODMAN_DIR and the mount namespace.
podman_start() {
        PODMAN_DIR=${1:-$(ctk_tmpdir podman)} || return 1
        PODMAN_CDI_DIR=$PODMAN_DIR/cdi
        CONTAINERS_CONF=$PODMAN_DIR/containers.conf
        CONTAINERS_STORAGE_CONF=$PODMAN_DIR/storage.conf
        export PODMAN_DIR PODMAN_CDI_DIR CONTAINERS_CONF CONTAINERS_STORAGE_CONF
        local d=$PODMAN_DIR
        mkdir -p "$d"/{root,runroot,tmp,cdi,ns} || return 1
        cat >"$CONTAINERS_CONF" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
netns = "none"
[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$d/events.log"
tmp_dir = "$d/tmp"
cdi_spec_dirs = ["$d/cdi"]
CONF
        cat >"$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "overlay"
graphroot = "$d/root"
runroot = "$d/runroot"
CONF
        sh "$CTK_REPO/bats/helpers/cgroup.sh" make "$d/cgroups" "$(basename "$d")" || return 1
        setsid sh "$CTK_REPO/bats/helpers/cgroup.sh" launch "$d/cgroups" unshare --mount --cgroup --propagation private -- sh -ec '
                sh "$2" mount "$1/cgroups" /sys/fs/cgroup host $$
                for dir in etc var; do
                        up=$1/ns/$(echo $dir | tr / .)
                        mkdir -p "$up.up" "$up.wk"
                        mount -t overlay overlay -o "lowerdir=/$dir,upperdir=$up.up,workdir=$up.wk" "/$dir"
                done
                mkdir -p /etc/cdi
                mount --bind "$1/cdi" /etc/cdi
                mount -t tmpfs -o mode=0755 tmpfs /run
                touch "$1/ns/ready"
                exec sleep infinity' sh "$d" "$CTK_REPO/bats/helpers/cgroup.sh" </dev/null >"$d/ns.log" 2>&1 3>&- &
        echo $! >"$d/ns.pid"
        ctk_wait_for 10 test -e "$d/ns/ready" || {
                echo "podman: cannot set up the private mount namespace:" >&2
                cat "$d/ns.log" >&2
                podman_stop
                return 1
        }
}

# ctk_podman ARGS...: podman inside the private namespace.
ctk_podman() {
        env -u DOCKER_CONFIG -u DOCKER_HOST sh "$CTK_REPO/bats/helpers/cgroup.sh" enter "$PODMAN_DIR/cgroups" \
                nsenter --target "$(cat "$PODMAN_DIR/ns.pid")" --mount --cgroup -- podman "$@"
}

# podman_import_images: rocm/rocm-terminal and busybox (helpers/images.bash).
podman_import_images() {
        local tar
        tar=$(images_rootfs_tar "${IMAGES_CACHE:-$PODMAN_DIR}") || return 1
        ctk_podman import -q --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' "$tar" \
                docker.io/rocm/rocm-terminal:latest >/dev/null &&
                ctk_podman import -q --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["sh"]' "$tar" \
                        docker.io/library/busybox:latest >/dev/null
}

# podman_stop: removes containers, ends the namespace (its mounts go with
# it), removes PODMAN_DIR. Safe after any failure, and twice.
podman_stop() {
        local d=${PODMAN_DIR:-}
        [ -n "$d" ] && [ -d "$d" ] || return 0
        if [ -e "$d/ns/ready" ]; then
                timeout 60 env -u DOCKER_CONFIG -u DOCKER_HOST sh "$CTK_REPO/bats/helpers/cgroup.sh" enter \
                        "$d/cgroups" nsenter --target "$(cat "$d/ns.pid")" --mount --cgroup -- \
                        podman rm -af -t 0 >/dev/null 2>&1 || true
        fi
        ctk_kill_pidfile "$d/ns.pid" 10
        sh "$CTK_REPO/bats/helpers/cgroup.sh" remove "$d/cgroups" || return 1
        ctk_rm_tmpdir "$d" || return 1
        unset PODMAN_DIR PODMAN_CDI_DIR CONTAINERS_CONF CONTAINERS_STORAGE_CONF
}
