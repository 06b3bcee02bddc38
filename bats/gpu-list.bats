#!/usr/bin/env bats
# amd-ctk gpu list against every host profile, through --profile (in-memory
# fakefs) and through --root on the tree `amd-ctk-fakefs materialize` writes
# (the sysfs backend): both must give identical output.

bats_require_minimum_version 1.5.0

load helpers/common

setup_file() {
        export CTK="$CTK_BIN/amd-ctk"
        export FAKEFS="$CTK_BIN/amd-ctk-fakefs"
        ctk_require_built "$CTK" "$FAKEFS" || return 1
        # one materialized tree per profile, shared by the tests of this file
        export TREES="$BATS_FILE_TMPDIR/trees"
        mkdir -p "$TREES"
        for p in "$PROFILES"/*.json; do
                "$FAKEFS" materialize "$p" "$TREES/$(basename "$p" .json)"
        done
        # an unrelated config file must not be read when --root/--profile are given
        export AMD_CTK_CONFIG="$BATS_FILE_TMPDIR/absent-config.json"
}

profile() { echo "$PROFILES/$1.json"; }
tree() { echo "$TREES/$1"; }

# ---- every profile: --profile and --root agree ------------------------------

@test "gpu list --json is identical through --profile and --root for every profile" {
        n=0
        for p in "$PROFILES"/*.json; do
                name=$(basename "$p" .json)
                run --separate-stderr "$CTK" --profile "$p" gpu list --json
                a_status=$status a_out=$output a_err=$stderr
                run --separate-stderr "$CTK" --root "$(tree "$name")" gpu list --json
                if [ "$status" != "$a_status" ] || [ "$output" != "$a_out" ] || [ "$stderr" != "$a_err" ]; then
                        echo "profile $name differs:"
                        diff <(echo "$a_out$a_err") <(echo "$output$stderr") || true
                        return 1
                fi
                n=$((n + 1))
        done
        [ "$n" -ge 7 ]
}

@test "gpu list table is identical through --profile and --root for every profile" {
        for p in "$PROFILES"/*.json; do
                name=$(basename "$p" .json)
                a=$("$CTK" --profile "$p" gpu list 2>&1) || true
                b=$("$CTK" --root "$(tree "$name")" gpu list 2>&1) || true
                [ "$a" = "$b" ] || {
                        echo "profile $name differs"
                        diff <(echo "$a") <(echo "$b")
                        return 1
                }
        done
}

@test "gpu list --all-vendors is identical through --profile and --root for every profile" {
        for p in "$PROFILES"/*.json; do
                name=$(basename "$p" .json)
                a=$("$CTK" --profile "$p" gpu list --all-vendors --json 2>&1) || true
                b=$("$CTK" --root "$(tree "$name")" gpu list --all-vendors --json 2>&1) || true
                [ "$a" = "$b" ] || {
                        echo "profile $name differs"
                        diff <(echo "$a") <(echo "$b")
                        return 1
                }
        done
}

@test "gpu list --json: index order, key order, table agrees, for every profile with amdgpu" {
        for p in "$PROFILES"/*.json; do
                run "$CTK" --profile "$p" gpu list --json
                if [ "$(basename "$p")" = no-amdgpu.json ]; then
                        [ "$status" -eq 1 ] # checked below
                        continue
                fi
                [ "$status" -eq 0 ]
                json=$output
                n=$(jq length <<<"$json")
                # indices are 0..n-1 in order
                [ "$(jq -c '[.[].index]' <<<"$json")" = "$(jq -cn "[range($n)]")" ]
                # stable key order and types
                if [ "$n" -gt 0 ]; then
                        [ "$(jq -c '[.[] | keys_unsorted] | unique' <<<"$json")" = \
                                '[["index","uuid","pci","partition","render_minor","kfd_node","gpu_id","devices","swarm_id"]]' ]
                        jq -e 'all(.[]; (.uuid == null or (.uuid | test("^0x[0-9A-F]+$")))
                                 and (.pci | test("^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$"))
                                 and (.render_minor | type) == "number"
                                 and (.kfd_node | type) == "number" and (.gpu_id | type) == "number"
                                 and (.devices | map(test("^/dev/dri/(card|renderD)[0-9]+$")) | all)
                                 and (.swarm_id == null or (.swarm_id | test("^0x[0-9A-F]+(:[0-9]+)?$"))))' <<<"$json"
                # a Swarm id names one device
                [ "$(jq '[.[].swarm_id | select(. != null)] | length == (unique | length)' <<<"$json")" = true ]
                fi
                # the table lists the same devices
                table=$("$CTK" --profile "$p" gpu list)
                if [ "$n" -eq 1 ]; then
                        [ "$(head -n1 <<<"$table")" = "Found 1 AMD GPU device" ]
                else
                        [ "$(head -n1 <<<"$table")" = "Found $n AMD GPU devices" ]
                fi
                [ "$(tail -n +5 <<<"$table" | grep -c '^[0-9]')" -eq "$n" ]
        done
}

# ---- profile specific expectations ----------------------------------------

@test "mi210-xgmi-x8: index order is PCI order (index 0 is 0000:03:00.0), not render-minor order" {
        run "$CTK" --profile "$(profile mi210-xgmi-x8)" gpu list --json
        [ "$status" -eq 0 ]
        [ "$(jq length <<<"$output")" -eq 8 ]
        [ "$(jq -r '.[0].pci' <<<"$output")" = "0000:03:00.0" ]
        [ "$(jq -r '.[].pci' <<<"$output")" = "$(jq -r '.[].pci' <<<"$output" | sort)" ]
        # the capture's render minors are not in PCI order
        [ "$(jq -c '[.[].render_minor]' <<<"$output")" != "$(jq -c '[.[].render_minor] | sort' <<<"$output")" ]
}

@test "gpu list --json: the objects of the seed host; a GPU without unique_id has uuid null (N/A in the table)" {
        run "$CTK" --profile "$(profile seed-4xmi210)" gpu list --json
        [ "$status" -eq 0 ]
        [ "$(jq -c '.[0]' <<<"$output")" = '{"index":0,"uuid":"0xEA35F57CC80DEB35","pci":"0000:03:00.0","partition":"","render_minor":130,"kfd_node":4,"gpu_id":12261,"devices":["/dev/dri/card2","/dev/dri/renderD130"],"swarm_id":"0xEA35F57CC80DEB35"}' ]
        jq 'del(.gpus[1].unique_id)' "$(profile seed-4xmi210)" >"$BATS_TEST_TMPDIR/no-uuid.json"
        run "$CTK" --profile "$BATS_TEST_TMPDIR/no-uuid.json" gpu list --json
        [ "$status" -eq 0 ]
        [ "$(jq -c '[.[].uuid]' <<<"$output")" = '["0xEA35F57CC80DEB35",null,"0x6E32F10EFC982B4C","0x12FE4F7FDAF06B9"]' ]
        [ "$(jq -c '[.[].swarm_id]' <<<"$output")" = '["0xEA35F57CC80DEB35",null,"0x6E32F10EFC982B4C","0x12FE4F7FDAF06B9"]' ]
        run "$CTK" --profile "$BATS_TEST_TMPDIR/no-uuid.json" gpu list
        [[ "${lines[5]}" == "1         N/A                      /dev/dri/renderD131 "* ]]
}

@test "mi300x-cpx-x8: 63 partitions, contiguous per GPU (8 each, 7 for 0000:e5:00.0)" {
        run "$CTK" --root "$(tree mi300x-cpx-x8)" gpu list --json
        [ "$status" -eq 0 ]
        json=$output
        [ "$(jq length <<<"$json")" -eq 63 ]
        # runs of equal PCI addresses: one run per GPU (contiguous), in PCI order
        runs=$(jq -r '.[].pci' <<<"$json" | uniq -c | awk '{print $2 "=" $1}')
        [ "$(wc -l <<<"$runs")" -eq 8 ]
        [ "$(cut -d= -f1 <<<"$runs")" = "$(cut -d= -f1 <<<"$runs" | sort)" ]
        [ "$(grep -c '=8$' <<<"$runs")" -eq 7 ]
        [ "$(grep '=7$' <<<"$runs")" = "0000:e5:00.0=7" ]
        # within a GPU, ascending render minors; partition 0 carries the mode
        jq -e 'group_by(.pci) | all(.[]; (map(.render_minor) == (map(.render_minor) | sort)))' <<<"$json"
        jq -e '[.[] | select(.partition != "")] | length == 8 and all(.[]; .partition | startswith("cpx_"))' <<<"$json"
        # the Swarm id of a partition: its GPU's UUID and its place in that GPU
        jq -e 'group_by(.pci) | all(.[]; . as $g | [range(length)] | all(.[]; . as $n |
                $g[$n].swarm_id == "\($g[$n].uuid):\($n)"))' <<<"$json"
}

@test "mi308-x8: partitions of each GPU are contiguous" {
        run "$CTK" --profile "$(profile mi308-x8)" gpu list --json
        [ "$status" -eq 0 ]
        json=$output
        [ "$(jq length <<<"$json")" -eq 32 ]
        runs=$(jq -r '.[].pci' <<<"$json" | uniq | wc -l)
        [ "$runs" -eq "$(jq -r '.[].pci' <<<"$json" | sort -u | wc -l)" ]
}

@test "seed-4xmi210: the four UUIDs of the GPU tracker document, in order" {
        run "$CTK" --profile "$(profile seed-4xmi210)" gpu list
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "Found 4 AMD GPU devices" ]
        [[ "${lines[2]}" == "GPU Id    UUID                     DRM Devices "* ]]
        [[ "${lines[4]}" == "0         0xEA35F57CC80DEB35       /dev/dri/renderD"* ]]
        [[ "${lines[5]}" == "1         0x89CAA15875FF5A43       /dev/dri/renderD"* ]]
        [[ "${lines[6]}" == "2         0x6E32F10EFC982B4C       /dev/dri/renderD"* ]]
        [[ "${lines[7]}" == "3         0x12FE4F7FDAF06B9        /dev/dri/renderD"* ]]
        run "$CTK" --root "$(tree seed-4xmi210)" gpu list --json
        [ "$(jq -c '[.[].uuid]' <<<"$output")" = \
                '["0xEA35F57CC80DEB35","0x89CAA15875FF5A43","0x6E32F10EFC982B4C","0x12FE4F7FDAF06B9"]' ]
}

@test "no-amdgpu: one clear line, exit 1, nothing on stdout" {
        for how in "--profile $(profile no-amdgpu)" "--root $(tree no-amdgpu)"; do
                for fmt in "" --json; do
                        run --separate-stderr "$CTK" $how gpu list $fmt
                        [ "$status" -eq 1 ]
                        [ -z "$output" ]
                        [ "${#stderr_lines[@]}" -eq 1 ]
                        [[ "$stderr" == "amd-ctk: "*"amdgpu driver is not loaded"*"modprobe amdgpu"* ]]
                done
        done
}

@test "a malformed profile: file:line:column in one line, exit 1, nothing on stdout" {
        printf '{\n  "gpus": [\n    {"pci": "0000:03:00.0",,}\n  ]\n}\n' >"$BATS_TEST_TMPDIR/bad.json"
        for cmd in "gpu list" "gpu list --json" "gpu list --all-vendors" "cdi list"; do
                run --separate-stderr "$CTK" --profile "$BATS_TEST_TMPDIR/bad.json" $cmd
                [ "$status" -eq 1 ]
                [ -z "$output" ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == "amd-ctk: "*"$BATS_TEST_TMPDIR/bad.json:3:28: "* ]]
        done
}

@test "an unparseable KFD topology number: the file and the key in one line, exit 1, nothing on stdout" {
        host="$BATS_TEST_TMPDIR/host"
        cp -a "$(tree seed-4xmi210)" "$host"
        props="$host/sys/class/kfd/kfd/topology/nodes/3/properties"
        chmod u+w "$props"
        sed -i 's/^location_id .*/location_id 0x4300/' "$props"
        for cmd in "gpu list" "gpu list --json" "cdi list"; do
                run --separate-stderr "$CTK" --root "$host" $cmd
                [ "$status" -eq 1 ]
                [ -z "$output" ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == "amd-ctk: "*"/sys/class/kfd/kfd/topology/nodes/3/properties: location_id "*"0x4300"* ]]
        done
        # a value out of range is named the same way
        sed -i 's/^location_id .*/location_id 4294967296/' "$props"
        run --separate-stderr "$CTK" --root "$host" gpu list
        [ "$status" -eq 1 ]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [[ "$stderr" == *"nodes/3/properties: location_id "* ]]
}

