# The simulated host for sim/sim.sh: a profile served as sys/ + dev/ below a
# directory, over FUSE (`amd-ctk-fakefs mount`) or, where that is not
# available, written out as plain files and device nodes
# (`amd-ctk-fakefs materialize`). Sets HOST_MODE to say which.
# Needs helpers/common.bash and helpers/dockerd.bash (_ctk_kill_pidfile).

HOST_MODE=

# host_up PROFILE DIR: prints the command it runs; fails if neither works.
host_up() {
        local profile=$1 dir=$2 pid
        mkdir -p "$dir" || return 1
        if amd-ctk-fakefs mount --help >/dev/null 2>&1; then
                demo_prompt amd-ctk-fakefs mount "$profile" "$dir"
                amd-ctk-fakefs mount "$profile" "$dir" </dev/null >"$dir.log" 2>&1 &
                pid=$!
                echo "$pid" >"$dir.pid"
                if ctk_wait_for 10 _host_mounted "$dir" "$pid"; then
                        HOST_MODE="served over FUSE"
                        return 0
                fi
                echo "amd-ctk-fakefs mount did not mount $dir:" >&2
                cat "$dir.log" >&2
                host_down "$dir"
                mkdir -p "$dir"
        fi
        if amd-ctk-fakefs materialize --help >/dev/null 2>&1; then
                demo_run amd-ctk-fakefs materialize "$profile" "$dir" || return 1
                HOST_MODE="materialized as plain files"
                return 0
        fi
        return 1
}

# mounted, or the server gave up
_host_mounted() {
        mountpoint -q "$1" && return 0
        kill -0 "$2" 2>/dev/null || wait "$2" || return 2
        return 1
}

# host_down DIR: unmounts (FUSE) and ends the server; removes DIR.
host_down() {
        local dir=$1
        if mountpoint -q "$dir" 2>/dev/null; then
                fusermount3 -u "$dir" 2>/dev/null || umount -l "$dir" 2>/dev/null || true
        fi
        _ctk_kill_pidfile "$dir.pid" 10 # the server, if it is still running
        rm -f "$dir.log"
        rm -rf --one-file-system "$dir"
}
