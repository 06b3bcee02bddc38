# containerd 1.7 of the engine root (helpers/engines.bash) as the kubelet
# uses it: its CRI plugin, reached with helpers/cri-run.py.
#
#   load helpers/common; load helpers/images; load helpers/engines; load helpers/cri
#   setup_file()    { engines_start --no-dockerd; cri_start; }
#   teardown_file() { cri_stop; engines_stop; }
#
# cri_start writes /etc/containerd/config.toml (ENGINES_DIR/containerd):
# the one Debian's package ships (its CRI section sets the CNI bin_dir),
# with containerd's root and state moved into ENGINES_DIR and /run, and
# restrict_oom_score_adj in the CRI section (this machine's root lacks
# CAP_SYS_RESOURCE: a sandbox's oom_score_adj of -998 is refused); runs `amd-ctk runtime configure --runtime
# containerd` (drop-in conf.d/99-amd.toml, the amd runtime, CDI); starts
# containerd; imports the busybox image and a sandbox image (same root file
# system, a command that sleeps) named as the effective sandbox_image.
# cri_run ARGS... -- COMMAND runs one container in a pod of its own.
#
# cri_start --default-config (with engines_start --deb: containerd 2.x as a
# user sets it up): `containerd config default` (schema 3) written to the
# root's /etc/containerd/config.toml, with this machine's two settings
# (root in ENGINES_DIR, restrict_oom_score_adj); then `amd-ctk runtime
# configure --runtime=containerd` as typed (the installed runtime, found by
# containerd on PATH).  Images also go to ctr's default namespace.

: "${CTK_REPO:?load helpers/common before helpers/cri}"
CRI_TIMEOUT=${CRI_TIMEOUT:-60}

cri_start() {
        local e=$ENGINES_DIR
        cp "$CTK_REPO/bats/helpers/cri-run.py" "$e/cri-run.py" || return 1
        # the gRPC stubs, generated once per root (seconds of CPU each time)
        # into the build tree, seen as /ctk-build in the root
        CRI_STUBS=/ctk-build/cri-stubs/$ENGINES_RELEASE-$(sha1sum <"$ENGINES_ROOT/.ctk-root" | cut -c1-12)
        export CRI_STUBS
        if [ "${1:-}" = --default-config ]; then
                _cri_default_config || return 1
        else
                _cri_debian_config || return 1
        fi
        cri_containerd_start || return 1
        local sandbox
        sandbox=$(engines_in containerd config dump |
                sed -n "s/^ *\(sandbox_image\|sandbox\) = [\"']\(.*\)[\"']$/\2/p")
        [ -n "$sandbox" ] || {
                echo "cri: no sandbox image in containerd config dump" >&2
                return 1
        }
        images_oci_tar "$e" "$sandbox=[\"sleep\", \"2147483647\"]" 'docker.io/library/busybox:latest=["sh"]' \
                'docker.io/rocm/rocm-terminal:latest=["bash"]' >/dev/null || return 1
        engines_in ctr --namespace k8s.io images import /ctk/oci-images.tar >/dev/null &&
                engines_in ctr images import /ctk/oci-images.tar >/dev/null
}

_cri_default_config() {
        engines_in sh -c 'mkdir -p /etc/containerd && containerd config default >/etc/containerd/config.toml' &&
                engines_in sed -i -e "s|^root = '/var/lib/containerd'$|root = '/ctk/containerd-data'|" \
                        -e 's/^\( *restrict_oom_score_adj = \)false$/\1true/' /etc/containerd/config.toml &&
                engines_in grep -q "^root = '/ctk/containerd-data'$" /etc/containerd/config.toml &&
                engines_in grep -q '^ *restrict_oom_score_adj = true$' /etc/containerd/config.toml || {
                echo "cri: containerd config default has no root or restrict_oom_score_adj line to set" >&2
                return 1
        }
        engines_in amd-ctk runtime configure --runtime=containerd >/dev/null
}

_cri_debian_config() {
        local e=$ENGINES_DIR
        {
                printf 'root = "/ctk/containerd-data"\nstate = "/run/containerd"\n'
                sed 's/^\( *\)\[plugins\."io\.containerd\.grpc\.v1\.cri"\]$/&\n\1  restrict_oom_score_adj = true/' \
                        "$ENGINES_ROOT/etc/containerd/config.toml"
        } >"$e/containerd/config.toml" || return 1
        grep -q '^ *restrict_oom_score_adj = true$' "$e/containerd/config.toml" || {
                echo "cri: no CRI section in the root's /etc/containerd/config.toml" >&2
                return 1
        }
        engines_in /ctk-build/bin/amd-ctk runtime configure --runtime containerd \
                --runtime-path /ctk-build/bin/amd-container-runtime >/dev/null
}

# cri_containerd_start: containerd on /etc/containerd/config.toml; waits
# until its CRI runtime is ready.
cri_containerd_start() {
        engines_in sh -c 'setsid containerd --config /etc/containerd/config.toml \
                </dev/null >>/ctk/containerd.log 2>&1 & echo $! >/ctk/containerd.pid' || return 1
        ctk_wait_for "$CRI_TIMEOUT" _cri_ready || {
                echo "cri: containerd's CRI plugin did not become ready:" >&2
                grep 'level=\(error\|fatal\)\|failed to load plugin io.containerd.grpc.v1.cri' \
                        "$ENGINES_DIR/containerd.log" | tail -n 5 >&2
                return 1
        }
}

_cri_ready() {
        kill -0 "$(cat "$ENGINES_DIR/containerd.pid")" 2>/dev/null || return 2
        # containerd serves on without its CRI plugin when that fails to load
        ! grep -q 'failed to load plugin io.containerd.grpc.v1.cri' "$ENGINES_DIR/containerd.log" || return 2
        cri_client --ready 2>/dev/null
}

# cri_containerd_stop: removes every pod (their containers live in
# namespaces of their own), then stops containerd and waits until it is
# gone (it holds its bolt database until then).
cri_containerd_stop() {
        [ -s "$ENGINES_DIR/containerd.pid" ] || return 0
        cri_client --remove-all >/dev/null 2>&1 || true
        ctk_kill_pidfile "$ENGINES_DIR/containerd.pid" 20
}

cri_containerd_restart() {
        cri_containerd_stop && cri_containerd_start
}

cri_stop() {
        [ -n "${ENGINES_DIR:-}" ] && [ -d "$ENGINES_DIR" ] || return 0
        cri_containerd_stop
}

cri_client() {
        engines_in python3 /ctk/cri-run.py --stubs "${CRI_STUBS:-/ctk/cri-stubs}" --log-dir /ctk/cri-logs "$@"
}

# cri_run [--runtime-handler NAME] [--env K=V] [--cdi-device NAME]
# [--annotation K=V] [--mount HOST=CONTAINER] -- COMMAND...: the container's output; its exit status
cri_run() { cri_client --timeout "$CRI_TIMEOUT" "$@"; }