@test "no-amdgpu: --all-vendors still lists the PCI display devices" {
        run --separate-stderr "$CTK" --profile "$(profile no-amdgpu)" gpu list --all-vendors --json
        [ "$status" -eq 0 ]
        jq -e 'all(.[]; .amd_manageable == false)' <<<"$output"
}

@test "mixed-vendor: --all-vendors marks the Intel and NVIDIA GPUs as not AMD-manageable" {
        run --separate-stderr "$CTK" --profile "$(profile mixed-vendor)" gpu list --all-vendors --json
        [ "$status" -eq 0 ]
        json=$output
        jq -e '[.[] | select(.vendor == "Intel")] | length >= 1 and all(.[]; .amd_manageable == false and .driver == "i915")' <<<"$json"
        jq -e '[.[] | select(.vendor == "NVIDIA")] | length >= 1 and all(.[]; .amd_manageable == false)' <<<"$json"
        jq -e '[.[] | select(.vendor == "AMD")] | length >= 1 and all(.[]; .amd_manageable and (.gpu_indices | length) >= 1)' <<<"$json"
        # every non-AMD GPU has its own DRM nodes, found through /dev/dri/by-path
        jq -e '[.[] | select(.vendor != "AMD")] | all(.[]; (.devices | length) >= 1)' <<<"$json"
        # the AMD indices are exactly those of gpu list
        run "$CTK" --profile "$(profile mixed-vendor)" gpu list --json
        [ "$(jq -c '[.[].index]' <<<"$output")" = "$(jq -c '[.[].gpu_indices[]] | sort' <<<"$json")" ]
        run "$CTK" --profile "$(profile mixed-vendor)" gpu list --all-vendors
        [ "$status" -eq 0 ]
        grep -E '^[0-9a-f:.]+ +Intel .* no \(' <<<"$output"
        grep -E '^[0-9a-f:.]+ +NVIDIA .* no \(' <<<"$output"
        grep -E '^[0-9a-f:.]+ +AMD .* yes \(GPU' <<<"$output"
}

