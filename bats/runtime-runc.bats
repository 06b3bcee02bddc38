#!/usr/bin/env bats
# amd-container-runtime alone with runc and a busybox bundle (no engine):
# the GPUs a spec asks for appear in the container with the simulated host's
# device numbers; everything else is exactly plain runc.

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/runtime_bundle

# The seed host (sim/profiles/seed-4xmi210.json): GPU i's nodes, in index
# order (PCI order, not card order), as `ls -ln` shows them.
SEED=seed-4xmi210
SEED_GPU3_UUID=0x12FE4F7FDAF06B9 # the GPU tracker document's GPU 3
seed_gpu_nodes() {
        case $1 in
        0) printf '%s\n' "c 226:2 card2" "c 226:130 renderD130" ;;
        1) printf '%s\n' "c 226:3 card3" "c 226:131 renderD131" ;;
        2) printf '%s\n' "c 226:1 card1" "c 226:129 renderD129" ;;
        3) printf '%s\n' "c 226:0 card0" "c 226:128 renderD128" ;;
        esac
}
seed_kfd_node() { echo "c 235:0 kfd"; }
SEED_GIDS='[44,109]' # card nodes root:44 0660, render nodes and kfd root:109 0660

setup() {
        command -v runc >/dev/null || fail "runc is not installed"
        [ -x "$RT_SHIM" ] || fail "$RT_SHIM is missing (run make)"
        [ -f "$RT_PROFILES/$SEED.json" ] || fail "profile $SEED is missing"
        T=$(mktemp -d /tmp/ctk-rt.XXXXXX)
        B=$T/bundle
        STATE=$T/state
        ID=ctk-rt-$BATS_TEST_NUMBER-$$
        CFG=$T/config.json
        export RT_STATE_DIR=$T/amd-state
        HOST=$(ctk_host "$SEED")
        rt_config "$CFG" root "$HOST" log-file "$T/runtime.log" log-level debug
        export AMD_CTK_CONFIG=$CFG
}

teardown() {
        local id
        for id in $(runc --root "$STATE" list -q 2>/dev/null); do
                runc --root "$STATE" delete -f "$id" >/dev/null 2>&1 || true
        done
        rm -rf "$T"
}

fail() {
        echo "$*" >&2
        return 1
}

# shim ARGS...: the shim with runc's global options as docker passes them.
shim() {
        "$RT_SHIM" --root "$STATE" --log "$T/log.json" --log-format json "$@"
}

# shim_create ARGS...: `shim create` with stdio on files: a created container
# keeps the stdio it was given open until it runs, so bats' `run` pipe must
# not be it.  Output in $T/create.out and $T/create.err.
shim_create() {
        stdio_to_files shim create "$@"
}
stdio_to_files() {
        "$@" </dev/null >"$T/create.out" 2>"$T/create.err"
}

# ls_nodes: `ls -ln` output (stdin) of device nodes as "c MAJOR:MINOR NAME",
# sorted (busybox prints "major, minor").
ls_nodes() {
        awk '/^[cb]/ { sub(/,$/, "", $5); name = $NF; sub(/.*\//, "", name)
                       print substr($1, 1, 1) " " $5 ":" $6 " " name }' | sort
}

# spec_nodes: the same lines from linux.devices of the bundle's spec.
spec_nodes() {
        jq -r '.linux.devices[] | "\(.type) \(.major):\(.minor) \(.path | split("/") | last)"' "$B/config.json" |
                sort
}

# want_nodes INDEX...: the lines the seed host's GPUs (and /dev/kfd) must give.
want_nodes() {
        local i
        {
                for i in "$@"; do
                        seed_gpu_nodes "$i"
                done
                seed_kfd_node
        } | sort -u
}

# spec_unchanged: config.json is byte-identical to the copy in $T/before.json.
spec_unchanged() {
        cmp "$T/before.json" "$B/config.json"
}

@test "run: AMD_VISIBLE_DEVICES=0 gives GPU 0's card and render nodes and /dev/kfd" {
        rt_bundle "$B" ls -ln /dev/dri /dev/kfd
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        run shim run --bundle "$B" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(want_nodes 0)" ]
        [ "$(spec_nodes)" = "$(want_nodes 0)" ]
}

@test "run: an index and a UUID (spaces trimmed) give exactly those two GPUs" {
        rt_bundle "$B" ls -ln /dev/dri /dev/kfd
        rt_spec_env "$B" "AMD_VISIBLE_DEVICES=1, $SEED_GPU3_UUID"
        run shim run -b "$B" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(want_nodes 1 3)" ]
}

