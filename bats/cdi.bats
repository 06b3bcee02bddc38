#!/usr/bin/env bats
# amd-ctk cdi generate | validate | list against the host profiles (in-memory
# --profile and materialized --root trees), checked with an independent
# validator (the CDI JSON schema through python3-jsonschema).

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export FAKEFS="$CTK_BIN/amd-ctk-fakefs"
        export SCHEMA="$CTK_REPO/bats/fixtures/cdi-schema"
        export SCHEMA_CHECK="$CTK_REPO/bats/helpers/cdi-schema-check.py"
        ctk_require_built "$CTK" "$FAKEFS" || return 1
        # a config file that does not exist: nothing from the host's config is read
        export AMD_CTK_CONFIG="$BATS_FILE_TMPDIR/absent-config.json"
}

setup() {
        OUT="$BATS_TEST_TMPDIR/out"
        mkdir -p "$OUT"
}

profile() { echo "$PROFILES/$1.json"; }

# profiles with AMD GPUs (every one but no-amdgpu)
gpu_profiles() {
        for p in "$PROFILES"/*.json; do
                [ "$(basename "$p")" = no-amdgpu.json ] || echo "$p"
        done
}

# ---- generate ---------------------------------------------------------------

@test "generate: every profile, every naming, passes the CDI JSON schema and cdi validate" {
        n=0
        for p in $(gpu_profiles); do
                name=$(basename "$p" .json)
                for args in "" "--device-name-strategy index,uuid" "--device-name-strategy uuid --additional-gids"; do
                        f="$OUT/$name-$n.json"
                        # shellcheck disable=SC2086
                        run "$CTK" --profile "$p" cdi generate --output "$f" $args
                        [ "$status" -eq 0 ] || { echo "$name $args: $output"; false; }
                        [ "$output" = "Generated CDI spec: $f" ]
                        run "$SCHEMA_CHECK" "$SCHEMA" "$f"
                        [ "$status" -eq 0 ] || { echo "$output"; false; }
                        run "$CTK" --profile "$p" cdi validate --path "$f"
                        [ "$status" -eq 0 ] || { echo "$name $args: $output"; false; }
                        [ "${lines[-1]}" = "CDI spec is valid" ]
                        n=$((n + 1))
                done
        done
        [ "$n" -ge 18 ]
}

@test "generate: names, node attributes and the minimum cdiVersion on the seed host" {
        run "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/a.json"
        [ "$status" -eq 0 ]
        [ "$(jq -r .cdiVersion "$OUT/a.json")" = 0.5.0 ]
        [ "$(jq -r .kind "$OUT/a.json")" = amd.com/gpu ]
        [ "$(jq -r '[.devices[].name] | join(" ")' "$OUT/a.json")" = "0 1 2 3 all" ]
        # GPU 0 (0000:03:00.0): card2, renderD130, then /dev/kfd, with the profile's numbers and owners
        run jq -c '.devices[0].containerEdits.deviceNodes' "$OUT/a.json"
        [ "$output" = '[{"path":"/dev/dri/card2","type":"c","major":226,"minor":2,"fileMode":432,"permissions":"rwm","uid":0,"gid":44},{"path":"/dev/dri/renderD130","type":"c","major":226,"minor":130,"fileMode":432,"permissions":"rwm","uid":0,"gid":109},{"path":"/dev/kfd","type":"c","major":235,"minor":0,"fileMode":432,"permissions":"rwm","uid":0,"gid":109}]' ]
        [ "$(jq '.devices[4].containerEdits.deviceNodes | length' "$OUT/a.json")" -eq 9 ]
        # no top-level edits, no additionalGids unless asked for
        [ "$(jq 'has("containerEdits")' "$OUT/a.json")" = false ]
        [ "$(jq '[.devices[].containerEdits | has("additionalGids")] | any' "$OUT/a.json")" = false ]

        run "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/b.json" \
                --device-name-strategy index,uuid --additional-gids
        [ "$status" -eq 0 ]
        [ "$(jq -r .cdiVersion "$OUT/b.json")" = 0.7.0 ]
        [ "$(jq -r '[.devices[].name] | join(" ")' "$OUT/b.json")" = \
                "0 1 2 3 0xEA35F57CC80DEB35 0x89CAA15875FF5A43 0x6E32F10EFC982B4C 0x12FE4F7FDAF06B9 all" ]
        [ "$(jq -c '.devices[0].containerEdits.additionalGids' "$OUT/b.json")" = "[44,109]" ]
        # a UUID device is the same GPU as its index
        [ "$(jq -c '.devices[4].containerEdits.deviceNodes' "$OUT/b.json")" = \
                "$(jq -c '.devices[0].containerEdits.deviceNodes' "$OUT/b.json")" ]
}

@test "generate: partitions sharing a UUID form one UUID device (mi300x-cpx-x8)" {
        run "$CTK" --profile "$(profile mi300x-cpx-x8)" cdi generate --output "$OUT/c.json" --device-name-strategy uuid
        [ "$status" -eq 0 ]
        # 8 physical GPUs + all; the GPU with 7 partitions has 14 DRM nodes + /dev/kfd
        [ "$(jq '.devices | length' "$OUT/c.json")" -eq 9 ]
        [ "$(jq '[.devices[:8][].containerEdits.deviceNodes | length] | sort | join(",")' -r "$OUT/c.json")" = \
                "15,17,17,17,17,17,17,17" ]
        [ "$(jq '.devices[8].containerEdits.deviceNodes | length' "$OUT/c.json")" -eq 127 ]
}

@test "generate: written atomically with mode 0644, parents created, stdout with -" {
        run sh -c "umask 077; '$CTK' --profile '$(profile seed-4xmi210)' cdi generate --output '$OUT/x/y/amd.json'"
        [ "$status" -eq 0 ]
        [ "$(stat -c %a "$OUT/x/y/amd.json")" = 644 ]
        [ "$(ls -A "$OUT/x/y")" = amd.json ]
        run --separate-stderr "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output -
        [ "$status" -eq 0 ]
        [ "$output" = "$(cat "$OUT/x/y/amd.json")" ]
        [ -z "$stderr" ]
        # 2-space indent, one key per line, final newline
        [ "$(sed -n 2p "$OUT/x/y/amd.json")" = '  "cdiVersion": "0.5.0",' ]
        [ "$(tail -c 2 "$OUT/x/y/amd.json" | od -An -c | tr -d ' ')" = '}\n' ]
        # regenerating gives an existing file mode 0644 too (readable by every CDI client)
        chmod 0600 "$OUT/x/y/amd.json"
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/x/y/amd.json"
        [ "$(stat -c %a "$OUT/x/y/amd.json")" = 644 ]
}

@test "generate and validate: the default spec is /etc/cdi/amd.json (private mount namespace)" {
        [ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace with /etc as an overlay)"
        mkdir -p "$OUT/up" "$OUT/work"
        # /etc/cdi as this host has it (often absent) is what the namespace starts from;
        # writes land in $OUT/up, the host's /etc is never touched
        run unshare --mount --propagation private sh -ec '
                mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc
                [ "$(stat -f -c %T /etc)" = overlayfs ]
                rm -rf /etc/cdi
                "$2" --profile "$3" cdi generate
                stat -c "%a %s" /etc/cdi/amd.json
                "$2" --profile "$3" cdi validate' sh "$OUT" "$CTK" "$(profile seed-4xmi210)"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Generated CDI spec: /etc/cdi/amd.json" ]
        [ "${lines[1]}" = "644 $(stat -c %s "$OUT/up/cdi/amd.json")" ]
        [ "${lines[2]}" = "Validating CDI spec: /etc/cdi/amd.json" ]
        [ "${lines[3]}" = "CDI spec is valid" ]
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output - | cmp - "$OUT/up/cdi/amd.json"
}

@test "generate: a failed generation leaves the existing file byte-identical" {
        f="$OUT/amd.json"
        printf '{"previous": "content"}\n' >"$f"
        cp "$f" "$OUT/before"
        run --separate-stderr "$CTK" --profile "$(profile no-amdgpu)" cdi generate --output "$f"
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-ctk: failed to generate CDI spec: amdgpu driver is not loaded"* ]]
        [ -z "$output" ]
        cmp "$f" "$OUT/before"
        run --separate-stderr "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$f" --vendor 1bad
        [ "$status" -eq 1 ]
        [[ "$stderr" == *'invalid CDI vendor "1bad"'* ]]
        cmp "$f" "$OUT/before"
        [ "$(ls -A "$OUT")" = "$(printf 'amd.json\nbefore')" ]
}

@test "generate: a value refused exits 1, a usage error 2, each one line" {
        run --separate-stderr "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --device-name-strategy serial
        [ "$status" -eq 1 ]
        [ "$stderr" = "amd-ctk cdi generate: invalid value 'serial' for --device-name-strategy (index, uuid or index,uuid)" ]
        run --separate-stderr "$CTK" cdi generate --ouput
        [ "$status" -eq 2 ]
        [ "$stderr" = "amd-ctk cdi generate: unknown option '--ouput' (see 'amd-ctk cdi generate --help')" ]
        run --separate-stderr "$CTK" cdi generate --output
        [ "$status" -eq 2 ]
        [ "$stderr" = "amd-ctk cdi generate: option '--output' needs a value (see 'amd-ctk cdi generate --help')" ]
        run "$CTK" cdi generate --help
        [ "$status" -eq 0 ]
        [[ "$output" == *"--device-name-strategy"* ]]
}

# ---- validate: structure ----------------------------------------------------

@test "validate: the CDI schema's own good and bad test files get the schema's verdict" {
        for f in "$SCHEMA"/testdata/good/*.json; do
                run "$SCHEMA_CHECK" "$SCHEMA" "$f"
                [ "$status" -eq 0 ]
                run "$CTK" cdi validate --no-host-check --path "$f"
                [ "$status" -eq 0 ] || { echo "$output"; false; }
                [ "$output" = "$(printf 'Validating CDI spec: %s\nCDI spec is valid' "$f")" ]
        done
        for f in "$SCHEMA"/testdata/bad/*.json; do
                run "$SCHEMA_CHECK" "$SCHEMA" "$f"
                [ "$status" -eq 1 ]
                run "$CTK" cdi validate --no-host-check --path "$f"
                [ "$status" -eq 1 ]
                [ "${lines[-2]}" = "CDI spec is invalid" ]
                [ "${lines[-1]}" = "Please regenerate CDI spec" ]
        done
}

@test "validate: what the schema misses (unknown keys, fileMode, env) is still rejected" {
        cat >"$OUT/gaps.json" <<'EOF'
{
  "cdiVersion": "0.5.0",
  "kind": "amd.com/gpu",
  "devices": [
    {
      "name": "0",
      "containerEdits": {
        "env": [7, "NOEQUALS"],
        "deviceNodes": [{"path": "/dev/kfd", "fileMode": "0660", "mode": 432}]
      }
    }
  ],
  "intelGpus": []
}
EOF
        run "$SCHEMA_CHECK" "$SCHEMA" "$OUT/gaps.json"
        [ "$status" -eq 0 ] # the schema's known gaps
        run "$CTK" cdi validate --no-host-check --path "$OUT/gaps.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"gaps.json:8:17: devices[0].containerEdits.env[0]: must be a string, not an integer"* ]]
        [[ "$output" == *"gaps.json:8:20: devices[0].containerEdits.env[1]: invalid environment variable \"NOEQUALS\": must be NAME=value"* ]]
        [[ "$output" == *"gaps.json:9:66: devices[0].containerEdits.deviceNodes[0].mode: unknown key \"mode\""* ]]
        [[ "$output" == *"gaps.json:9:46: devices[0].containerEdits.deviceNodes[0].fileMode: must be an integer"* ]]
        [[ "$output" == *"gaps.json:13:3: intelGpus: unknown key \"intelGpus\""* ]]
}

@test "validate: duplicate keys, too-old cdiVersion, bad names, with file:line:column" {
        printf '{"cdiVersion": "0.5.0",\n "kind": "amd.com/gpu",\n "kind": "amd.com/gpu", "devices": []}\n' >"$OUT/dup.json"
        run "$CTK" cdi validate --no-host-check --path "$OUT/dup.json"
        [ "$status" -eq 1 ]
        [ "${lines[1]}" = "$OUT/dup.json:3:7: duplicate object key near '\"kind\"'" ]

        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/a.json" --additional-gids
        jq '.cdiVersion = "0.6.0" | .devices[1].name = "gpu-"' "$OUT/a.json" >"$OUT/old.json"
        run "$CTK" cdi validate --no-host-check --path "$OUT/old.json"
        [ "$status" -eq 1 ]
        [ "${lines[1]}" = "$OUT/old.json:2:3: cdiVersion: version 0.6.0 is too old: additionalGids needs 0.7.0" ]
        [[ "${lines[2]}" == "$OUT/old.json:"*": devices[1].name: invalid device name \"gpu-\""* ]]
}

@test "validate: a YAML spec (as other toolkits write them) is checked and compared with the host" {
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/a.json"
        # our spec as YAML, by hand: device names unquoted (YAML numbers, read as the strings CDI makes of them)
        jq -r '"---", "cdiVersion: \(.cdiVersion)", "kind: \(.kind)", "devices:",
               (.devices[] | "- name: \(.name)", "  containerEdits:", "    deviceNodes:",
                (.containerEdits.deviceNodes[] | "    - {path: \(.path), type: \(.type), major: \(.major), minor: \(.minor), fileMode: \(.fileMode), permissions: \(.permissions), uid: \(.uid), gid: \(.gid)}"))' \
                "$OUT/a.json" >"$OUT/amd.yaml"
        run "$CTK" --profile "$(profile seed-4xmi210)" cdi validate --path "$OUT/amd.yaml"
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "CDI spec is valid" ]
        run "$CTK" --profile "$(profile mi210-xgmi-x8)" cdi validate --path "$OUT/amd.yaml"
        [ "$status" -eq 1 ]
        [[ "$output" == *"device 4 is on this host"* ]]
        # YAML's own mistakes with their place
        printf 'cdiVersion: 0.5.0\nkind: amd.com/gpu\nkind: amd.com/gpu\n' >"$OUT/dup.yaml"
        run "$CTK" cdi validate --no-host-check --path "$OUT/dup.yaml"
        [ "$status" -eq 1 ]
        [ "${lines[1]}" = "$OUT/dup.yaml:3:1: duplicate key \"kind\"" ]
}

@test "validate: a spec written by the Go toolkit (0.6.0, zero numbers omitted) is valid and fresh" {
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/a.json"
        jq '.cdiVersion = "0.6.0" | .containerEdits = {} |
            (.devices[].containerEdits.deviceNodes[] | select(.minor == 0)) |= del(.minor)' \
                "$OUT/a.json" >"$OUT/go.json"
        run "$CTK" --profile "$(profile seed-4xmi210)" cdi validate --path "$OUT/go.json"
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = "CDI spec is valid" ]
}

@test "validate: errors reading the spec go to stderr, exit 1" {
        run --separate-stderr "$CTK" cdi validate --path "$OUT/none.json"
        [ "$status" -eq 1 ]
        [ "$output" = "Validating CDI spec: $OUT/none.json" ]
        [ "$stderr" = "amd-ctk: failed to validate CDI spec: cannot open $OUT/none.json: No such file or directory" ]
}

# ---- validate: freshness ----------------------------------------------------

@test "validate: a spec of another host is stale, names what differs, exits 1" {
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/a.json"
        run "$CTK" --profile "$(profile mi210-xgmi-x8)" cdi validate --path "$OUT/a.json"
        [ "$status" -eq 1 ]
        [ "${lines[0]}" = "Validating CDI spec: $OUT/a.json" ]
        [[ "$output" == *"device 4 is on this host ("*"), but not in the spec"* ]]
        [ "${lines[-2]}" = "CDI spec is invalid" ]
        [ "${lines[-1]}" = "Please regenerate CDI spec" ]
        # and a spec of a bigger host on a smaller one
        "$CTK" --profile "$(profile mi210-xgmi-x8)" cdi generate --output "$OUT/b.json"
        run "$CTK" --profile "$(profile seed-4xmi210)" cdi validate --path "$OUT/b.json"
        [ "$status" -eq 1 ]
        [[ "$output" == *"device 7 is in the spec, but this host has GPUs 0-3 only"* ]]
}

@test "validate: changed device nodes on a materialized host are named" {
        tree="$BATS_TEST_TMPDIR/tree"
        "$FAKEFS" materialize "$(profile seed-4xmi210)" "$tree"
        "$CTK" --root "$tree" cdi generate --output "$OUT/a.json"
        run "$CTK" --root "$tree" cdi validate --path "$OUT/a.json"
        [ "$status" -eq 0 ]
        # renderD130 (GPU 0) gets another minor, renderD131 (GPU 1) another mode and group
        rm "$tree/dev/dri/renderD130"
        mknod -m 0660 "$tree/dev/dri/renderD130" c 226 131
        chown 0:109 "$tree/dev/dri/renderD130"
        chmod 0666 "$tree/dev/dri/renderD131"
        chgrp 110 "$tree/dev/dri/renderD131"
        run "$CTK" --root "$tree" cdi validate --path "$OUT/a.json"
        [ "$status" -eq 1 ]
        [ "${lines[1]}" = "device 0: /dev/dri/renderD130 is 226:131 on this host, 226:130 in the spec" ]
        [ "${lines[2]}" = "device 1: /dev/dri/renderD131 has mode 0666 on this host, 0660 in the spec" ]
        [ "${lines[3]}" = "device 1: /dev/dri/renderD131 has group 110 on this host, 109 in the spec" ]
        [[ "$output" == *"device all: /dev/dri/renderD130 is 226:131 on this host, 226:130 in the spec"* ]]
        # structure only: still fine
        run "$CTK" --root "$tree" cdi validate --path "$OUT/a.json" --no-host-check
        [ "$status" -eq 0 ]
        # regenerated: fresh again
        "$CTK" --root "$tree" cdi generate --output "$OUT/a.json"
        run "$CTK" --root "$tree" cdi validate --path "$OUT/a.json"
        [ "$status" -eq 0 ]
}

@test "validate: without amdgpu the host check fails with one clear line" {
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/a.json"
        run --separate-stderr "$CTK" --profile "$(profile no-amdgpu)" cdi validate --path "$OUT/a.json"
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-ctk: failed to validate CDI spec: cannot compare the spec with this host: amdgpu driver is not loaded"* ]]
        run "$CTK" --profile "$(profile no-amdgpu)" cdi validate --path "$OUT/a.json" --no-host-check
        [ "$status" -eq 0 ]
}

# ---- list -------------------------------------------------------------------

@test "list: the Go toolkit's format on the seed host, with every node of each device" {
        run --separate-stderr "$CTK" --profile "$(profile seed-4xmi210)" cdi list
        [ "$status" -eq 0 ]
        [ -z "$stderr" ]
        [ "$output" = "Found 4 AMD GPU devices
amd.com/gpu=all
  /dev/kfd and the DRM nodes of every device below
amd.com/gpu=0
  /dev/dri/card2
  /dev/dri/renderD130
  /dev/kfd
amd.com/gpu=1
  /dev/dri/card3
  /dev/dri/renderD131
  /dev/kfd
amd.com/gpu=2
  /dev/dri/card1
  /dev/dri/renderD129
  /dev/kfd
amd.com/gpu=3
  /dev/dri/card0
  /dev/dri/renderD128
  /dev/kfd" ]
}

@test "list: mi300x-cpx-x8 shows 63 partitions in index order, each with the nodes --json gives it" {
        run "$CTK" --profile "$(profile mi300x-cpx-x8)" cdi list
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 63 AMD GPU devices" ]
        [ "${lines[1]}" = "amd.com/gpu=all" ]
        [ "${#lines[@]}" -eq $((3 + 63 * 4)) ]
        # the same devices, in the same order, with the same nodes, as --json
        want=$("$CTK" --profile "$(profile mi300x-cpx-x8)" cdi list --json |
                jq -r '.devices[1:][] | .name, (.nodes[] | "  \(.)")')
        [ "$(printf '%s\n' "${lines[@]:3}")" = "$want" ]
        [ "${lines[3]}" = "amd.com/gpu=0" ]
        [ "${lines[5]}" = "  /dev/dri/renderD128" ]
        [ "${lines[-2]}" = "  /dev/dri/renderD190" ]
}

@test "list: one GPU is 'device', no GPUs is 'Found 0 AMD GPU devices'" {
        jq '.gpus |= .[:1]' "$(profile seed-4xmi210)" >"$OUT/one.json"
        run "$CTK" --profile "$OUT/one.json" cdi list
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 1 AMD GPU device" ]
        jq '.gpus = []' "$(profile seed-4xmi210)" >"$OUT/zero.json"
        run "$CTK" --profile "$OUT/zero.json" cdi list
        [ "$status" -eq 0 ]
        [ "$output" = "Found 0 AMD GPU devices" ]
        run --separate-stderr "$CTK" --profile "$(profile no-amdgpu)" cdi list
        [ "$status" -eq 1 ]
        [[ "$stderr" == "amd-ctk: failed to list AMD devices: amdgpu driver is not loaded"* ]]
}

@test "list --json: names, indices, UUIDs and nodes" {
        run "$CTK" --profile "$(profile seed-4xmi210)" cdi list --json
        [ "$status" -eq 0 ]
        [ "$(jq -r '[.devices[].name] | join(" ")' <<<"$output")" = \
                "amd.com/gpu=all amd.com/gpu=0 amd.com/gpu=1 amd.com/gpu=2 amd.com/gpu=3" ]
        [ "$(jq -r '[.devices[1:][].uuid] | join(" ")' <<<"$output")" = \
                "0xEA35F57CC80DEB35 0x89CAA15875FF5A43 0x6E32F10EFC982B4C 0x12FE4F7FDAF06B9" ]
        [ "$(jq -c '.devices[1].nodes' <<<"$output")" = '["/dev/dri/card2","/dev/dri/renderD130","/dev/kfd"]' ]
        [ "$(jq '.devices[0].nodes | length' <<<"$output")" -eq 9 ]
        [ "$(jq '.devices[0] | has("index")' <<<"$output")" = false ]
}

@test "list --spec-dirs: later directories override, same-directory conflicts are reported" {
        etc="$BATS_TEST_TMPDIR/etc-cdi" run_dir="$BATS_TEST_TMPDIR/run-cdi"
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$etc/amd.json"
        "$CTK" --profile "$(profile mi210-xgmi-x8)" cdi generate --output "$run_dir/amd.json"
        # a second spec in etc that also defines amd.com/gpu=all: a conflict
        jq '.devices |= [.[-1]]' "$etc/amd.json" >"$etc/more.json"
        printf '{"cdiVersion": "0.3.0"}' >"$etc/broken.json"
        run --separate-stderr "$CTK" cdi list --spec-dir "$etc" --spec-dir "$run_dir"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 8 CDI devices in $etc, $run_dir" ]
        [ "${lines[1]}" = "amd.com/gpu=0 ($run_dir/amd.json, overrides $etc/amd.json)" ]
        [ "${lines[5]}" = "amd.com/gpu=4 ($run_dir/amd.json)" ]
        [ "${lines[8]}" = "amd.com/gpu=7 ($run_dir/amd.json)" ]
        [ "${#lines[@]}" -eq 9 ] # no amd.com/gpu=all: unusable
        [[ "$stderr" == *"amd-ctk: warning: conflicting device amd.com/gpu=all (specs $etc/amd.json, $etc/more.json): CDI runtimes will not use it"* ]]
        [[ "$stderr" == *"amd-ctk: warning: $etc/broken.json:1:1: missing required key \"kind\""* ]]

        run --separate-stderr "$CTK" cdi list --spec-dir "$etc" --spec-dir "$run_dir" --json
        [ "$status" -eq 0 ]
        [ "$(jq -r '.devices[0] | "\(.name) \(.spec) \(.priority) \(.overrides[0])"' <<<"$output")" = \
                "amd.com/gpu=0 $run_dir/amd.json 1 $etc/amd.json" ]
        [ "$(jq -r '.conflicts[0].name' <<<"$output")" = "amd.com/gpu=all" ]
        [ "$(jq '.problems | length' <<<"$output")" -eq 1 ]
}

@test "list --spec-dirs: by default /etc/cdi, then /var/run/cdi (private mount namespace)" {
        [ "$(id -u)" -eq 0 ] || skip "needs root (a private mount namespace with /etc as an overlay)"
        mkdir -p "$OUT/up" "$OUT/work"
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$OUT/etc.json"
        "$CTK" --profile "$(profile mi210-xgmi-x8)" cdi generate --output "$OUT/run.json"
        # no configuration file (the defaults), /var/run/cdi through whatever /var/run is
        # on this host (usually a link to /run)
        run unshare --mount --propagation private sh -ec '
                mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc
                [ "$(stat -f -c %T /etc)" = overlayfs ]
                rm -rf /etc/cdi /etc/amd-container-toolkit
                mkdir /etc/cdi
                cp "$1/etc.json" /etc/cdi/amd.json
                run=$(realpath /var/run)
                mount -t tmpfs -o mode=0755 tmpfs "$run"
                mkdir /var/run/cdi
                cp "$1/run.json" /var/run/cdi/amd.json
                env -u AMD_CTK_CONFIG "$2" cdi list --spec-dirs' sh "$OUT" "$CTK"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 9 CDI devices in /etc/cdi, /var/run/cdi" ]
        [ "${lines[1]}" = "amd.com/gpu=0 (/var/run/cdi/amd.json, overrides /etc/cdi/amd.json)" ]
        [ "${lines[4]}" = "amd.com/gpu=3 (/var/run/cdi/amd.json, overrides /etc/cdi/amd.json)" ]
        [ "${lines[5]}" = "amd.com/gpu=4 (/var/run/cdi/amd.json)" ]
        [ "${lines[9]}" = "amd.com/gpu=all (/var/run/cdi/amd.json, overrides /etc/cdi/amd.json)" ]
        [ "${#lines[@]}" -eq 10 ]
}

@test "list --spec-dirs: missing directories are empty" {
        run "$CTK" cdi list --spec-dir "$BATS_TEST_TMPDIR/none"
        [ "$status" -eq 0 ]
        [ "$output" = "Found 0 CDI devices in $BATS_TEST_TMPDIR/none" ]
}

@test "list --spec-dirs: the directories come from the config's cdi-spec-dirs" {
        d="$BATS_TEST_TMPDIR/specs"
        "$CTK" --profile "$(profile seed-4xmi210)" cdi generate --output "$d/amd.json"
        printf '{"cdi-spec-dirs": ["%s"]}\n' "$d" >"$BATS_TEST_TMPDIR/config.json"
        run "$CTK" --config "$BATS_TEST_TMPDIR/config.json" cdi list --spec-dirs
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 5 CDI devices in $d" ]
        [ "${lines[5]}" = "amd.com/gpu=all ($d/amd.json)" ]
}
