# Conventions shared by every bats file and by the sim scripts (plain bash,
# nothing bats-specific, so sim/sim.sh can source it too).
#
#   CTK_REPO   the repository root
#   CTK_BIN    directory of the binaries under test (default build/bin;
#              `make coverage` points it at build/cov/bin). A relative value
#              is taken relative to the repository root.
#   CTK_TOOLS  static helper programs for test images (default build/tools)
#   PROFILES   simulated host profiles (sim/profiles)
#
# Every bats file starts with:  load helpers/common

CTK_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

ctk_abspath() {
        case "$1" in
        /*) printf '%s\n' "$1" ;;
        *) printf '%s/%s\n' "$CTK_REPO" "$1" ;;
        esac
}

CTK_BIN=$(ctk_abspath "${CTK_BIN:-build/bin}")
CTK_TOOLS=$(ctk_abspath "${CTK_TOOLS:-build/tools}")
PROFILES=$(ctk_abspath "${PROFILES:-sim/profiles}")
export CTK_REPO CTK_BIN CTK_TOOLS PROFILES

# ctk_tmpdir [NAME]: creates and prints a fresh directory with a short path
# (/tmp/ctk-NAME.XXXXXX). Unix socket paths are limited to 108 bytes and
# BATS_*_TMPDIR paths are long, so anything that holds sockets or mounts lives
# here. The caller removes it (see dockerd_stop, ctk_rm_tmpdir).
ctk_tmpdir() {
        mktemp -d "/tmp/ctk-${1:-t}.XXXXXX"
}

# ctk_unmount_under DIR: unmounts every mount point at or below DIR, deepest
# first (lazily if a plain unmount fails). Returns non-zero if any remains.
ctk_unmount_under() {
        local dir mp
        dir=$(realpath -m "$1")
        for mp in $(ctk_mounts_under "$dir" | sort -r); do
                umount "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || true
        done
        [ -z "$(ctk_mounts_under "$dir")" ]
}

# ctk_mounts_under DIR: prints the mount points at or below DIR, one a line.
# (Mount points are octal-escaped in mountinfo; ours never need escaping.)
ctk_mounts_under() {
        local dir=$1
        awk -v d="$dir" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# ctk_rm_tmpdir DIR: unmounts what is left below DIR and removes it, never
# crossing into another file system.
ctk_rm_tmpdir() {
        [ -n "$1" ] && [ -d "$1" ] || return 0
        ctk_unmount_under "$1" || {
                echo "ctk_rm_tmpdir: mounts remain under $1:" >&2
                ctk_mounts_under "$1" >&2
                return 1
        }
        rm -rf --one-file-system "$1"
}

# ctk_kill_pidfile FILE TIMEOUT_S: SIGTERM the process in FILE, SIGKILL after
# TIMEOUT_S seconds, wait until it is gone, remove FILE.
ctk_kill_pidfile() {
        local pid
        pid=$(cat "$1" 2>/dev/null) || return 0
        [ -n "$pid" ] || return 0
        kill -TERM "$pid" 2>/dev/null || {
                rm -f "$1"
                return 0
        }
        ctk_wait_for "$2" ctk_pid_gone "$pid" || {
                kill -KILL "$pid" 2>/dev/null || true
                ctk_wait_for 10 ctk_pid_gone "$pid" || true
        }
        rm -f "$1"
}

# ctk_pid_gone PID: true once PID no longer exists.
ctk_pid_gone() {
        ! kill -0 "$1" 2>/dev/null
}

# ctk_has_open PID FILE: true when process PID has FILE open (2 once PID is
# gone: for ctk_wait_for).
ctk_has_open() {
        local fd
        [ -d "/proc/$1/fd" ] || return 2
        for fd in /proc/"$1"/fd/*; do
                [ "$fd" -ef "$2" ] && return 0
        done
        return 1
}

# ctk_wait_for TIMEOUT_S CMD...: runs CMD every 0.1 s until it succeeds;
# returns 1 after TIMEOUT_S seconds, or at once when CMD exits with 2 (what
# it waits for has died).
ctk_wait_for() {
        local deadline=$((SECONDS + $1)) rc
        shift
        while :; do
                "$@" && return 0
                rc=$?
                [ "$rc" -ne 2 ] && [ "$SECONDS" -lt "$deadline" ] || return 1
                sleep 0.1
        done
}

# The command names of the COMMANDS: (or Commands:) section of a help text (stdin).
ctk_help_commands() {
        awk '/^[A-Z][A-Za-z ]*:$/ { in_cmds = (toupper($0) == "COMMANDS:"); next }
             in_cmds && /^ +[a-z]/ { sub(/,$/, "", $1); if ($1 != "help") print $1 }'
}

# ctk_host PROFILE: a simulated host as amd-container-runtime reads it
# (config key root: it carries no simulator): PROFILE (a file, or the name
# of one in sim/profiles) written out as a directory tree by
# amd-ctk-fakefs materialize, once per bats file and profile content (below
# BATS_FILE_TMPDIR); prints the directory.
ctk_host() {
        local p=$1 dir
        [ -f "$p" ] || p=$PROFILES/$1.json
        dir=${BATS_FILE_TMPDIR:?ctk_host: in a bats file}/hosts/$(basename "$p" .json)-$(sha1sum <"$p" | cut -c1-12)
        if [ ! -d "$dir" ]; then
                mkdir -p "${dir%/*}" && "$CTK_BIN/amd-ctk-fakefs" materialize "$p" "$dir.new" >/dev/null &&
                        mv "$dir.new" "$dir" || return 1
        fi
        printf '%s\n' "$dir"
}

# ctk_require_built PROGRAM...: each PROGRAM is built (executable), or one
# line saying which is missing and a non-zero return.
ctk_require_built() {
        local p
        for p; do
                [ -x "$p" ] || {
                        echo "missing $p (run make first)" >&2
                        return 1
                }
        done
}

# ctk_static_build: the packages' build (make STATIC=1, in build/static):
# the programs as they run in another release's root; made or brought up
# to date first (one at a time: test files run side by side share it).
# Prints its directory.
ctk_static_build() {
        local out
        out=$(sh "$CTK_REPO/sim/pkg.sh" build 2>&1) || {
                echo "the static build failed: $out" >&2
                return 1
        }
        printf '%s\n' "$CTK_REPO/build/static"
}

# ctk_file_lines DIR LIST: every line of the files LIST names (relative to
# DIR, one a line), each after its file's name ("./a/b:line"): one grep for
# all; two trees compared with one diff of this
ctk_file_lines() { (cd "$1" && xargs grep -H '' <"$2"); }
