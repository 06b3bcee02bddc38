# Local test images (no registry is reachable): a busybox-static root file
# system plus our static helper programs from CTK_TOOLS, imported into the
# private dockerd (helpers/dockerd.bash) or podman (helpers/podman.bash).
#
#   /bin/busybox and one relative symlink per applet in /bin
#   /bin/bash       a two-line sh wrapper, so `... rocm/rocm-terminal bash`
#                   from the GPU tracker document works literally
#   /usr/local/bin/ every program in CTK_TOOLS (dev-probe, numa-probe)
#
# Tags: rocm/rocm-terminal (CMD bash) and busybox (CMD sh).  That
# rocm/rocm-terminal has no rocm-smi: the tests that run one use the image
# of Debian's rocm-smi (images_rocm_tar, images_docker_import --rocm).
# The busybox tarball is built once per IMAGES_CACHE directory (set it in
# setup_file to share one between several daemons); the rocm-smi tarball
# once for the build tree (images_rocm_tar).
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
        local r=$1 busybox applet
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
        _images_copy_tools "$r/usr/local/bin" || return 1
        printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
                >"$r/etc/passwd"
        printf 'root:x:0:\nvideo:x:44:\nnogroup:x:65534:\n' >"$r/etc/group"
}

# _images_copy_tools DIR: copies into DIR our helper programs, those built
# (CTK_TOOLS) from the sources in sim/tools (a build tree's leftovers stay out)
_images_copy_tools() {
        local src tool
        for src in "$CTK_REPO"/sim/tools/*.c; do
                tool=$CTK_TOOLS/$(basename "$src" .c)
                [ -x "$tool" ] || {
                        echo "images: $tool is missing (run 'make tools')" >&2
                        return 1
                }
                cp "$tool" "$1/" || return 1
        done
}

# images_docker_import [--rocm]: imports rocm/rocm-terminal and busybox into
# the docker daemon of DOCKER_HOST; with --rocm, rocm/rocm-terminal is the
# image of Debian's rocm-smi (images_rocm_tar: load helpers/amd_tools too).
images_docker_import() {
        local tar rocm
        tar=$(images_rootfs_tar) || return 1
        rocm=$tar
        if [ "${1:-}" = --rocm ]; then
                images_rocm_tar || return 1
                rocm=$ROCM_TAR
        fi
        docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' "$rocm" rocm/rocm-terminal >/dev/null &&
                docker import --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["sh"]' "$tar" busybox >/dev/null
}

# images_oci_tar DIR NAME=CMD...: DIR/oci-images.tar, an OCI image layout
# (for `ctr images import`) with one image per NAME (a full reference, kept
# in the io.containerd.image.name annotation), all of the rootfs tarball as
# their one layer, each with its CMD (a JSON array).  Prints its path.
images_oci_tar() {
        local dir=$1 tar oci layer lsize arch spec config cdig manifest mdig manifests=()
        shift
        tar=$(images_rootfs_tar "$dir") || return 1
        oci=$dir/oci
        rm -rf "$oci" && mkdir -p "$oci/blobs/sha256" || return 1
        layer=$(sha256sum "$tar" | cut -d' ' -f1)
        lsize=$(stat -c %s "$tar")
        cp "$tar" "$oci/blobs/sha256/$layer" || return 1
        arch=$(dpkg --print-architecture)
        for spec; do
                config=$(jq -cn --arg arch "$arch" --arg env "$IMAGE_PATH_ENV" --argjson cmd "${spec#*=}" \
                        --arg layer "sha256:$layer" \
                        '{architecture: $arch, os: "linux", config: {Env: [$env], Cmd: $cmd},
                          rootfs: {type: "layers", diff_ids: [$layer]}}') || return 1
                cdig=$(_images_oci_blob "$oci" "$config") || return 1
                manifest=$(jq -cn --arg c "sha256:$cdig" --argjson cs "${#config}" --arg l "sha256:$layer" \
                        --argjson ls "$lsize" \
                        '{schemaVersion: 2, mediaType: "application/vnd.oci.image.manifest.v1+json",
                          config: {mediaType: "application/vnd.oci.image.config.v1+json", digest: $c, size: $cs},
                          layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar", digest: $l, size: $ls}]}') ||
                        return 1
                mdig=$(_images_oci_blob "$oci" "$manifest") || return 1
                manifests+=("$(jq -cn --arg d "sha256:$mdig" --argjson s "${#manifest}" --arg n "${spec%%=*}" \
                        '{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $d, size: $s,
                          annotations: {"io.containerd.image.name": $n}}')")
        done
        printf '{"imageLayoutVersion": "1.0.0"}' >"$oci/oci-layout"
        printf '%s\n' "${manifests[@]}" | jq -cs '{schemaVersion: 2, manifests: .}' >"$oci/index.json" || return 1
        tar -C "$oci" -cf "$dir/oci-images.tar" . && rm -rf "$oci" || return 1
        printf '%s\n' "$dir/oci-images.tar"
}

# _images_oci_blob DIR TEXT: stores TEXT (ASCII, no newline) as a blob of
# the layout DIR; prints its sha256
_images_oci_blob() {
        local dig
        dig=$(printf '%s' "$2" | sha256sum | cut -d' ' -f1) || return 1
        printf '%s' "$2" >"$1/blobs/sha256/$dig" && printf '%s\n' "$dig"
}

# images_rocm_tar: the image a document's `rocm/rocm-terminal rocm-smi`
# runs, as a tarball: Debian's rocm-smi as Debian packages it (the files of
# rocm-smi and of the packages it depends on, from the root of
# `sh sim/engines.sh --tools`: helpers/amd_tools.bash), busybox-static's
# applets and our helper programs (CTK_TOOLS) in /usr/local/bin, and
# /usr/local/bin/bash as above.  Built once for all test files, in the
# build tree (images/rocm-rootfs-KEY.tar, KEY following the root's packages,
# busybox, our tools and this function), under a lock: test files running
# side by side share it.  Sets ROCM_TAR to its path (and AMD_TOOLS_ROOT:
# call it in the shell that uses them, not in $(...)).
images_rocm_tar() {
        local cache busybox key tar
        amd_tools_root || return 1
        busybox=$(command -v busybox) || return 1
        cache=$(dirname "$CTK_TOOLS")/images
        mkdir -p "$cache" || return 1
        key=$({ cat "$AMD_TOOLS_ROOT/.ctk-root" && sha1sum "$busybox" "$CTK_TOOLS"/* &&
                declare -f images_rocm_tar _images_rocm_rootfs _images_copy_tools; } | sha1sum | cut -c1-12) ||
                return 1
        tar=$cache/rocm-rootfs-$key.tar
        (
                flock 9 || exit 1
                [ ! -s "$tar" ] || exit 0
                r=$(mktemp -d "$cache/rootfs.XXXXXX") || exit 1
                trap 'rm -rf "$r"' EXIT
                _images_rocm_rootfs "$r/root" "$busybox" &&
                        tar -C "$r/root" --numeric-owner --owner=0 --group=0 -cf "$r/rootfs.tar" . &&
                        rm -f "$cache"/rocm-rootfs-*.tar && mv "$r/rootfs.tar" "$tar"
        ) 9>"$cache/.lock" || return 1
        ROCM_TAR=$tar
}

# images_rocm_in DIR: DIR/rocm-rootfs.tar is images_rocm_tar's tarball (a
# hard link where the file system allows, else a copy), for a daemon that
# sees DIR only
images_rocm_in() {
        images_rocm_tar || return 1
        ln -f "$ROCM_TAR" "$1/rocm-rootfs.tar" 2>/dev/null || cp "$ROCM_TAR" "$1/rocm-rootfs.tar"
}

# _images_rocm_rootfs DIR BUSYBOX: the file system of images_rocm_tar in DIR
_images_rocm_rootfs() {
        local r=$1 busybox=$2 applet
        mkdir -p "$r" || return 1
        # rocm-smi and what it depends on, as dpkg resolved them in the root
        chroot "$AMD_TOOLS_ROOT" sh -c '
                seen=" " todo=rocm-smi
                while [ -n "$todo" ]; do
                        set -- $todo; p=$1; shift; todo="$*"
                        case "$seen" in *" $p "*) continue ;; esac
                        dpkg-query -W -f="\${Status}" "$p" 2>/dev/null | grep -q "ok installed" || continue
                        seen="$seen$p "
                        deps=$(dpkg-query -W -f="\${Pre-Depends}, \${Depends}" "$p" |
                                tr "," "\n" | sed "s/|.*//; s/(.*//; s/:any//; s/ //g" | grep .)
                        todo="$todo $deps"
                done
                for p in $seen; do dpkg -L "$p"; done' | grep -v -e '^/usr/share/doc' -e '^/usr/share/man' \
                -e '^/usr/share/locale' -e '^/\.$' | sort -u | sed 's|^/||' >"$r.files" || return 1
        # and the byte code the packages' postinst compiled for those modules,
        # which dpkg does not list: an image built with apt has it (without
        # it, every run of rocm-smi compiles 50 modules again: 0.2 s)
        (cd "$AMD_TOOLS_ROOT" && find usr/lib/python3* -path '*/__pycache__/*.pyc') |
                awk 'NR == FNR { have[$0]; next }
                     { src = $0; sub("/__pycache__/", "/", src); sub("[.]cpython-[^/]*[.]pyc$", ".py", src) }
                     src in have { dir = $0; sub("/[^/]*$", "", dir); print dir; print }' "$r.files" - |
                sort -u >>"$r.files" || return 1
        tar -C "$AMD_TOOLS_ROOT" --no-recursion -cf - bin sbin lib lib64 etc/ld.so.cache -T "$r.files" |
                tar -C "$r" -xf - || return 1
        mkdir -p "$r"/{usr/local/bin,etc,root,proc,sys,dev,tmp,var/tmp,run} || return 1
        chmod 1777 "$r/tmp" "$r/var/tmp"
        cp "$busybox" "$r/usr/local/bin/busybox" || return 1
        for applet in $("$busybox" --list); do
                [ -e "$r/usr/bin/$applet" ] || [ -e "$r/usr/local/bin/$applet" ] ||
                        ln -s busybox "$r/usr/local/bin/$applet"
        done
        printf '#!/bin/sh\nexec /bin/sh "$@"\n' >"$r/usr/local/bin/bash" && chmod 0755 "$r/usr/local/bin/bash"
        # rocm-smi's "#!/usr/bin/env python3" (coreutils' env is not one of its dependencies)
        [ -e "$r/usr/bin/env" ] || ln -s /usr/local/bin/busybox "$r/usr/bin/env"
        [ -e "$r/bin/sh" ] || ln -s /usr/local/bin/busybox "$r/usr/bin/sh"
        _images_copy_tools "$r/usr/local/bin" || return 1
        printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' \
                >"$r/etc/passwd"
        printf 'root:x:0:\nvideo:x:44:\nrender:x:109:\nnogroup:x:65534:\n' >"$r/etc/group"
}
