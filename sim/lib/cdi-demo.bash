# Section of sim/sim.sh: the README's CDI style with podman as the CDI client
# (docker 20.10 on these machines predates CDI). Sourced by sim.sh.
#
# podman runs in a private mount namespace whose /etc/cdi is a test
# directory (see bats/helpers/podman.bash); the commands of this section run
# in that namespace, so the README's /etc/cdi/amd.json is used literally
# without touching the host's /etc/cdi.

demo_section "CDI style (README), with podman as the CDI client" \
        "docker 20.10 here has no CDI support; podman consumes the same spec." \
        "These commands run in a private mount namespace: its /etc/cdi is a test directory."
if [ $HAVE_HOST = 0 ]; then
        demo_unavailable "CDI demo (needs the simulated host)"
        return 0
fi
if ! has_ctk cdi generate; then
        demo_unavailable "amd-ctk cdi generate"
        return 0
fi
IMAGES_CACHE=$SIM podman_start "$SIM/p" && IMAGES_CACHE=$SIM podman_import_images || {
        demo_unavailable "podman (could not be started here)"
        return 0
}
if [ "$HAVE_TOOLS" = 1 ]; then # Debian's rocm-smi, as for docker
        images_rocm_tar && ctk_podman import -q --change "ENV $IMAGE_PATH_ENV" --change 'CMD ["bash"]' "$ROCM_TAR" \
                docker.io/rocm/rocm-terminal:latest >/dev/null || {
                demo_unavailable "the rocm-smi image in podman"
                return 0
        }
fi
# In the namespace: the commands look exactly like the README's.
in_ns() { nsenter --target "$(cat "$PODMAN_DIR/ns.pid")" --mount -- env -u DOCKER_CONFIG -u DOCKER_HOST "$@"; }
amd-ctk() { in_ns "$CTK_BIN/amd-ctk" "$@"; }
podman() { ctk_podman "$@"; } # (in the namespace's cgroup too)
demo_run amd-ctk cdi generate --output=/etc/cdi/amd.json
if has_ctk cdi validate; then
        demo_run amd-ctk cdi validate --path=/etc/cdi/amd.json
else
        demo_unavailable "amd-ctk cdi validate"
fi
demo_run podman run --rm --device amd.com/gpu=all rocm/rocm-terminal rocm-smi
demo_run podman run --rm --device amd.com/gpu=0 --device amd.com/gpu=1 rocm/rocm-terminal rocm-smi
unset -f amd-ctk podman in_ns
