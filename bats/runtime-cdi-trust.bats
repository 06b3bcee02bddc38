#!/usr/bin/env bats
# CDI specs the runtime (root) takes hooks, mounts and devices from: only
# files that root alone can change, all the way from "/".  A spec directory
# another user may change (writable by every user or its group, owned by
# someone else, a link of someone else's, or below such a directory) is
# skipped whole with one warning line naming the first offending component
# and why; in a trusted directory, a spec its group may write or a link to
# a spec in such a directory is skipped with one line.  The warnings go to
# the runtime's log and stderr of cdi list and cdi validate; a create naming
# a device only such a spec has fails with one line naming it and why; a
# createRuntime hook of such a spec never runs (one of a trusted spec does:
# the control).  Driven directly with runc (busybox bundles).

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle
load helpers/fakefs
load helpers/runtime_cdi

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-180}

# (its own bundle: what these tests look at)
setup_file() {
        ctk_require_built "$RT_SHIM" "$RT_BIN/amd-ctk" || return 1
        command -v runc >/dev/null || {
                echo "runc is required" >&2
                return 1
        }
        export TEMPLATE="$BATS_FILE_TMPDIR/template"
        rt_bundle "$TEMPLATE" sh -c 'echo "FROM=$FROM"; ls -ln /dev/dri 2>&1; true'
}

setup() {
        rt_cdi_setup
        OPEN=$T/open # every user's, 0777 (a later directory: its specs would win)
        mkdir -p "$OPEN"
        chmod 0755 "$CDI" # root's: trusted
        chmod 0777 "$OPEN"
        # (other vendors' kinds: the specs of these tests)
        config root "$SEED_HOST" "$(jq -n --arg cdi "$CDI" --arg open "$OPEN" \
                '{"cdi-spec-dirs": [$cdi, $open], "cdi-kinds": ["*"]}')"
}
teardown() { rt_cdi_teardown; }

# hook_spec FILE KIND DEVICE MARK: a spec of KIND whose device DEVICE sets
# FROM=MARK and has a createRuntime hook (run by runc as root, on the host)
# that creates $T/ran-MARK.
hook_spec() {
        jq -n --arg kind "$2" --arg dev "$3" --arg mark "$4" --arg file "$T/ran-$4" \
                '{cdiVersion: "0.6.0", kind: $kind, devices: [{name: $dev, containerEdits: {
                    env: ["FROM=\($mark)"],
                    hooks: [{hookName: "createRuntime", path: "/bin/sh", args: ["sh", "-c", "touch \($file)"]}]}}]}' \
                >"$1"
}

# request VALUE: a fresh bundle asking AMD_VISIBLE_DEVICES=VALUE
request() {
        rm -rf "$B"
        cp -a "$TEMPLATE" "$B"
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=$1"
}

OPEN_SKIPPED="is not trusted: it is writable by every user (mode 0777) (directory skipped)"

@test "a trusted spec's createRuntime hook runs (the control)" {
        hook_spec "$CDI/ok.json" example.com/ok d ok
        request example.com/ok=d
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "FROM=ok" ]
        [ -e "$T/ran-ok" ]
        # (the one line: the open directory's)
        [ "$(grep -c 'not trusted' "$T/runtime.log")" -eq 1 ]
        grep -q "level=WARNING.*$OPEN $OPEN_SKIPPED" "$T/runtime.log"
}

@test "a spec in a directory every user may write to: the directory skipped with one warning, its hook never runs, the trusted spec serves" {
        # the attack: the same kind and device as our spec, in a later (winning) directory
        hook_spec "$OPEN/evil.json" amd.com/gpu 1 evil
        request amd.com/gpu=1
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "FROM=" ] # not the evil spec's env
        [[ "$output" == *"226, 131"*"renderD131"* ]] # our spec's GPU 1
        [ ! -e "$T/ran-evil" ]
        [ "$(grep -c "level=WARNING.*$OPEN $OPEN_SKIPPED" "$T/runtime.log")" -eq 1 ]
        # a device only it has: the create fails naming the directory and why; nothing runs
        hook_spec "$OPEN/only.json" example.com/only x only
        request example.com/only=x
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "${#lines[@]}" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/only=x: no CDI spec in $CDI, $OPEN has kind example.com/only; skipped: $OPEN $OPEN_SKIPPED" ]
        [ ! -e "$T/ran-only" ]
        # the same directory made root's alone: used
        chmod 0755 "$OPEN"
        run shim run --bundle "$B" "$ID-ok"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "FROM=only" ]
        [ -e "$T/ran-only" ]
}