@test "run: all GPUs, detached, then delete through the shim" {
        rt_bundle "$B" ls -ln /dev/dri /dev/kfd
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=all
        run stdio_to_files shim run -d -b "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(spec_nodes)" = "$(want_nodes 0 1 2 3)" ]
        run shim delete -f "$ID"
        [ "$status" -eq 0 ]
        run runc --root "$STATE" state "$ID"
        [ "$status" -ne 0 ]
}

@test "create (docker's arguments): cgroup rules and additionalGids in the written spec" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=2
        run shim_create --bundle "$B" --pid-file "$T/init.pid" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [ -s "$T/init.pid" ]
        # One allow rule (c, major, minor, rwm) per node, after the deny-all rule.
        rules=$(jq -r '.linux.resources.devices[] | select(.allow) | "\(.type) \(.major):\(.minor) \(.access)"' \
                "$B/config.json" | sort)
        want=$(want_nodes 2 | awk '{ print $1 " " $2 " rwm" }' | sort)
        [ "$rules" = "$want" ]
        # The groups of the nodes (not world read-write), once each.
        [ "$(jq -c '.process.user.additionalGids' "$B/config.json")" = "$SEED_GIDS" ]
        # Owner, group and mode as on the host.
        [ "$(jq -c '[.linux.devices[] | [.path, .fileMode, .uid, .gid]]' "$B/config.json")" = \
                '[["/dev/dri/card1",432,0,44],["/dev/dri/renderD129",432,0,109],["/dev/kfd",432,0,109]]' ]
        # Compact, one line plus newline, like runc spec readers expect.
        [ "$(wc -l <"$B/config.json")" -eq 1 ]
}

@test "create: unknown and future fields are kept, key order too" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        rt_spec_edit "$B" '.["x-vendor"] = {"keep": [1, "two", null]} | .linux.netDevices = {"eth9": {"name": "e"}}
                | .process.user.additionalGids = [27]'
        cp "$B/config.json" "$T/before.json"
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 0 ]
        strip='del(.linux.devices, .linux.resources.devices, .process.user.additionalGids)'
        [ "$(jq -c "$strip" "$T/before.json")" = "$(jq -c "$strip" "$B/config.json")" ]
        [ "$(jq -c '[paths] | map(select(length == 1))' "$T/before.json")" = \
                "$(jq -c '[paths] | map(select(length == 1))' "$B/config.json")" ]
        [ "$(jq -c '.process.user.additionalGids[0]' "$B/config.json")" = 27 ]
}

@test "run: what runc takes and jansson does not (\\u0000, uint64, 1e400) gets GPUs and comes back byte for byte" {
        rt_bundle "$B" sh -c 'ulimit -Hc; ls -ln /dev/dri /dev/kfd'
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        rt_spec_edit "$B" '.annotations = {"k": "PH1", "PH2": "v"}
                | .process.rlimits = [{"type": "RLIMIT_CORE", "hard": 1234567, "soft": 0}]
                | .linux.resources.memory = {"swappiness": 7654321} | .linux.resources.cpu = {"quota": -1, "period": 100000}
                | .["x-future"] = {"n": 7777777, "r": 8888888, "z": 9999999, "neg": 6666666}'
        # (written by sed: jq would change them)
        sed -i 's/"PH1"/"a\\u0000b"/; s/"PH2"/"n\\u0000ul"/; s/1234567/18446744073709551615/;
                s/7654321/18446744073709551615/; s/7777777/-9223372036854775809/; s/8888888/1e400/; s/9999999/0.1/;
                s/6666666/-0/' "$B/config.json"
        jq -c . "$B/config.json" >/dev/null # (JSON all the same)
        cp "$B/config.json" "$T/before.json"
        run shim run --bundle "$B" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = unlimited ] # RLIM_INFINITY, 18446744073709551615, as runc read it
        [ "$(ls_nodes <<<"$output")" = "$(want_nodes 0)" ]
        local lit
        for lit in '"k":"a\u0000b"' '"n\u0000ul":"v"' '"hard":18446744073709551615' '"swappiness":18446744073709551615' \
                '"quota":-1' '"n":-9223372036854775809' '"r":1e400' '"z":0.1' '"neg":-0'; do
                grep -qF "$lit" "$B/config.json" || {
                        echo "not kept: $lit"
                        return 1
                }
        done
        # the rest as it was, but for the members the runtime edits
        strip='del(.linux.devices, .linux.resources.devices, .process.user.additionalGids)'
        [ "$(jq -c "$strip" "$T/before.json")" = "$(jq -c "$strip" "$B/config.json")" ]
}

