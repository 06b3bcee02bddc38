#!/bin/sh
# The engine root: Debian 13's docker (26), containerd (1.7), runc, crun
# and podman (5), built once by sim/roots.sh below build/roots and reused;
# prints its path.  The bats scenarios run its daemons in a private mount
# and network namespace (bats/helpers/engines.bash).
set -eu
cd "$(dirname "$0")/.."
exec sh sim/roots.sh trixie-engines trixie docker.io docker-cli containerd runc crun podman docker-compose ca-certificates iproute2 \
        python3-grpcio python3-grpc-tools libre2-11 --files-of golang-github-kubernetes-cri-api-dev