@test "a spec its group may write, a link to a spec in an open directory: the create fails naming the file and why; no hook runs" {
        hook_spec "$CDI/gw.json" example.com/gw x gw
        chmod 0664 "$CDI/gw.json"
        request example.com/gw=x
        chmod 0755 "$OPEN"
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/gw=x: no CDI spec in $CDI, $OPEN has kind example.com/gw; skipped: $CDI/gw.json is not trusted: it is writable by its group (mode 0664) (spec skipped)" ]
        [ ! -e "$T/ran-gw" ]
        chmod 0777 "$OPEN"
        rm "$CDI/gw.json"
        # a link in the trusted directory to a root-owned, 0644 spec in the open one
        hook_spec "$OPEN/target.json" example.com/ln y ln
        chmod 0644 "$OPEN/target.json"
        ln -s "$OPEN/target.json" "$CDI/link.json"
        request example.com/ln=y
        run shim run --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/ln=y: no CDI spec in $CDI, $OPEN has kind example.com/ln; skipped: $CDI/link.json is not trusted: its target's directory $OPEN is writable by every user (mode 0777) (spec skipped); $OPEN $OPEN_SKIPPED" ]
        [ ! -e "$T/ran-ln" ]
        grep -q "level=WARNING.*$CDI/link.json is not trusted" "$T/runtime.log"
}

@test "cdi list and cdi validate: a spec that is not trusted is a warning on stderr and is not listed" {
        hook_spec "$OPEN/evil.json" example.com/evil e evil
        hook_spec "$CDI/gw.json" example.com/gw x gw
        chmod 0664 "$CDI/gw.json"
        run --separate-stderr "$RT_BIN/amd-ctk" cdi list --spec-dir "$CDI" --spec-dir "$OPEN"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 5 CDI devices in $CDI, $OPEN" ]
        [[ "$output" != *example.com* ]]
        [ "$stderr" = "$(printf '%s\n' \
                "amd-ctk: warning: $CDI/gw.json is not trusted: it is writable by its group (mode 0664) (spec skipped)" \
                "amd-ctk: warning: $OPEN $OPEN_SKIPPED")" ]
        # with --all-vendors, in the listing
        run "$RT_BIN/amd-ctk" cdi list --all-vendors --spec-dir "$CDI" --spec-dir "$OPEN"
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "skipped: $OPEN is not trusted: it is writable by every user (mode 0777) (directory skipped)" ]
        # without either, cdi list lists this host's GPUs, read from no spec: no warning
        run --separate-stderr "$RT_BIN/amd-ctk" --profile "$RT_PROFILES/$SEED.json" cdi list
        [ "$status" -eq 0 ]
        [ -z "$stderr" ]
        run --separate-stderr "$RT_BIN/amd-ctk" cdi validate --no-host-check --path "$OPEN/evil.json"
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk: warning: $OPEN/evil.json is not trusted: its directory $OPEN is writable by every user (mode 0777): the runtime skips it" ]
        [ "${lines[-1]}" = "CDI spec is valid, but not trusted: the runtime does not use it" ]
        run "$RT_BIN/amd-ctk" cdi validate --no-host-check --path "$CDI/amd.json"
        [ "$status" -eq 0 ]
        # a mount reaching out with "..": the spec is invalid, skipped
        jq -n --arg d "$T" '{cdiVersion: "0.5.0", kind: "example.com/m", devices: [{name: "m", containerEdits: {
                mounts: [{hostPath: "/etc/../etc/shadow", containerPath: "/x/../../y"}]}}]}' >"$CDI/m.json"
        run "$RT_BIN/amd-ctk" cdi validate --no-host-check --path "$CDI/m.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *'mounts[0].hostPath: "/etc/../etc/shadow" must not have a ".." component'* ]]
        [[ "$output" == *'mounts[0].containerPath: "/x/../../y" must not have a ".." component'* ]]
}

