#!/usr/bin/env bats
# The files we write, prepared by someone else: links where our files go,
# hard links to a file we must never write, a state directory anyone may
# write to.  Nothing we write follows a symbolic link or writes through a
# hard link, truncates a file we did not create, or leaves a temporary
# file; a refusal is one line and a non-zero exit.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        ctk_require_built "$CTK" "$RT_SHIM" || return 1
}

setup() {
        T=$BATS_TEST_TMPDIR
        # the file an attacker wants written: /etc/shadow's stand-in
        VICTIM=$T/shadow
        printf 'root:$y$j9T$secret:19000:0:99999:7:::\n' >"$VICTIM"
        chmod 0640 "$VICTIM"
        cp -p "$VICTIM" "$T/shadow.orig"
        STATE=$T/state
        CFG=$T/config.json
        printf '{"state-dir": "%s", "root": "%s", "log-file": "%s"}\n' "$STATE" "$(ctk_host seed-4xmi210)" \
                "$T/runtime.log" >"$CFG"
}

victim_intact() { cmp "$VICTIM" "$T/shadow.orig" && [ "$(stat -c %a "$VICTIM")" = 640 ]; }
# no temporary file (".NAME.XXXXXX") left in DIR
no_temporaries() { ! ls -A "$1" | grep -q '^\..*\.[A-Za-z0-9]\{6\}$'; }
tracker() { "$CTK" --config "$CFG" gpu-tracker "$@"; }

@test "tracker state file as a symbolic link to another file: refused, the file untouched" {
        tracker enable
        rm "$STATE/gpu-tracker.json"
        ln -s "$VICTIM" "$STATE/gpu-tracker.json"
        run tracker 0 exclusive
        [ "$status" -ne 0 ]
        [ "$output" = "amd-ctk: GPU Tracker state $STATE/gpu-tracker.json is a symbolic link: refused (remove it, then run 'amd-ctk gpu-tracker reset')" ]
        victim_intact
        [ -L "$STATE/gpu-tracker.json" ]
        no_temporaries "$STATE"
}

@test "tracker state file as a hard link to another file: a new file is written, the other name keeps its bytes" {
        tracker enable
        rm "$STATE/gpu-tracker.json"
        ln "$VICTIM" "$STATE/gpu-tracker.json"
        run tracker 0 exclusive
        # (the victim's text is not a state: the tracker says so, writes nothing)
        [ "$status" -ne 0 ]
        victim_intact
        tracker reset
        victim_intact
        [ "$(stat -c %h "$VICTIM")" = 1 ]
        no_temporaries "$STATE"
}

@test "tracker lock and marker as symbolic links: nothing is created or written through them" {
        mkdir -p "$STATE"
        ln -s "$T/created-by-lock" "$STATE/gpu-tracker.lock"
        run tracker enable
        [ "$status" -ne 0 ]
        [ "${#lines[@]}" -eq 1 ]
        [ ! -e "$T/created-by-lock" ]
        rm "$STATE/gpu-tracker.lock"
        ln -s "$VICTIM" "$STATE/gpu-tracker.enabled"
        run tracker enable
        victim_intact
}

@test "tracker temporary names taken by links: nothing is written through them, the links are cleared away" {
        tracker enable
        # names of the writer's temporaries (".gpu-tracker.json." and six characters)
        ln -s "$VICTIM" "$STATE/.gpu-tracker.json.AAAAAA"
        ln -s "$T/created-through-temp" "$STATE/.gpu-tracker.json.BBBBBB"
        tracker 0 exclusive
        victim_intact
        [ ! -e "$T/created-through-temp" ]
        [ ! -L "$STATE/.gpu-tracker.json.AAAAAA" ]
        [ ! -L "$STATE/.gpu-tracker.json.BBBBBB" ]
        no_temporaries "$STATE"
        [ "$(jq -r '.gpus[0].accessibility' "$STATE/gpu-tracker.json")" = exclusive ]
}

@test "a state directory every user may write to is refused with one line; nothing is written" {
        mkdir -p "$STATE"
        chmod 0777 "$STATE"
        run tracker enable
        [ "$status" -ne 0 ]
        [ "$output" = "amd-ctk: GPU Tracker state directory $STATE is not trusted: it is writable by every user (mode 0777): refused (chown root:root $STATE; chmod 0700 $STATE)" ]
        [ -z "$(ls -A "$STATE")" ]
        chmod 0755 "$STATE"
        tracker enable
}