@test "create twice on the same spec adds nothing twice" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0,0,0-1
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 0 ]
        shim delete "$ID"
        cp "$B/config.json" "$T/before.json"
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 0 ]
        spec_unchanged
        [ "$(jq '.linux.devices | length' "$B/config.json")" -eq "$(want_nodes 0 1 | wc -l)" ]
}

@test "pass-through: no variable, empty, void, none leave config.json byte-identical" {
        rt_bundle "$B" ls /dev
        for env in "" "AMD_VISIBLE_DEVICES=" "AMD_VISIBLE_DEVICES=void" "AMD_VISIBLE_DEVICES=none" \
                "DOCKER_RESOURCE_NIC=1"; do
                [ -z "$env" ] || rt_spec_env "$B" "$env"
                cp "$B/config.json" "$T/before.json"
                ino=$(stat -c %i "$B/config.json")
                run shim run -b "$B" "$ID"
                echo "$env: $output"
                [ "$status" -eq 0 ]
                spec_unchanged
                [ "$(stat -c %i "$B/config.json")" = "$ino" ]
                [[ "$output" != *kfd* ]]
                [[ "$output" != *dri* ]]
                rt_spec_edit "$B" '.process.env |= map(select(startswith("AMD_") or startswith("DOCKER_") | not))'
        done
}

@test "bad selection: the documented line on stderr and in runc's JSON log, exit 1, spec unchanged" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=9
        cp "$B/config.json" "$T/before.json"
        run --separate-stderr shim create --bundle "$B" --pid-file "$T/init.pid" "$ID"
        [ "$status" -eq 1 ]
        [ -z "$output" ] # nothing on stdout
        [ "$stderr" = "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 9 does not exist (this host has GPUs 0-3)" ]
        spec_unchanged
        last=$(tail -n1 "$T/log.json")
        [ "$(jq -r .level <<<"$last")" = error ]
        [ "$(jq -r .msg <<<"$last")" = "$stderr" ]
        # containerd decodes "time" as an RFC 3339 time.
        [[ "$(jq -r .time <<<"$last")" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})$ ]]
        run runc --root "$STATE" state "$ID"
        [ "$status" -ne 0 ]
        grep -q 'level=ERROR.*GPU 9 does not exist' "$T/runtime.log"
}

@test "bad selection with --log-format text: a logrus text line" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0-7
        run "$RT_SHIM" --root "$STATE" --log "$T/log.txt" create -b "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$output" == *"AMD_VISIBLE_DEVICES: "* ]]
        grep -q '^time="[^"]*" level=error msg="amd-container-runtime: AMD_VISIBLE_DEVICES: ' "$T/log.txt"
}

@test "a 1 MiB AMD_VISIBLE_DEVICES: one short line on stderr, in runc's JSON log and in the runtime's log" {
        rt_bundle "$B" true
        head -c 1048576 /dev/zero | tr '\0' 7 >"$T/value"
        rt_spec_edit "$B" '.process.env += ["AMD_VISIBLE_DEVICES=" + $v]' --rawfile v "$T/value"
        run --separate-stderr shim create --bundle "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: AMD_VISIBLE_DEVICES: '$(head -c 200 "$T/value")... (1048576 bytes)' is not a valid GPU UUID (expected 0x and up to 16 hex digits)" ]
        [ "$(jq -r .msg <"$T/log.json")" = "$stderr" ]
        [ "$(wc -c <"$T/log.json")" -lt 512 ]
        [ "$(grep -c "'7777.*(1048576 bytes)' is not a valid GPU UUID" "$T/runtime.log")" -eq 1 ]
        [ "$(wc -c <"$T/runtime.log")" -lt 1024 ]
}

@test "DOCKER_RESOURCE_GPU with a UUID; other swarm resources are not GPUs" {
        rt_bundle "$B" ls -ln /dev/dri /dev/kfd
        rt_spec_env "$B" "DOCKER_RESOURCE_GPU=$SEED_GPU3_UUID" DOCKER_RESOURCE_NIC=0
        run shim run -b "$B" "$ID"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(want_nodes 3)" ]
}

@test "invalid spec JSON with a GPU request: file:line:column, exit 1, file unchanged" {
        rt_bundle "$B" true
        printf '{"process":{"env":["AMD_VISIBLE_DEVICES=0"]},\n"linux": }\n' >"$B/config.json"
        cp "$B/config.json" "$T/before.json"
        run shim_create -b "$B" "$ID"
        cat "$T/create.err"
        [ "$status" -eq 1 ]
        [[ "$(cat "$T/create.err")" == "amd-container-runtime: invalid container spec: $B/config.json:2:"* ]]
        spec_unchanged
}