# A spec directory the configuration names through a symbolic link, or below
# a directory, that another user controls: that user could point it at any
# root-owned directory holding root-owned files of their choosing (a
# container's overlay upper directory, for one), whose createRuntime hooks
# would run as root on the host.
@test "a spec directory through someone else's link, or below someone else's directory: skipped whole, naming it; its hooks never run" {
        # the root-owned files someone chose: a container's upper directory
        upper=$T/overlay/upper/etc/cdi
        mkdir -p "$upper"
        hook_spec "$upper/evil.json" amd.com/gpu 1 evil
        hook_spec "$upper/only.json" example.com/only x only
        # (a) the configured entry is a link of uid 65534's
        ln -s "$upper" "$T/user-link"
        chown -h 65534:65534 "$T/user-link"
        # (b) the configured entry sits in a directory of uid 65534's
        mkdir -p "$T/user-dir/cdi"
        cp "$upper"/*.json "$T/user-dir/cdi/"
        chown 65534:65534 "$T/user-dir"
        for entry in "$T/user-link" "$T/user-dir/cdi"; do
                config root "$SEED_HOST" "$(jq -n --arg cdi "$CDI" --arg e "$entry" \
                        '{"cdi-spec-dirs": [$cdi, $e], "cdi-kinds": ["*"]}')"
                case $entry in
                */user-link) why="$entry is not trusted: the symbolic link is owned by uid 65534, not root (directory skipped)" ;;
                *) why="$entry is not trusted: its directory $T/user-dir is owned by uid 65534, not root (directory skipped)" ;;
                esac
                : >"$T/runtime.log"
                request amd.com/gpu=1
                run shim run --bundle "$B" "$ID"
                [ "$status" -eq 0 ]
                [ "${lines[0]}" = "FROM=" ]
                [[ "$output" == *"226, 131"*"renderD131"* ]] # our spec's GPU 1
                [ "$(grep -c 'not trusted' "$T/runtime.log")" -eq 1 ]
                grep -qF "$why" "$T/runtime.log"
                request example.com/only=x
                run shim run --bundle "$B" "$ID"
                [ "$status" -eq 1 ]
                [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/only=x: no CDI spec in $CDI, $entry has kind example.com/only; skipped: $why" ]
                [ ! -e "$T/ran-evil" ]
                [ ! -e "$T/ran-only" ]
        done
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/only=x: no CDI spec in $CDI, $T/user-dir/cdi has kind example.com/only; skipped: $T/user-dir/cdi is not trusted: its directory $T/user-dir is owned by uid 65534, not root (directory skipped)" ]
        config root "$SEED_HOST" "$(jq -n --arg cdi "$CDI" --arg e "$T/user-link" \
                '{"cdi-spec-dirs": [$cdi, $e], "cdi-kinds": ["*"]}')"
        run shim run --bundle "$B" "$ID"
        [ "$output" = "amd-container-runtime: AMD_VISIBLE_DEVICES: example.com/only=x: no CDI spec in $CDI, $T/user-link has kind example.com/only; skipped: $T/user-link is not trusted: the symbolic link is owned by uid 65534, not root (directory skipped)" ]
        # root's link to root's directory, and a root-owned directory in a sticky one (like /tmp): used
        chown -h 0:0 "$T/user-link"
        mkdir -m 1777 "$T/sticky"
        mkdir "$T/sticky/cdi"
        cp "$upper/only.json" "$T/sticky/cdi/"
        for entry in "$T/user-link" "$T/sticky/cdi"; do
                config root "$SEED_HOST" "$(jq -n --arg cdi "$CDI" --arg e "$entry" \
                        '{"cdi-spec-dirs": [$cdi, $e], "cdi-kinds": ["*"]}')"
                rm -f "$T/ran-only"
                request example.com/only=x
                run shim run --bundle "$B" "$ID"
                [ "$status" -eq 0 ]
                [ "${lines[0]}" = "FROM=only" ]
                [ -e "$T/ran-only" ]
        done
}
