#!/bin/sh
# Installs the Debian packages needed to build and test the project.
# Idempotent and fast when everything is present; as non-root it only prints
# the command to run.
set -eu
PKGS="build-essential pkg-config libjansson-dev libyaml-dev libfuse3-dev fuse3 libseccomp-dev libcmocka-dev
bats lcov busybox-static musl-tools debootstrap lintian cppcheck clang clang-tidy libclang-rt-14-dev docker.io runc containerd podman python3-jsonschema clang-format mandoc"
missing=""
for p in $PKGS; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        case "$st" in
        *"install ok installed"*) ;;
        *) missing="$missing $p" ;;
        esac
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
        echo "missing packages:$missing"
        echo "run as root: apt-get update && apt-get install -y$missing"
        exit 0
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
