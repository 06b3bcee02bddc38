# Rootless engines in an engine root (helpers/engines.bash): an
# unprivileged user of the test's own, in the groups of the simulated GPUs'
# nodes, with subordinate ids, who runs Podman and Docker without root.
#
#   load helpers/common; load helpers/images; load helpers/engines; load helpers/rootless
#   engines_start --release sid --deb --no-dockerd; engines_fakefs_mount P; engines_hostdev P
#   rootless_start                 the user and the user's view of the root
#   rootless_in podman run ...     as the user
#   rootless_stop                  (before engines_stop) every process of the user's
#
# rootless_start adds, inside the root (its overlay: nothing of the host's
# users or groups changes), with the root's own tools:
#   useradd -m -u UID ROOTLESS_USER (with the test images' rootfs.tar, when
#   ENGINES_DIR has it, in its home; and vfs storage for Podman in
#   ~/.config/containers: the home is on the root's overlay, where another
#   overlay cannot be mounted); a group for each gid of the simulated
#   nodes that the root lacks (render); usermod -aG of those groups (video,
#   render); usermod --add-subuids/--add-subgids of a range of 65536 ids.
# UID and the range are ids no process of this machine has when the test
# starts (ROOTLESS_UID, ROOTLESS_SUBID), so that rootless_stop can find every
# process the user's engines left, by their ids.
#
# The user's view is a mount namespace inside the engines' one whose root is
# the engine root by pivot_root, not chroot: the kernel refuses to create a
# user namespace (rootless Podman's, rootlesskit's) from a chroot ("cannot
# clone: Operation not permitted").  Its /dev is a tmpfs holding what a GPU
# host's /dev holds for these engines: null, zero, full, random, urandom,
# tty, a pts instance, fd and std{in,out,err}, shm, net/tun (mode 0666: slirp4netns), and the
# simulated GPUs' nodes, real ones made with mknod (engines_hostdev), with
# their owners and modes: rootless engines bind-mount the host's nodes
# into containers, they cannot make them.
#
#   rootless_in CMD...      CMD as the user (HOME, XDG_RUNTIME_DIR, PATH of a
#                           login; DOCKER_HOST the user's rootless dockerd)
#   rootless_root CMD...    CMD as root in the same view
#   rootless_dockerd_start  the user's rootless dockerd, as Debian's docker.io
#                           ships it: PATH=/usr/sbin:$PATH (dockerd is there,
#                           off a user's PATH) /usr/share/docker.io/contrib/
#                           dockerd-rootless.sh (rootlesskit, slirp4netns),
#                           on ~/.config/docker/daemon.json; the test images
#                           imported

: "${ENGINES_TIMEOUT:?load helpers/engines before helpers/rootless}"
ROOTLESS_USER=ctk-rootless

# a uid, and a range of 65536 ids, that no process has now
_rootless_free_ids() {
        local used base i
        used=$(ps -e -o uid= -o gid= | tr -s ' \n' '\n\n' | sort -un)
        base=$((30000 + ($$ % 2000) * 10))
        for i in $(seq 0 200); do
                ROOTLESS_UID=$((base + i))
                grep -qx "$ROOTLESS_UID" <<<"$used" || break
        done
        base=$((400000000 + ($$ % 2000) * 65536))
        for i in $(seq 0 50); do
                ROOTLESS_SUBID=$((base + i * 131072))
                awk -v a="$ROOTLESS_SUBID" -v b=$((ROOTLESS_SUBID + 65535)) '$1 >= a && $1 <= b { f = 1 } END { exit !f }' \
                        <<<"$used" || return 0
        done
        echo "rootless: no free range of ids" >&2
        return 1
}