@test "cdi generate --output onto a symbolic link or a hard link: the linked file keeps its bytes" {
        ln -s "$VICTIM" "$T/amd.json"
        run "$CTK" --profile "$RT_PROFILES/seed-4xmi210.json" cdi generate --output "$T/amd.json"
        [ "$status" -ne 0 ]
        [[ "$output" == *"$T/amd.json is a symbolic link: not written"* ]]
        victim_intact
        rm "$T/amd.json"
        ln "$VICTIM" "$T/amd.json"
        "$CTK" --profile "$RT_PROFILES/seed-4xmi210.json" cdi generate --output "$T/amd.json"
        victim_intact
        jq -e '.kind == "amd.com/gpu"' "$T/amd.json" >/dev/null
        no_temporaries "$T"
}

@test "runtime configure: a .bak that is a link is refused; a daemon.json linking to a file that is not JSON is left alone" {
        echo '{"debug": true}' >"$T/daemon.json"
        ln -s "$VICTIM" "$T/daemon.json.bak"
        run "$CTK" runtime configure --config-path "$T/daemon.json"
        [ "$status" -ne 0 ]
        [[ "$output" == *"daemon.json.bak is a symbolic link: not written"* ]]
        victim_intact
        [ "$(cat "$T/daemon.json")" = '{"debug": true}' ]
        rm "$T/daemon.json.bak" "$T/daemon.json"
        ln -s "$VICTIM" "$T/daemon.json"
        run "$CTK" runtime configure --config-path "$T/daemon.json"
        [ "$status" -ne 0 ]
        victim_intact
        no_temporaries "$T"
}

@test "the runtime: a bundle whose config.json is a symbolic link gets no edit through it" {
        rt_bundle "$T/b" true
        rt_spec_env "$T/b" AMD_VISIBLE_DEVICES=0
        mv "$T/b/config.json" "$T/real-config.json"
        ln -s "$T/real-config.json" "$T/b/config.json"
        cp "$T/real-config.json" "$T/real-config.orig"
        run "$RT_SHIM" --amd-config="$CFG" --root "$T/runc" create --bundle "$T/b" hostile1
        [ "$status" -ne 0 ]
        [[ "$output" == *"config.json is a symbolic link: not written"* ]]
        cmp "$T/real-config.json" "$T/real-config.orig"
        [ -L "$T/b/config.json" ]
        no_temporaries "$T/b"
}

# runtime configure --runtime ENGINE --config-path PATH [OPTION...];
# containerd's config.toml is $CONTAINERD_CFG, else beside the drop-in
dropin() {
        local engine=$1 path=$2
        shift 2
        if [ "$engine" = containerd ]; then
                set -- --containerd-config "${CONTAINERD_CFG:-$(dirname "$path")/config.toml}" "$@"
        fi
        run "$CTK" runtime configure --runtime "$engine" --config-path "$path" "$@"
}
dropin_name() { case $1 in containerd) echo 99-amd.toml ;; *) echo 99-amd.conf ;; esac; }

@test "runtime configure --runtime containerd|podman|crio: a drop-in path linking elsewhere is never written through" {
        local e d name
        for e in containerd podman crio; do
                d=$T/$e
                name=$(dropin_name "$e")
                mkdir -p "$d" "$T/elsewhere-$e"
                # a symbolic link to the shadow stand-in: not ours, refused
                ln -s "$VICTIM" "$d/$name"
                dropin "$e" "$d/$name"
                [ "$status" -ne 0 ]
                [ "${#lines[@]}" -eq 1 ]
                [ "$output" = "amd-ctk: $d/$name exists and was not written by amd-ctk: not replaced (move it away, or give another --config-path)" ]
                dropin "$e" "$d/$name" --remove
                [ "$status" -ne 0 ]
                victim_intact
                [ -L "$d/$name" ]
                # a symbolic link to a drop-in of ours elsewhere: not written through
                rm "$d/$name"
                dropin "$e" "$T/elsewhere-$e/$name"
                [ "$status" -eq 0 ]
                cp "$T/elsewhere-$e/$name" "$T/elsewhere-$e/orig"
                ln -s "$T/elsewhere-$e/$name" "$d/$name"
                dropin "$e" "$d/$name" --set-as-default
                [ "$status" -ne 0 ]
                [[ "$output" == *"$d/$name is a symbolic link: not written"* ]]
                cmp "$T/elsewhere-$e/$name" "$T/elsewhere-$e/orig"
                [ -L "$d/$name" ]
                # a hard link to the stand-in: not ours, neither replaced nor removed
                rm "$d/$name"
                ln "$VICTIM" "$d/$name"
                dropin "$e" "$d/$name"
                [ "$status" -ne 0 ]
                dropin "$e" "$d/$name" --remove
                [ "$status" -ne 0 ]
                victim_intact
                [ "$(stat -c %h "$VICTIM")" = 2 ]
                rm "$d/$name"
                # a hard link to a drop-in of ours: the path gets a new file, the other name keeps its bytes
                ln "$T/elsewhere-$e/$name" "$d/$name"
                dropin "$e" "$d/$name" --set-as-default
                [ "$status" -eq 0 ]
                cmp "$T/elsewhere-$e/$name" "$T/elsewhere-$e/orig"
                ! cmp -s "$d/$name" "$T/elsewhere-$e/orig"
                [ "$(stat -c %h "$d/$name")" = 1 ]
                no_temporaries "$d"
                no_temporaries "$T/elsewhere-$e"
        done
}

