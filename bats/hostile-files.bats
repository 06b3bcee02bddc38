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
        printf '{"state-dir": "%s", "profile": "%s"}\n' "$STATE" "$RT_PROFILES/seed-4xmi210.json" >"$CFG"
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

@test "a state directory every user may write to is refused with one line; nothing is written" {
        mkdir -p "$STATE"
        chmod 0777 "$STATE"
        run tracker enable
        [ "$status" -ne 0 ]
        [ "$output" = "amd-ctk: GPU Tracker state directory $STATE is writable by every user: refused (chmod o-w $STATE, or set state-dir to a directory only root can write)" ]
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
