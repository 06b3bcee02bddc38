# Local test images (no registry is reachable): a busybox-static root file
# system plus our static helper programs from CTK_TOOLS, imported into the
# private dockerd (helpers/dockerd.bash) or podman (helpers/podman.bash).
#
#   /bin/busybox and one relative symlink per applet in /bin
#   /bin/bash       a two-line sh wrapper, so `... rocm/rocm-terminal bash`
#                   from the GPU tracker document works literally
#   /usr/local/bin/ every program in CTK_TOOLS (rocm-smi, numa-probe, ...)
#
# Tags: rocm/rocm-terminal (CMD bash) and busybox (CMD sh).
# The tarball is built once per IMAGES_CACHE directory (set it in setup_file
# to share one between several daemons).
# Plain bash: sim/sim.sh uses the same functions.

IMAGE_PATH_ENV='PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

# images_rootfs_tar [DIR]: builds DIR/rootfs.tar once and prints its path
# (DIR: IMAGES_CACHE, else the private dockerd's or podman's directory).
images_rootfs_tar() {
        local dir=${1:-${IMAGES_CACHE:-${DOCKERD_DIR:-$PODMAN_DIR}}}
        local tar=$dir/rootfs.tar
        if [ ! -s "$tar" ]; then
                _images_make_rootfs "$dir/rootfs" || return 1
                tar -C "$dir/rootfs" --numeric-owner --owner=0 --group=0 -cf "$tar.tmp" . &&
                        mv "$tar.tmp" "$tar" && rm -rf "$dir/rootfs" || return 1
        fi
        printf '%s\n' "$tar"
}

_images_make_rootfs() {
        local r=$1 busybox applet tool n=0
        busybox=$(command -v busybox) || {
                echo "images: busybox not found (install busybox-static)" >&2
                return 1
        }
        file -L "$busybox" 2>/dev/null | grep -q 'statically linked' || {
                echo "images: $busybox is not static (install busybox-static)" >&2
                return 1
        }
        mkdir -p "$r"/{bin,sbin,usr/bin,usr/local/bin,etc,root,proc,sys,dev,tmp,var/tmp} || return 1
        chmod 1777 "$r/tmp" "$r/var/tmp"
        cp "$busybox" "$r/bin/busybox" || return 1
        for applet in $("$busybox" --list); do
                [ "$applet" = busybox ] || ln -sf busybox "$r/bin/$applet"
        done
        printf '#!/bin/sh\nexec /bin/sh "$@"\n' >"$r/bin/bash"
        chmod 0755 "$r/bin/bash"
        for tool in "$CTK_TOOLS"/*; do
                [ -f "$tool" ] && [ -x "$tool" ] || continue
                cp "$tool" "$r/usr/local/bin/" || return 1
                n=$((n + 1))
        done
        [ -x "$r/usr/local/bin/rocm-smi" ] || {
                echo "images: $CTK_TOOLS/rocm-smi is missing (run 'make tools')" >&2
                return 1
        }
        printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
                >"$r/etc/passwd"
        printf 'root:x:0:\nvideo:x:44:\nnogroup:x:65534:\n' >"$r/etc/group"
}

# images_docker_import: imports rocm/rocm-terminal and busybox into the
# docker daemon of DOCKER_HOST.
images_docker_import() {
        local tar
        tar=$(images_rootfs_tar) || return 1
        docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' "$tar" rocm/rocm-terminal >/dev/null &&
                docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["sh"]' "$tar" busybox >/dev/null
}