@test "runtime configure --runtime containerd|podman|crio: a drop-in directory that is a symbolic link is refused" {
        local e name
        for e in containerd podman crio; do
                name=$(dropin_name "$e")
                export CONTAINERD_CFG=$T/$e/config.toml
                mkdir -p "$T/$e" "$T/target-$e"
                ln -s "$T/target-$e" "$T/$e/conf.d"
                dropin "$e" "$T/$e/conf.d/$name"
                [ "$status" -ne 0 ]
                [ "${#lines[@]}" -eq 1 ]
                [ "$output" = "amd-ctk: $T/$e/conf.d/$name is not trusted: its directory $T/$e/conf.d is a symbolic link: not written" ]
                [ -z "$(ls -A "$T/target-$e")" ]
                [ ! -e "$T/$e/config.toml" ]
                # nor is a drop-in of ours removed through it
                CONTAINERD_CFG=$T/target-$e/config.toml dropin "$e" "$T/target-$e/$name"
                [ "$status" -eq 0 ]
                dropin "$e" "$T/$e/conf.d/$name" --remove
                [ "$status" -ne 0 ]
                [ -e "$T/target-$e/$name" ]
        done
}

@test "runtime configure --runtime containerd: config.toml or its .bak linking elsewhere: refused before anything is written" {
        local d=$T/c
        export CONTAINERD_CFG=$d/config.toml
        mkdir -p "$d"
        # config.toml a symbolic link to the stand-in (not TOML) and to a TOML file of someone else's
        ln -s "$VICTIM" "$d/config.toml"
        dropin containerd "$d/conf.d/99-amd.toml"
        [ "$status" -ne 0 ]
        [ "${#lines[@]}" -eq 1 ]
        victim_intact
        printf 'version = 2\n' >"$T/theirs.toml"
        cp "$T/theirs.toml" "$T/theirs.orig"
        ln -sf "$T/theirs.toml" "$d/config.toml"
        dropin containerd "$d/conf.d/99-amd.toml"
        [ "$status" -ne 0 ]
        [ "$output" = "amd-ctk: $d/config.toml is a symbolic link: not written (write to the file it points to)" ]
        cmp "$T/theirs.toml" "$T/theirs.orig"
        [ ! -e "$d/conf.d/99-amd.toml" ]
        [ ! -e "$d/config.toml.bak" ]
        # the .bak a symbolic link to the stand-in
        rm "$d/config.toml"
        printf 'version = 2\n' >"$d/config.toml"
        cp "$d/config.toml" "$T/config.orig"
        ln -s "$VICTIM" "$d/config.toml.bak"
        dropin containerd "$d/conf.d/99-amd.toml"
        [ "$status" -ne 0 ]
        [ "$output" = "amd-ctk: $d/config.toml.bak is a symbolic link: not written (write to the file it points to)" ]
        victim_intact
        cmp "$d/config.toml" "$T/config.orig"
        [ ! -e "$d/conf.d/99-amd.toml" ]
        # config.toml a hard link to another file of theirs: replaced by a new file, the other name keeps its bytes
        rm "$d/config.toml.bak"
        ln -f "$T/theirs.toml" "$d/config.toml"
        dropin containerd "$d/conf.d/99-amd.toml"
        [ "$status" -eq 0 ]
        cmp "$T/theirs.toml" "$T/theirs.orig"
        grep -q '^imports = ' "$d/config.toml"
        no_temporaries "$d"
        no_temporaries "$d/conf.d"
}

