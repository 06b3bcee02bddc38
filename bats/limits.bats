#!/usr/bin/env bats
# Input limits: every input a stranger can make huge or deep gets bounded
# time and memory and one clear error, never a crash (docs/reliability.md, "Limits").

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/fakefs
load helpers/runtime_bundle

setup_file() {
        ctk_require_built "$CTK_BIN/amd-ctk" "$RT_SHIM" || return 1
        export TEMPLATE=$BATS_FILE_TMPDIR/template
        rt_bundle "$TEMPLATE" true
}

setup() {
        T=$BATS_TEST_TMPDIR
        CFG=$T/config.json
        printf '{"root": "%s", "runtime-path": "/bin/true", "log-file": "%s"}\n' \
                "$(ctk_host seed-4xmi210)" "$T/runtime.log" >"$CFG"
}

teardown() { fakefs_teardown; }

# bounded CMD...: runs CMD with at most 30 s and 1 GiB of address space;
# $status, $output and $MAXRSS (KiB) as it ends.
bounded() {
        run --separate-stderr /usr/bin/time -f '%M' -o "$T/rss" timeout 30 \
                sh -c 'ulimit -v 1048576 && exec "$@"' bounded "$@"
        MAXRSS=$(tail -n 1 "$T/rss")
        [ "$status" -lt 124 ] || {
                echo "timed out or killed (status $status)" >&2
                return 1
        }
}

# spec_with JQ-FILTER [JQ-ARGS...]: a bundle whose config.json is the template's, changed by JQ-FILTER
spec_with() {
        rm -rf "$T/b"
        cp -a "$TEMPLATE" "$T/b"
        jq -c "$@" "$TEMPLATE/config.json" >"$T/b/config.json"
}

@test "a 50 MB config.json with a GPU request: edited in bounded time and memory" {
        cp -a "$TEMPLATE" "$T/b"
        python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
s["process"]["env"].append("AMD_VISIBLE_DEVICES=0")
s["annotations"] = {"k%d" % i: "v" * 1000 for i in range(50000)}
json.dump(s, open(sys.argv[2], "w"))' "$TEMPLATE/config.json" "$T/b/config.json"
        [ "$(stat -c %s "$T/b/config.json")" -gt 50000000 ]
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" big
        [ "$status" -eq 0 ]
        [ "$MAXRSS" -lt 524288 ]
        jq -e '.linux.devices | length == 3' "$T/b/config.json" >/dev/null
}

@test "JSON nested 10,000 deep: the spec, the toolkit config, a CDI spec and daemon.json each give one error" {
        deep=$(python3 -c 'print("[" * 10000 + "]" * 10000)')
        spec_with ".process.env += [\"AMD_VISIBLE_DEVICES=0\"]"
        printf '%s' "$(jq -c . "$T/b/config.json" | sed 's/}$//'),\"x\":$deep}" >"$T/b/config.json"
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" deep
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: invalid container spec: $T/b/config.json:1:"*"maximum parsing depth reached"* ]]
        printf '{"log-level": %s}' "$deep" >"$T/deep-config.json"
        bounded "$RT_SHIM" --amd-config="$T/deep-config.json" state x
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: $T/deep-config.json:1:"*"maximum parsing depth reached"* ]]
        printf '{"cdiVersion": "0.5.0", "kind": "amd.com/gpu", "devices": %s}' "$deep" >"$T/deep-cdi.json"
        bounded "$CTK_BIN/amd-ctk" cdi validate --path "$T/deep-cdi.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"$T/deep-cdi.json:1:"*"maximum parsing depth reached"* ]]
        printf '{"x": %s}' "$deep" >"$T/daemon.json"
        cp "$T/daemon.json" "$T/daemon.orig"
        bounded "$CTK_BIN/amd-ctk" runtime configure --config-path "$T/daemon.json"
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-ctk: $T/daemon.json:1:"*"maximum parsing depth reached"* ]]
        cmp "$T/daemon.json" "$T/daemon.orig"
}

@test "containerd's config.toml nested 10,000 deep (arrays, inline tables): one error, nothing written" {
        python3 -c 'print("imports = " + "[" * 10000 + "]" * 10000)' >"$T/arrays.toml"
        python3 -c 'print("a = " + "{b = " * 10000 + "1" + "}" * 10000)' >"$T/tables.toml"
        for f in arrays tables; do
                cp "$T/$f.toml" "$T/$f.orig"
                bounded "$CTK_BIN/amd-ctk" runtime configure --runtime containerd --config-path "$T/conf.d/99-amd.toml" \
                        --containerd-config "$T/$f.toml"
                [ "$status" -eq 1 ]
                [[ "$stderr" == "amd-ctk: $T/$f.toml:1:"*": values nested more than 64 deep" ]]
                cmp "$T/$f.toml" "$T/$f.orig"
                [ ! -e "$T/conf.d" ]
        done
}

