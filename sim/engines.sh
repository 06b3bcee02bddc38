#!/bin/sh
# The Debian roots of the end-to-end tests, built once by sim/roots.sh below
# build/roots and reused:
#
#   sh sim/engines.sh [RELEASE]     prints the engine root's path
#   sh sim/engines.sh --pkg RELEASE prints the package root's path
#                                   (bookworm or trixie: bats/package.bats)
#   sh sim/engines.sh --tools       prints the root of AMD's tools (sid:
#                                   rocm-smi, amd-smi, rocminfo: bats/amd-tools*.bats,
#                                   the rocm-smi image of the docker tests)
#   sh sim/engines.sh --all         builds all seven at once (make engines)
#
#   trixie    (default) Debian 13: docker 26, containerd 1.7, runc, crun,
#             podman 5, compose, and the CRI client's gRPC stubs
#   bookworm  Debian 12: docker 20.10, containerd 1.6, runc, crun, podman 4.3
#             (and containernetworking-plugins: debootstrap does not resolve
#             the virtual container-network-stack podman needs)
#   sid       Debian unstable, the newest packaged engines: docker 28+ (its
#             client, docker-cli, is only a Recommends), containerd 2,
#             runc, crun, podman 5.8+, compose, what rootless podman and
#             docker need (uidmap, passwd for useradd, slirp4netns, passt,
#             fuse-overlayfs, rootlesskit), apptainer, and the CRI client's
#             gRPC stubs
#   experimental  Debian unstable with experimental's Podman 6 and runc 1.4
#             beside sid's docker, containerd and crun: Podman 6's --gpus,
#             the newest runc under our runtime
#
# The package roots: a bare Debian 12, and a Debian 13 with systemd and udev
# (the package's unit and udev rule, checked and run by systemd itself).
#
# The bats scenarios run their daemons in a private mount and network
# namespace (bats/helpers/engines.bash).  Versions move with the suites:
# tests print what they ran and assert behaviour, never versions.
set -eu
cd "$(dirname "$0")/.."
# the CRI test client (bats/helpers/cri-run.py): gRPC for python, and the CRI
# api.proto of a Go -dev package whose dependencies are not needed (libre2
# is named: debootstrap does not follow python3-grpcio's virtual name for it)
cri="python3-grpcio python3-grpc-tools libre2-11 --files-of golang-github-kubernetes-cri-api-dev"
root() {
        case $1 in
        trixie)
                # shellcheck disable=SC2086
                sh sim/roots.sh trixie-engines trixie docker.io docker-cli containerd runc crun podman docker-compose \
                        ca-certificates iproute2 $cri
                ;;
        bookworm)
                sh sim/roots.sh bookworm-engines bookworm docker.io containerd runc crun podman containernetworking-plugins \
                        ca-certificates iproute2
                ;;
        sid)
                # shellcheck disable=SC2086
                sh sim/roots.sh sid-engines sid docker.io docker-cli containerd runc crun podman docker-compose \
                        ca-certificates iproute2 uidmap passwd slirp4netns passt fuse-overlayfs rootlesskit apptainer $cri
                ;;
        experimental)
                sh sim/roots.sh experimental-engines sid docker.io docker-cli containerd runc crun podman \
                        ca-certificates iproute2 --from experimental podman runc
                ;;
        *)
                echo "usage: sh sim/engines.sh [trixie|bookworm|sid|experimental|--all]" >&2
                return 2
                ;;
        esac
}
# AMD's own tools as Debian packages them (never rebuilt or patched): the
# judges of the simulated hosts (docs/simulation.md)
tools_root() {
        sh sim/roots.sh sid-amdtools sid rocm-smi librocm-smi64-1 amd-smi rocminfo python3 strace
}
pkg_root() {
        case $1 in
        bookworm) sh sim/roots.sh bookworm-pkg bookworm ;;
        trixie) sh sim/roots.sh trixie-pkg trixie systemd udev ;;
        *)
                echo "usage: sh sim/engines.sh --pkg bookworm|trixie" >&2
                return 2
                ;;
        esac
}
case ${1:-} in
--all)
        # at once: debootstrap waits on the network and the disk more than on
        # the CPU (each root has its own lock: sim/roots.sh)
        pids=""
        for r in trixie bookworm sid experimental; do
                root $r >/dev/null &
                pids="$pids $!"
        done
        for r in bookworm trixie; do
                pkg_root $r >/dev/null &
                pids="$pids $!"
        done
        tools_root >/dev/null &
        pids="$pids $!"
        rc=0
        for p in $pids; do
                wait "$p" || rc=1
        done
        exit $rc
        ;;
--pkg) pkg_root "${2:-}" ;;
--tools) tools_root ;;
*) root "${1:-trixie}" ;;
esac