@test "missing config.json: a clear error naming the file" {
        mkdir -p "$B"
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 1 ]
        grep -q "$B/config.json: No such file or directory" "$T/create.err"
}

@test "default bundle is the current directory" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=1
        cd "$B"
        run shim_create "$ID"
        [ "$status" -eq 0 ]
        [ "$(spec_nodes)" = "$(want_nodes 1)" ]
}

@test "--amd-config=FILE as the leading argument, the same as AMD_CTK_CONFIG" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        unset AMD_CTK_CONFIG
        run stdio_to_files "$RT_SHIM" --amd-config="$CFG" --root "$STATE" create -b "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(spec_nodes)" = "$(want_nodes 0)" ]
        run "$RT_SHIM" --amd-config "$T/absent.json" --root "$STATE" list
        [ "$status" -eq 1 ]
        [[ "$output" == *absent.json* ]]
        run "$RT_SHIM" --amd-confg="$CFG" list
        [ "$status" -eq 2 ]
        [ "$output" = "amd-container-runtime: unknown option '--amd-confg' (see 'amd-container-runtime --help')" ]
}

@test "the low-level runtime gets the arguments untouched, argv[0] its own name" {
        cat >"$T/fake-runc" <<EOS
#!/bin/sh
printf '%s\n' "\$0" "\$@" >"$T/argv"
EOS
        chmod +x "$T/fake-runc"
        rt_config "$CFG" root "$HOST" runtime-path "$T/fake-runc" log-file /dev/null
        run "$RT_SHIM" --amd-config="$CFG" --root /r --log /l --log-format json --systemd-cgroup create \
                --bundle /b --pid-file /p ID
        [ "$status" -eq 1 ] # /b/config.json does not exist
        run "$RT_SHIM" --amd-config="$CFG" --root /r --log-format json kill "ID" 9
        [ "$status" -eq 0 ]
        [ "$(cat "$T/argv")" = "$(printf '%s\n' "$T/fake-runc" --root /r --log-format json kill ID 9)" ]
}

@test "runtime-path names the runtime; the shim never execs itself" {
        ln -s "$RT_SHIM" "$T/runc"
        rt_config "$CFG" runtime-path "$T/runc" log-file /dev/null
        run "$RT_SHIM" list
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: runtime-path $T/runc is amd-container-runtime itself; set it to runc or crun" ]
        # Found first on PATH under the name runc: skipped for the real runc.
        rt_config "$CFG" log-file /dev/null
        PATH="$T:$PATH" run "$RT_SHIM" --root "$STATE" list
        [ "$status" -eq 0 ]
        [[ "$output" == ID* ]]
}

@test "no runc nor crun on PATH or in the standard directories: one line saying where it looked" {
        rt_config "$CFG" log-file /dev/null
        # (the standard directories emptied in a mount namespace of the test's own)
        run unshare -m --propagation private sh -c 'for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin; do
                mount -t tmpfs -o size=64k none "$d" || exit 9; done; PATH=/nonexistent exec "$0" list' "$RT_SHIM"
        [ "$status" -eq 1 ]
        [ "$output" = "amd-container-runtime: no low-level runtime found: neither runc nor crun is on PATH nor in /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; set runtime-path in the configuration file" ]
        # on PATH, or only in a standard directory: found
        PATH=/nonexistent run "$RT_SHIM" --root "$STATE" list
        [ "$status" -eq 0 ]
}

@test "--version: our line first, then runc's (docker info keeps runc's version and commit)" {
        run --separate-stderr "$RT_SHIM" --version
        [ "$status" -eq 0 ]
        [[ "${lines[0]}" == "amd-container-runtime version "* ]]
        [ "$(printf '%s\n' "${lines[@]:1}")" = "$(runc --version)" ]
        run "$RT_SHIM" --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"runc - Open Container Initiative runtime"* ]]
}

@test "pass-through commands: state, list, ps behave like runc" {
        rt_bundle "$B" sleep 30
        run stdio_to_files shim run -d -b "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$("$RT_SHIM" --root "$STATE" list -q)" = "$ID" ]
        [ "$("$RT_SHIM" --root "$STATE" state "$ID" | jq -r .status)" = running ]
        run shim kill "$ID" KILL
        [ "$status" -eq 0 ]
}

