# AMD's own tools (Debian's rocm-smi and amd-smi, the root of
# `sh sim/engines.sh --tools`) run on a simulated host: the host's sys/ is
# the tools' /sys, its dev/dri and dev/kfd their /dev/dri and /dev/kfd, in a
# private mount and PID namespace over an overlay of the root (the root is
# never written), with a tmpfs /dev/shm (rocm-smi's library uses shm_open)
# and /tmp.
#
#   load helpers/common; load helpers/amd_tools
#   setup_file() { amd_tools_root; }     # builds the root once (or finds it)
#   @test ... { run amd_tool "$HOST" rocm-smi --showuniqueid; }
#
# Plain bash: sim/sim.sh and sim/bench.sh use the same functions.

# A device row of the table rocm-smi prints with no option (an awk/ERE
# pattern): device, KFD node, DID (N/A for a partition but the first), GUID,
# then the sensors (--showhw's table has no comma after the DID):
#   0       4     0x740f,   12261  33.0°C ...
# shellcheck disable=SC2034 # used by the files that load this one
ROCM_SMI_ROW='^[0-9]+ +[0-9]+ +(0x[0-9a-f]+|N/A), +[0-9]+ '

# amd_tools_root: sets AMD_TOOLS_ROOT (building it on first use).
amd_tools_root() {
        [ -n "${AMD_TOOLS_ROOT:-}" ] && [ -x "$AMD_TOOLS_ROOT/usr/bin/rocm-smi" ] && return 0
        AMD_TOOLS_ROOT=$(cd "$CTK_REPO" && sh sim/engines.sh --tools) || return 1
        AMD_TOOLS_ROOT=$(cd "$CTK_REPO" && realpath "$AMD_TOOLS_ROOT") || return 1
        export AMD_TOOLS_ROOT
}

# amd_tool HOST COMMAND...: runs COMMAND (rocm-smi, amd-smi, ...) on the
# simulated host HOST (a FUSE mount or a materialized tree); its output and
# exit status are the tool's.
amd_tool() {
        local host=$1 work
        shift
        : "${AMD_TOOLS_ROOT:?call amd_tools_root first}"
        host=$(realpath "$host") || return 1
        work=$(mktemp -d "${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/amd-tool.XXXXXX") || return 1
        mkdir -p "$work/upper" "$work/work" "$work/root" || return 1
        # a session of its own, its scheduler group's weight raised (amd-smi
        # gives its library 60 s to read the topology: 25,000 files of
        # mi300x-cpx-x8, each a FUSE round trip, which a loaded machine's
        # other tests would otherwise stretch past that)
        setsid -w sh -c 'echo -10 >/proc/self/autogroup 2>/dev/null; exec "$@"' sh \
                unshare --mount --pid --fork --propagation private -- sh -ec '
                root=$1 host=$2 work=$3
                shift 3
                m=$work/root
                mount -t overlay overlay -o "lowerdir=$root,upperdir=$work/upper,workdir=$work/work" "$m"
                mount --rbind "$host/sys" "$m/sys"
                mount -t tmpfs -o mode=0755 tmpfs "$m/dev"
                mkdir "$m/dev/dri" "$m/dev/shm" "$m/dev/pts"
                mount -t tmpfs -o mode=1777 tmpfs "$m/dev/shm"
                for n in null zero random urandom tty; do
                        touch "$m/dev/$n" && mount --bind "/dev/$n" "$m/dev/$n"
                done
                [ ! -d "$host/dev/dri" ] || mount --rbind "$host/dev/dri" "$m/dev/dri"
                if [ -e "$host/dev/kfd" ]; then
                        touch "$m/dev/kfd" && mount --bind "$host/dev/kfd" "$m/dev/kfd"
                fi
                mount -t tmpfs -o mode=1777 tmpfs "$m/tmp"
                mount -t proc proc "$m/proc"
                exec chroot "$m" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
        ' sh "$AMD_TOOLS_ROOT" "$host" "$work" "$@"
        local rc=$?
        rm -rf "$work"
        return $rc
}