rootless_start() {
        local e=$ENGINES_DIR gid name groups="" u
        [ -d "$e/hostdev/dev" ] || {
                echo "rootless: engines_hostdev first (the simulated GPUs' nodes)" >&2
                return 1
        }
        _rootless_free_ids || return 1
        export ROOTLESS_UID ROOTLESS_SUBID
        u=$ROOTLESS_USER
        engines_in useradd -m -u "$ROOTLESS_UID" -K SUB_UID_COUNT=0 -K SUB_GID_COUNT=0 -s /bin/sh "$u" || return 1
        for gid in $(find "$e/hostdev/dev" -type c -printf '%G\n' | sort -un); do
                [ "$gid" -ne 0 ] || continue
                name=$(engines_in getent group "$gid" | cut -d: -f1)
                if [ -z "$name" ]; then
                        name=render
                        engines_in getent group render >/dev/null && name=gpu$gid
                        engines_in groupadd -g "$gid" "$name" || return 1
                fi
                groups=$groups${groups:+,}$name
        done
        engines_in usermod -aG "$groups" "$u" &&
                engines_in usermod --add-subuids "$ROOTLESS_SUBID-$((ROOTLESS_SUBID + 65535))" \
                        --add-subgids "$ROOTLESS_SUBID-$((ROOTLESS_SUBID + 65535))" "$u" || return 1
        [ ! -f "$e/rootfs.tar" ] || engines_in install -o "$u" -g "$u" -m 0644 /ctk/rootfs.tar "/home/$u/rootfs.tar" || return 1
        engines_in su -s /bin/sh -c 'mkdir -p ~/.config/containers &&
                printf "[storage]\ndriver = \"vfs\"\n" >~/.config/containers/storage.conf' "$u" || return 1
        cat >"$e/rootless-ns.sh" <<NS
set -e
r="$ENGINES_ROOT" e=/ctk
mount -t tmpfs -o mode=0755 tmpfs "\$r/dev"
for n in null zero full random urandom tty; do cp -a "/dev/\$n" "\$r/dev/"; done
mkdir "\$r/dev/pts" "\$r/dev/shm" "\$r/dev/net"
mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "\$r/dev/pts"
ln -s pts/ptmx "\$r/dev/ptmx"
ln -s /proc/self/fd "\$r/dev/fd"
ln -s /proc/self/fd/0 "\$r/dev/stdin"
ln -s /proc/self/fd/1 "\$r/dev/stdout"
ln -s /proc/self/fd/2 "\$r/dev/stderr"
mount -t tmpfs -o mode=1777 tmpfs "\$r/dev/shm"
cp -a /dev/net/tun "\$r/dev/net/tun"
chmod 0666 "\$r/dev/net/tun"
cp -a "\$r\$e/hostdev/dev/." "\$r/dev/"
mkdir -p "\$r/run/user/$ROOTLESS_UID"
chown "$ROOTLESS_UID:$ROOTLESS_UID" "\$r/run/user/$ROOTLESS_UID"
chmod 0700 "\$r/run/user/$ROOTLESS_UID"
cd "\$r"
mkdir -p .ctk-old-root
pivot_root . .ctk-old-root
cd /
umount -l /.ctk-old-root
rmdir /.ctk-old-root
mount --make-rshared /
touch /ctk/rootless.ready
exec sleep infinity
NS
        setsid sh "$CTK_REPO/bats/helpers/cgroup.sh" enter "$e/cgroups" \
                nsenter -t "$ENGINES_PID" -m -n -C unshare -m --propagation private sh "$e/rootless-ns.sh" \
                </dev/null >"$e/rootless-ns.log" 2>&1 3>&- &
        ROOTLESS_PID=$!
        disown
        export ROOTLESS_PID
        ctk_wait_for "$ENGINES_TIMEOUT" _rootless_ready || {
                if kill -0 "$ROOTLESS_PID" 2>/dev/null; then
                        echo "rootless: the user's view did not come up in $ENGINES_TIMEOUT s:" >&2
                else
                        echo "rootless: the user's view ended before it came up:" >&2
                fi
                cat "$e/rootless-ns.log" >&2
                return 1
        }
}

_rootless_ready() {
        kill -0 "$ROOTLESS_PID" 2>/dev/null || return 2
        [ -e "$ENGINES_DIR/rootless.ready" ]
}

# (in the engines' cgroups and cgroup namespace: helpers/engines.bash)
rootless_root() {
        sh "$CTK_REPO/bats/helpers/cgroup.sh" enter "$ENGINES_DIR/cgroups" nsenter -t "$ROOTLESS_PID" -m -n -C "$@"
}

rootless_in() {
        rootless_root setpriv --reuid="$ROOTLESS_UID" --regid="$ROOTLESS_UID" --init-groups \
                env -i HOME="/home/$ROOTLESS_USER" USER="$ROOTLESS_USER" LOGNAME="$ROOTLESS_USER" \
                XDG_RUNTIME_DIR="/run/user/$ROOTLESS_UID" PATH=/usr/local/bin:/usr/bin:/bin \
                DOCKER_HOST="unix:///run/user/$ROOTLESS_UID/docker.sock" "$@"
}

rootless_dockerd_start() {
        rootless_in sh -c 'PATH=/usr/sbin:$PATH setsid /usr/share/docker.io/contrib/dockerd-rootless.sh </dev/null \
                >"$HOME/dockerd-rootless.log" 2>&1 & echo $! >"$XDG_RUNTIME_DIR/ctk-rootlesskit.pid"' || return 1
        ctk_wait_for "$ENGINES_TIMEOUT" _rootless_dockerd_ready || {
                echo "rootless: dockerd-rootless.sh did not start:" >&2
                rootless_in tail -n 20 "/home/$ROOTLESS_USER/dockerd-rootless.log" >&2
                return 1
        }
        rootless_in docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' "/home/$ROOTLESS_USER/rootfs.tar" \
                rocm/rocm-terminal >/dev/null
}

_rootless_dockerd_ready() {
        kill -0 "$ROOTLESS_PID" 2>/dev/null || return 2
        rootless_in docker version >/dev/null 2>&1
}

# rootless_stop: ends rootless dockerd (rootlesskit takes its children with
# it), then every process left with the user's ids or the subordinate ones
# (Podman's pause process, conmon, containers), by their pids, and the
# user's view.
rootless_stop() {
        [ -n "${ROOTLESS_PID:-}" ] || return 0
        local pid n left
        pid=$(rootless_root cat "/run/user/$ROOTLESS_UID/ctk-rootlesskit.pid" 2>/dev/null) &&
                kill "$pid" 2>/dev/null && ctk_wait_for 30 ctk_pid_gone "$pid"
        for n in 1 2 3 4 5 6 7 8 9 10; do
                left=$(ps -e -o pid= -o uid= | awk -v u="$ROOTLESS_UID" -v a="$ROOTLESS_SUBID" -v b=$((ROOTLESS_SUBID + 65535)) \
                        '$2 == u || ($2 >= a && $2 <= b) { print $1 }')
                [ -n "$left" ] || break
                # shellcheck disable=SC2086
                kill $([ "$n" -lt 5 ] || echo -9) $left 2>/dev/null
                sleep 0.5
        done
        kill "$ROOTLESS_PID" 2>/dev/null
        ctk_wait_for 10 ctk_pid_gone "$ROOTLESS_PID"
        unset ROOTLESS_PID
        [ -z "$left" ]
}