@test "the runtime log: GPU injection at info; an unwritable log never fails a container" {
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=0
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 0 ]
        grep -q "level=INFO .*container $ID: GPUs 0: added" "$T/runtime.log"
        ! grep -q 'PATH=' "$T/runtime.log" || false # no environment dump
        [ "$(stat -c %a "$T/runtime.log")" = 640 ]
        shim delete "$ID"
        rt_config "$CFG" root "$HOST" log-file "$T/no/such/dir/log"
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=1
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 0 ]
}

@test "no amdgpu driver: a request fails with the reason; none and no request still run" {
        rt_config "$CFG" root "$(ctk_host no-amdgpu)" log-file /dev/null
        rt_bundle "$B" true
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=all
        cp "$B/config.json" "$T/before.json"
        run --separate-stderr shim create -b "$B" "$ID"
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: cannot provide the requested GPUs: amdgpu driver is not loaded"* ]]
        spec_unchanged
        rt_spec_edit "$B" '.process.env |= map(if startswith("AMD_VISIBLE_DEVICES=") then "AMD_VISIBLE_DEVICES=none" else . end)'
        run shim run -b "$B" "$ID"
        [ "$status" -eq 0 ]
}

@test "no simulator in the runtime: no fakefs symbol; a profile (config, AMD_CTK_PROFILE) is one line naming amd-ctk-fakefs" {
        # amd-ctk carries the simulator (--profile), the runtime none of it
        [ "$(nm "$RT_BIN/amd-ctk" | grep -ci fakefs)" -gt 0 ]
        run nm "$RT_SHIM"
        [ "$status" -eq 0 ]
        grep -q ' T ctk_sysfs_backend_new$' <<<"$output" # (its symbols are there)
        ! grep -qi fakefs <<<"$output"
        # nor any global symbol of the simulator's library (libctk-sim.a)
        local sim_syms
        sim_syms=$(nm --defined-only -g "$RT_BIN/../libctk-sim.a" | awk 'NF == 3 { print $3 }' | sort -u)
        grep -qx ctk_fakefs_backend_new <<<"$sim_syms"
        [ -z "$(comm -12 <(printf '%s\n' "$sim_syms") <(awk 'NF == 3 { print $3 }' <<<"$output" | sort -u))" ]
        rt_bundle "$B" true
        local p=$RT_PROFILES/$SEED.json
        rt_config "$CFG" profile "$p" log-file /dev/null
        run --separate-stderr shim create -b "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: $CFG: \"profile\" is $p: amd-container-runtime carries no simulator: serve the host with 'amd-ctk-fakefs mount $p DIR' or write it with 'amd-ctk-fakefs materialize $p DIR', then set \"root\" to DIR in $CFG" ]
        [[ "$(jq -r .msg "$T/log.json")" == "amd-container-runtime: $CFG: \"profile\" is $p: "* ]]
        rt_config "$CFG" log-file /dev/null
        AMD_CTK_PROFILE=$p run --separate-stderr shim create -b "$B" "$ID"
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: AMD_CTK_PROFILE=$p: amd-container-runtime carries no simulator: serve the host with 'amd-ctk-fakefs mount $p DIR' or write it with 'amd-ctk-fakefs materialize $p DIR', then set \"root\" to DIR in $CFG" ]
        [ -z "$(runc --root "$STATE" list -q)" ]
        # the materialized host instead: the GPUs of the profile
        rt_config "$CFG" root "$HOST" log-file /dev/null
        run shim_create -b "$B" "$ID"
        [ "$status" -eq 0 ]
        shim delete "$ID"
}

@test "partitions: all 63 CPX partitions of mi300x-cpx-x8 in one container" {
        rt_config "$CFG" root "$(ctk_host mi300x-cpx-x8)" log-file /dev/null
        rt_bundle "$B" ls -ln /dev/dri /dev/kfd
        rt_spec_env "$B" AMD_VISIBLE_DEVICES=all
        run shim run -b "$B" "$ID"
        [ "$status" -eq 0 ]
        [ "$(ls_nodes <<<"$output")" = "$(spec_nodes)" ]
        [ "$(grep -c ' renderD' <<<"$(spec_nodes)")" -eq 63 ]
        [ "$(grep -c ' kfd$' <<<"$(spec_nodes)")" -eq 1 ]
        [ "$(jq '.linux.resources.devices | map(select(.allow)) | length' "$B/config.json")" -eq \
                "$(jq '.linux.devices | length' "$B/config.json")" ]
}