@test "a 100,000-token AMD_VISIBLE_DEVICES: answered at once, valid or not" {
        python3 -c 'print(",".join(["0-3"] * 50000 + ["1"] * 50000))' >"$T/toks"
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=" + ($toks | rtrimstr("\n"))]' --rawfile toks "$T/toks"
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" many
        [ "$status" -eq 0 ]
        jq -e '.linux.devices | length == 9' "$T/b/config.json" >/dev/null
        python3 -c 'print(",".join(str(i % 9) for i in range(100000)))' >"$T/toks"
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=" + ($toks | rtrimstr("\n"))]' --rawfile toks "$T/toks"
        bounded "$RT_SHIM" --amd-config="$CFG" create --bundle "$T/b" many2
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU 4 does not exist (this host has GPUs 0-3)" ]
}

@test "a 1 GB sysfs file from a broken driver: one error naming it, no 1 GB read" {
        fakefs_require_fuse
        fakefs_mount "$PROFILES/seed-4xmi210.json"
        echo "huge 1073741824 /sys/class/kfd/kfd/topology/nodes/2/properties" >"$FAKEFS_MNT/.fakefs/ctl"
        [ "$(stat -c %s "$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/2/properties")" -eq 1073741824 ]
        bounded "$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list
        [ "$status" -eq 1 ]
        [[ "$stderr" == *"$FAKEFS_MNT/sys/class/kfd/kfd/topology/nodes/2/properties is larger than 1 MiB: not read (no sysfs attribute is: a broken driver?)"* ]]
        [ "$MAXRSS" -lt 65536 ]
        echo clear >"$FAKEFS_MNT/.fakefs/ctl"
        "$CTK_BIN/amd-ctk" --root "$FAKEFS_MNT" gpu list >/dev/null
}

# big_spec FILE KIND N: a CDI spec of KIND with N devices "d0".."d<N-1>"
big_spec() {
        python3 -c '
import sys
out, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(out, "w") as f:
    f.write("{\"cdiVersion\": \"0.5.0\", \"kind\": \"%s\", \"devices\": [" % kind)
    f.write(",".join("{\"name\": \"d%d\", \"containerEdits\": {\"env\": [\"X=%d\"]}}" % (i, i) for i in range(n)))
    f.write("]}\n")' "$@"
}

@test "CDI specs of 1,000,000 and 100,000 devices: skipped as over the caps; a create naming another spec's device succeeds" {
        mkdir -p "$T/cdi"
        "$CTK_BIN/amd-ctk" --profile "$RT_PROFILES/seed-4xmi210.json" cdi generate --output "$T/cdi/amd.json" >/dev/null
        big_spec "$T/cdi/huge.json" vendor.com/huge 1000000
        big_spec "$T/cdi/many.json" vendor.com/many 100000
        [ "$(stat -c %s "$T/cdi/huge.json")" -gt 16777216 ]
        [ "$(stat -c %s "$T/cdi/many.json")" -lt 16777216 ]
        jq --arg d "$T/cdi" '.["cdi-spec-dirs"] = [$d] | .["cdi-kinds"] = ["*"]' "$CFG" >"$T/cfg-cdi.json"
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=amd.com/gpu=1"]'
        bounded "$RT_SHIM" --amd-config="$T/cfg-cdi.json" create --bundle "$T/b" cdi-caps
        [ "$status" -eq 0 ]
        jq -e '.linux.devices | length == 3' "$T/b/config.json" >/dev/null
        [ "$MAXRSS" -lt 524288 ]
        grep -q "level=WARNING.*$T/cdi/huge.json is larger than 16 MiB: not read (spec skipped)" "$T/runtime.log"
        grep -q "level=WARNING.*$T/cdi/many.json has 100000 devices, more than the 65536 a spec may have (spec skipped)" "$T/runtime.log"
        # naming a device of one: the file and why, in one line
        spec_with '.process.env += ["AMD_VISIBLE_DEVICES=vendor.com/many=d7"]'
        bounded "$RT_SHIM" --amd-config="$T/cfg-cdi.json" create --bundle "$T/b" cdi-caps2
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-container-runtime: AMD_VISIBLE_DEVICES: vendor.com/many=d7: no CDI spec in $T/cdi has kind vendor.com/many; skipped: $T/cdi/huge.json is larger than 16 MiB: not read (spec skipped); $T/cdi/many.json has 100000 devices, more than the 65536 a spec may have (spec skipped)" ]]
        bounded "$CTK_BIN/amd-ctk" cdi list --spec-dir "$T/cdi"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 5 CDI devices in $T/cdi" ]
        [ "$(grep -c 'spec skipped' <<<"$stderr")" -eq 2 ]
}
