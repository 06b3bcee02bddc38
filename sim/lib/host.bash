# The simulated host for sim/sim.sh: a profile served as sys/ + dev/ below a
# directory, over FUSE (`amd-ctk-fakefs mount`, which returns once the mount
# is up and leaves the server in the background) or, where FUSE is not
# available, written out as plain files and device nodes
# (`amd-ctk-fakefs materialize`). Sets HOST_MODE to say which.
# Needs helpers/common.bash and lib/demo.bash.

HOST_MODE=

# host_up PROFILE DIR: prints the command it runs; fails if neither works.
host_up() {
        local profile=$1 dir=$2
        mkdir -p "$dir" || return 1
        if [ -e /dev/fuse ] && amd-ctk-fakefs mount --help >/dev/null 2>&1; then
                demo_prompt amd-ctk-fakefs mount "$profile" "$dir" --pidfile "$dir.pid"
                # output to a file: the server in the background keeps no pipe of ours open
                timeout 30 amd-ctk-fakefs mount "$profile" "$dir" --pidfile "$dir.pid" >"$dir.log" 2>&1
                local rc=$?
                cat "$dir.log"
                rm -f "$dir.log"
                if [ $rc -eq 0 ] && mountpoint -q "$dir"; then
                        HOST_MODE="served over FUSE"
                        return 0
                fi
                host_down "$dir"
                mkdir -p "$dir"
                demo_say "(FUSE is not usable here; writing the host out as files instead)"
        fi
        if amd-ctk-fakefs materialize --help >/dev/null 2>&1; then
                demo_run amd-ctk-fakefs materialize "$profile" "$dir" || return 1
                HOST_MODE="materialized as plain files"
                return 0
        fi
        return 1
}

# host_down DIR: unmounts (FUSE), waits for the server to end, removes DIR.
host_down() {
        local dir=$1
        if mountpoint -q "$dir" 2>/dev/null; then
                amd-ctk-fakefs umount "$dir" >/dev/null 2>&1 || umount -l "$dir" 2>/dev/null || true
        fi
        ctk_kill_pidfile "$dir.pid" 10 # the server, if it is still running
        rm -rf --one-file-system "$dir"
}
