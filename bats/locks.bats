#!/usr/bin/env bats
# Nothing stalls: the locks we take are files only we can open (mode 0600,
# our owner), so no other user can hold them; a file at a lock's path that
# another user could hold is refused at once with one line.  Before, a user
# who locked daemon.json's directory (anyone may) stalled `runtime
# configure` for ever.  The other users here are `setpriv --reuid=65534`.

bats_require_minimum_version 1.5.0

load helpers/common

setup() {
        CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$CTK" || return 1
        # a directory other users can reach (bats' own are root's alone)
        T=$(mktemp -d /tmp/ctk-locks.XXXXXX)
        chmod 0755 "$T"
        mkdir -p "$T/docker" "$T/state"
        printf '{"state-dir": "%s", "profile": "%s"}\n' "$T/state" "$PROFILES/seed-4xmi210.json" >"$T/config.json"
        HOLDER=""
}

teardown() {
        [ -z "$HOLDER" ] || { kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; } || true
        rm -rf "$T"
}

# hold_as_nobody PATH: user 65534 opens PATH (read-only) and holds a flock on
# it until the test ends (HOLDER is its pid: the sleep that has the fd)
hold_as_nobody() {
        setpriv --reuid=65534 --regid=65534 --clear-groups bash -c 'exec 9<"$1" && flock 9 && exec sleep 600' _ "$1" &
        HOLDER=$!
        local i
        for i in $(seq 200); do
                flock -n "$1" true 2>/dev/null || return 0
                sleep 0.05
        done
        echo "user 65534 did not get the lock on $1" >&2
        return 1
}

@test "runtime configure: another user holding daemon.json's directory does not stall it; nothing of ours is left" {
        hold_as_nobody "$T/docker"
        run timeout 60 "$CTK" runtime configure --config-path "$T/docker/daemon.json"
        [ "$status" -eq 0 ] # (timeout's 124: stalled)
        [ "${lines[-1]}" = "Please restart docker daemon" ]
        [ "$(ls -A "$T/docker")" = daemon.json ]
        # its lock beside daemon.json is a file no other user could open, let alone lock
        (umask 077 && : >"$T/docker/.daemon.json.lock")
        ! setpriv --reuid=65534 --regid=65534 --clear-groups flock -n "$T/docker/.daemon.json.lock" true 2>/dev/null
        rm "$T/docker/.daemon.json.lock"
}

@test "runtime configure: a lock file another user could hold is refused at once, naming it; daemon.json unchanged" {
        printf '{}\n' >"$T/docker/daemon.json"
        cp "$T/docker/daemon.json" "$T/before.json"
        printf '' >"$T/docker/.daemon.json.lock"
        chown 65534:65534 "$T/docker/.daemon.json.lock"
        hold_as_nobody "$T/docker/.daemon.json.lock"
        run timeout 60 "$CTK" runtime configure --config-path "$T/docker/daemon.json"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: lock file $T/docker/.daemon.json.lock has owner uid 65534 and mode 0644, where another user could hold it: refused (remove it: it is created again, mode 0600)" ]
        cmp "$T/before.json" "$T/docker/daemon.json"
}

@test "GPU tracker and the runtime's CDI refresh: a lock file another user holds is refused at once (was: a wait, then a time-out)" {
        "$CTK" --config "$T/config.json" gpu-tracker enable >/dev/null
        chmod 0644 "$T/state/gpu-tracker.lock"
        hold_as_nobody "$T/state/gpu-tracker.lock"
        cp "$T/state/gpu-tracker.json" "$T/before.json"
        run timeout 60 "$CTK" --config "$T/config.json" gpu-tracker 0 exclusive
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: lock file $T/state/gpu-tracker.lock has owner uid 0 and mode 0644, where another user could hold it: refused (remove it: it is created again, mode 0600)" ]
        cmp "$T/before.json" "$T/state/gpu-tracker.json"
        # removed, it is made again ours alone, and works
        kill "$HOLDER" && wait "$HOLDER" 2>/dev/null || true
        HOLDER=""
        rm "$T/state/gpu-tracker.lock"
        run "$CTK" --config "$T/config.json" gpu-tracker 0 exclusive
        [ "$status" -eq 0 ]
        [ "$(stat -c '%a %u' "$T/state/gpu-tracker.lock")" = "600 0" ]

        # the CDI refresh's lock: the runtime regenerating a stale spec (mode cdi, cdi-refresh-on-stale)
        "$CTK_BIN/amd-ctk-fakefs" materialize "$PROFILES/seed-4xmi210.json" "$T/host"
        mkdir -p "$T/cdi" "$T/bundle"
        "$CTK" --profile "$PROFILES/mi300x-spx-x8.json" cdi generate --output "$T/cdi/amd.json" >/dev/null # another host's
        cp "$T/cdi/amd.json" "$T/spec-before.json"
        jq -n --arg s "$T/state" --arg r "$T/host" --arg c "$T/cdi" '{"state-dir": $s, "root": $r, "cdi-spec-dirs": [$c],
                "mode": "cdi", "cdi-refresh-on-stale": true, "runtime-path": "/bin/true", "log-file": "/dev/null"}' \
                >"$T/rt.json"
        echo '{"ociVersion": "1.0.2", "process": {"env": ["AMD_VISIBLE_DEVICES=0"]}}' >"$T/bundle/config.json"
        printf '' >"$T/state/cdi-refresh.lock"
        chown 65534:65534 "$T/state/cdi-refresh.lock"
        chmod 0600 "$T/state/cdi-refresh.lock"
        hold_as_nobody "$T/state/cdi-refresh.lock"
        run timeout 60 "$CTK_BIN/amd-container-runtime" --amd-config="$T/rt.json" create --bundle "$T/bundle" c1
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: mode cdi: refreshing the CDI spec $T/cdi/amd.json: lock file $T/state/cdi-refresh.lock has owner uid 65534 and mode 0600, where another user could hold it: refused (remove it: it is created again, mode 0600)" ]
        cmp "$T/spec-before.json" "$T/cdi/amd.json"
}