@test "runtime configure --runtime containerd|podman|crio: a link in any directory above the drop-in, or a directory others may write: refused" {
        local e name
        for e in containerd podman crio; do
                name=$(dropin_name "$e")
                export CONTAINERD_CFG=$T/$e/config.toml
                mkdir -p "$T/$e" "$T/target-$e/conf.d"
                # containerd's --config-path /etc/containerd/link/conf.d/99-amd.toml, link a symbolic link
                ln -s "$T/target-$e" "$T/$e/link"
                dropin "$e" "$T/$e/link/conf.d/$name"
                [ "$status" -ne 0 ]
                [ "${#lines[@]}" -eq 1 ]
                [ "$output" = "amd-ctk: $T/$e/link/conf.d/$name is not trusted: its ancestor $T/$e/link is a symbolic link: not written" ]
                [ -z "$(ls -A "$T/target-$e/conf.d")" ]
                [ ! -e "$T/$e/config.toml" ]
                # a real path whose directory above is every user's
                mkdir -p "$T/open-$e/x"
                chmod 0777 "$T/open-$e"
                CONTAINERD_CFG=$T/open-$e/x/config.toml dropin "$e" "$T/open-$e/x/conf.d/$name"
                [ "$status" -ne 0 ]
                [ "$output" = "amd-ctk: $T/open-$e/x/conf.d/$name is not trusted: its ancestor $T/open-$e is writable by every user (mode 0777): not written" ]
                [ -z "$(ls -A "$T/open-$e/x")" ]
        done
}

# within SECONDS CMD...: runs CMD (run's $status and $output), failing if it takes longer (a wait)
within() {
        local limit=$1
        shift
        run timeout "$limit" "$@"
        [ "$status" -ne 124 ] || {
                echo "still waiting after $limit s: $*" >&2
                return 1
        }
}

@test "a FIFO or /dev/zero where a file is read: one error naming it, never a wait or an endless read" {
        local d=$T/f
        mkdir -p "$d/conf.d" "$d/cdi" "$d/b"
        mkfifo "$d/daemon.json" "$d/config.toml" "$d/conf.d/99-amd.toml" "$d/cdi/fifo.json" "$d/toolkit.json"
        ln -s /dev/zero "$d/zero.json"
        ln -s /dev/zero "$d/cdi/zero.json"
        # daemon.json
        within 20 "$CTK" runtime configure --config-path "$d/daemon.json"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $d/daemon.json is a FIFO, not a regular file: not read" ]
        within 20 "$CTK" runtime configure --config-path "$d/zero.json"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: /dev/zero is a character device, not a regular file: not read" ]
        # containerd's config.toml, and the drop-in itself
        within 20 "$CTK" runtime configure --runtime containerd --config-path "$d/conf.d/x.toml" --containerd-config "$d/config.toml"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $d/config.toml is a FIFO, not a regular file: not read" ]
        within 20 "$CTK" runtime configure --runtime podman --config-path "$d/conf.d/99-amd.toml"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: $d/conf.d/99-amd.toml is a FIFO, not a regular file: not read" ]
        # the toolkit's config.json, for amd-ctk and for the runtime
        within 20 "$CTK" --config "$d/toolkit.json" gpu list
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: configuration file: $d/toolkit.json is a FIFO, not a regular file: not read" ]
        rt_bundle "$d/b" true
        rt_spec_env "$d/b" AMD_VISIBLE_DEVICES=0
        within 20 "$RT_SHIM" --amd-config="$d/toolkit.json" create --bundle "$d/b" fifo1
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: configuration file: $d/toolkit.json is a FIFO, not a regular file: not read" ]
        # the bundle's config.json
        mv "$d/b/config.json" "$d/b/real.json"
        mkfifo "$d/b/config.json"
        within 20 "$RT_SHIM" --amd-config="$CFG" create --bundle "$d/b" fifo2
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: reading the container spec: $d/b/config.json is a FIFO, not a regular file: not read" ]
        # CDI specs: skipped, one warning each
        within 20 "$CTK" cdi list --spec-dir "$d/cdi"
        [ "$status" -eq 0 ]
        [[ "$output" == *"amd-ctk: warning: $d/cdi/fifo.json is a FIFO, not a regular file: not read (spec skipped)"* ]]
        [[ "$output" == *"amd-ctk: warning: $d/cdi/zero.json is a character device, not a regular file: not read (spec skipped)"* ]]
        within 20 "$CTK" cdi validate --no-host-check --path "$d/zero.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"amd-ctk: failed to validate CDI spec: $d/zero.json is a character device, not a regular file: not read" ]]
}