# ---- help and usage ----------------------------------------------------------

@test "gpu and gpu list: --help and -h print usage on stdout, exit 0" {
        for args in "gpu --help" "gpu -h" "gpu help" "gpu list --help" "gpu list -h" "help gpu"; do
                run --separate-stderr "$CTK" $args
                [ "$status" -eq 0 ]
                [[ "$output" == *"USAGE:"* ]]
                [ -z "$stderr" ]
        done
        run "$CTK" gpu list --help
        [[ "$output" == *"--json"* && "$output" == *"--all-vendors"* ]]
}

@test "unknown subcommand or option: one line on stderr, exit 2" {
        for args in "gpu lst" "gpu list --bogus" "gpu list extra"; do
                run --separate-stderr "$CTK" --profile "$(profile seed-4xmi210)" $args
                [ "$status" -eq 2 ]
                [ -z "$output" ]
                [ "${#stderr_lines[@]}" -eq 1 ]
                [[ "$stderr" == "amd-ctk gpu"*" (see 'amd-ctk gpu"*" --help')" ]]
        done
}

@test "a missing --root directory is one error line, exit 1" {
        run --separate-stderr "$CTK" --root "$BATS_TEST_TMPDIR/nope" gpu list
        [ "$status" -eq 1 ]
        [ -z "$output" ]
        [ "${#stderr_lines[@]}" -eq 1 ]
        [[ "$stderr" == *"$BATS_TEST_TMPDIR/nope"* ]]
}

@test "AMD_CTK_ROOT and AMD_CTK_PROFILE select the backend like the options" {
        a=$("$CTK" --profile "$(profile seed-4xmi210)" gpu list --json)
        b=$(AMD_CTK_PROFILE="$(profile seed-4xmi210)" "$CTK" gpu list --json)
        c=$(AMD_CTK_ROOT="$(tree seed-4xmi210)" "$CTK" gpu list --json)
        [ "$a" = "$b" ]
        [ "$a" = "$c" ]
}

@test "version prints version, build date and commit" {
        run "$CTK" version
        [ "$status" -eq 0 ]
        [[ "${lines[0]}" == "Version: "* ]]
        [[ "${lines[1]}" == "Build Date: "* ]]
        [[ "${lines[2]}" == "GitCommit: "* ]]
}
