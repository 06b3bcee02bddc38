# The runtime driven directly with runc as a CDI client (busybox bundles,
# the simulated seed host, a private spec directory, log and state): what
# bats/runtime-cdi.bats, bats/runtime-policy.bats and bats/runtime-cdi-trust.bats
# share.
#
#   load helpers/common; load helpers/runtime_bundle; load helpers/fakefs
#   load helpers/runtime_cdi
#
# The bats file's setup_file, setup and teardown call rt_cdi_setup_file,
# rt_cdi_setup and rt_cdi_teardown.

SEED=seed-4xmi210
# config key cdi-kinds for the tests that resolve the NIC vendor's devices
# beside ours (by default the runtime resolves amd.com/gpu only)
NIC_KINDS='{"cdi-kinds": ["amd.com/gpu", "example.com/nic"]}'

rt_cdi_setup_file() {
        ctk_require_built "$RT_SHIM" "$RT_BIN/amd-ctk" || return 1
        command -v runc >/dev/null || {
                echo "runc is required" >&2
                return 1
        }
        export TEMPLATE="$BATS_FILE_TMPDIR/template"
        rt_bundle "$TEMPLATE" sh -c 'echo "NIC=$NIC NIC_DRIVER=$NIC_DRIVER"; cat /opt/nic/fw 2>&1; ls -ln /dev/dri /dev/kfd 2>&1; true'
}

rt_cdi_setup() {
        unset AMD_CTK_CONFIG AMD_CTK_ROOT AMD_CTK_PROFILE
        T=$BATS_TEST_TMPDIR
        B=$T/bundle
        STATE=$T/runc
        ID=ctk-cdi-$BATS_TEST_NUMBER-$$
        CFG=$T/config.json
        CDI=$T/cdi
        mkdir -p "$CDI"
        cp -a "$TEMPLATE" "$B"
        "$RT_BIN/amd-ctk" --profile "$RT_PROFILES/$SEED.json" cdi generate --output "$CDI/amd.json" >/dev/null
        SEED_HOST=$(ctk_host "$SEED")
        config root "$SEED_HOST"
}

rt_cdi_teardown() {
        local id
        for id in $(runc --root "$STATE" list -q 2>/dev/null); do
                runc --root "$STATE" delete -f "$id" >/dev/null 2>&1 || true
        done
        fakefs_teardown
}

# config KEY VALUE [JSON]: the toolkit config: the host (root, SEED_HOST: the
# seed host materialized, or a FUSE mount),
# the spec directory $CDI, a private log and state, and JSON's members.
config() {
        jq -n --arg k "$1" --arg v "$2" --arg log "$T/runtime.log" --arg state "$T/state" --arg cdi "$CDI" \
                --argjson more "${3:-null}" \
                '{($k): $v, "log-file": $log, "log-level": "debug", "state-dir": $state, "cdi-spec-dirs": [$cdi]}
                 + ($more // {})' >"$CFG"
}

shim() { "$RT_SHIM" --amd-config="$CFG" --root "$STATE" "$@"; }

# create BUNDLE ID: `shim create` with stdio on files (a created container
# keeps the stdio it was given open until it runs: a pipe would never end);
# $status and $output (the shim's stderr) as `run` sets them.
create() {
        status=0
        shim create --bundle "$1" "$2" </dev/null >"$T/create.out" 2>"$T/create.err" || status=$?
        output=$(cat "$T/create.err")
        echo "$output"
}

# runs the bundle's container (its output in $output)
run_container() {
        run shim run --bundle "$B" "$ID"
        echo "$output"
}

# a NIC vendor's spec, as YAML, in $CDI: env, a read-only mount of a directory
# with a file "fw", and a spec-wide env
nic_spec() {
        mkdir -p "$T/nic"
        echo "eth0 firmware 1.2" >"$T/nic/fw"
        printf '%s\n' '---' 'cdiVersion: 0.5.0' 'kind: example.com/nic' 'containerEdits:' '  env: [NIC_DRIVER=fast]' \
                'devices:' '- name: eth0' '  containerEdits:' '    env: [NIC=eth0]' '    mounts:' \
                "    - {hostPath: $T/nic, containerPath: /opt/nic, options: [ro, rbind]}" \
                '- name: eth1' '  containerEdits:' '    env: [NIC=eth1]' >"$CDI/nic.yaml"
}

# the seed host's GPU 1 (card3 226:3, renderD131) and /dev/kfd, as ls -ln shows them
gpu1_nodes() {
        printf '%s\n' "c 226:131 renderD131" "c 226:3 card3" "c 235:0 kfd" | sort
}
ls_nodes() {
        awk '/^c[rw-]/ { sub(/,$/, "", $5); n = split($NF, p, "/"); print "c " $5 ":" $6 " " p[n] }' | sort
}