@test "a configuration file its group, another user, or a directory above may change: not read, one line" {
        local d=$T/c
        mkdir -p "$d/etc"
        cp "$CFG" "$d/etc/config.json"
        chmod 0664 "$d/etc/config.json"
        rt_bundle "$d/b" true
        rt_spec_env "$d/b" AMD_VISIBLE_DEVICES=0
        run "$RT_SHIM" --amd-config="$d/etc/config.json" create --bundle "$d/b" cfg1
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: configuration file: $d/etc/config.json is not trusted: it is writable by its group (mode 0664)" ]
        run "$CTK" --config "$d/etc/config.json" gpu list
        [ "$status" -eq 1 ]
        [ "$output" = "amd-ctk: configuration file: $d/etc/config.json is not trusted: it is writable by its group (mode 0664)" ]
        chmod 0644 "$d/etc/config.json"
        chown 65534 "$d/etc/config.json"
        run "$CTK" --config "$d/etc/config.json" gpu list
        [ "$output" = "amd-ctk: configuration file: $d/etc/config.json is not trusted: it is owned by uid 65534, not root" ]
        chown 0 "$d/etc/config.json"
        chmod 0777 "$d"
        run "$CTK" --config "$d/etc/config.json" gpu list
        [ "$output" = "amd-ctk: configuration file: $d/etc/config.json is not trusted: its ancestor $d is writable by every user (mode 0777)" ]
        chmod 0755 "$d"
        run "$CTK" --config "$d/etc/config.json" gpu list
        [ "$status" -eq 0 ]
}

@test "a configuration file its group may change: its runtime-path is not run, not even for a container asking for no GPU" {
        local d=$T/p
        mkdir -p "$d/etc"
        # the program a member of the file's group would have root run
        printf '#!/bin/sh\ntouch "%s"\n' "$d/ran" >"$d/evil"
        chmod 0755 "$d/evil"
        jq -n --arg rt "$d/evil" --arg log "$T/runtime.log" '{"runtime-path": $rt, "log-file": $log}' \
                >"$d/etc/config.json"
        chmod 0664 "$d/etc/config.json"
        # no GPU asked for: the launcher's pass-through reads the file too
        rt_bundle "$d/b" true
        run "$RT_SHIM" --amd-config="$d/etc/config.json" create --bundle "$d/b" pass1
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: configuration file: $d/etc/config.json is not trusted: it is writable by its group (mode 0664)" ]
        [ ! -e "$d/ran" ]
        run "$RT_SHIM" --amd-config="$d/etc/config.json" delete pass1
        [ "$status" -eq 1 ]
        [ ! -e "$d/ran" ]
        # trusted again: the same file's runtime-path is the low-level runtime
        chmod 0644 "$d/etc/config.json"
        run "$RT_SHIM" --amd-config="$d/etc/config.json" create --bundle "$d/b" pass1
        [ "$status" -eq 0 ]
        [ -e "$d/ran" ]
}

@test "a FIFO at log-file or at the engine's --log: never waited on; one line on stderr, and the create goes on" {
        local d=$T/l
        mkdir -p "$d"
        mkfifo "$d/runtime.log" "$d/log.json"
        printf '#!/bin/sh\nexit 0\n' >"$d/low-level"
        chmod 755 "$d/low-level"
        jq -n --arg r "$(ctk_host seed-4xmi210)" --arg log "$d/runtime.log" --arg rt "$d/low-level" \
                --arg s "$STATE" '{"root": $r, "log-file": $log, "runtime-path": $rt, "state-dir": $s}' >"$d/toolkit.json"
        rt_bundle "$d/b" true
        rt_spec_env "$d/b" AMD_VISIBLE_DEVICES=1
        # our log: a container given GPUs (a line logged) starts as without it
        within 20 "$RT_SHIM" --amd-config="$d/toolkit.json" create --bundle "$d/b" log1
        [ "$status" -eq 0 ]
        [ "$output" = "amd-container-runtime: warning: $d/runtime.log is a FIFO, not a regular file: not written (config key log-file); going on without the log" ]
        [ "$(jq -c '[.linux.devices[].path]' "$d/b/config.json")" = '["/dev/dri/card3","/dev/dri/renderD131","/dev/kfd"]' ]
        # the engine's --log, where an error goes: the error still said, on stderr
        rt_bundle "$d/c" true
        rt_spec_env "$d/c" AMD_VISIBLE_DEVICES=9
        jq '."log-file" = "/dev/null"' "$d/toolkit.json" >"$d/quiet.json"
        within 20 "$RT_SHIM" --amd-config="$d/quiet.json" --log "$d/log.json" --log-format json create --bundle "$d/c" log2
        [ "$status" -eq 1 ]
        [ "${lines[0]}" = "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)" ]
        [ "${lines[1]}" = "amd-container-runtime: warning: $d/log.json is a FIFO, not a regular file: not written (the low-level runtime's --log)" ]
        [ "${#lines[@]}" -eq 2 ]
}
