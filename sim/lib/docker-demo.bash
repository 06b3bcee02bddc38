# The README's docker steps that sim/sim.sh shows beyond single `docker run`s
# (sourced by sim.sh; uses its HAVE_AMD, CFG, SIM, DOCKERD_CONFIG, HOST_CPX):
#   docker_demo_ranges            `0-3,5,8` here and on a host with 63 partitions
#   docker_demo_default_runtime   README steps 4 and 5 (--set-as-default, --unset-as-default)
#   docker_demo_remove            README step 6 (--remove)

# _docker_demo_restart: restarts the private dockerd, as
# `sudo systemctl restart docker` does. (A SIGHUP reload is not enough here:
# dockerd 20.10 keeps settings whose keys were removed from daemon.json.)
_docker_demo_restart() {
        demo_say "(restarting dockerd: what 'sudo systemctl restart docker' does)"
        dockerd_restart || {
                printf '!! dockerd did not restart\n'
                DEMO_FAILURES=$((DEMO_FAILURES + 1))
                return 1
        }
}

docker_demo_ranges() {
        local saved=$SIM/toolkit.json.saved
        demo_say "" "Ranges: this host has 4 GPUs, so GPUs 5 and 8 do not exist:"
        demo_fails docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal rocm-smi
        demo_say "" "The runtime reads its configuration for every container. Pointed at 8 MI300X in" \
                "CPX mode (sim/profiles/mi300x-cpx-x8.json, 63 partitions), the same command gets 6 of them:"
        cp "$CFG" "$saved" &&
                jq -n --arg r "$HOST_CPX" --arg log "$SIM/runtime.log" \
                        --arg state "$SIM/state" '{root: $r, "state-dir": $state, "log-file": $log}' >"$CFG" &&
                demo_run docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal rocm-smi
        mv "$saved" "$CFG"
}

docker_demo_default_runtime() {
        demo_section "The default runtime (README)" \
                "With amd as Docker's default runtime, docker run needs no --runtime=amd." \
                "(The same --runtime-arg again: the options describe the whole runtime entry.)"
        if [ "$HAVE_AMD" = 0 ]; then
                demo_unavailable "the default runtime demo (needs docker run --runtime=amd)"
                return 0
        fi
        demo_run amd-ctk runtime configure --runtime=docker --set-as-default --config-path "$DOCKERD_CONFIG" \
                --runtime-arg="--amd-config=$CFG" || return 0
        _docker_demo_restart || return 0
        demo_run docker info --format 'default runtime: {{.DefaultRuntime}}'
        demo_run docker run --rm -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal rocm-smi
        demo_say "" "Back to runc as the default:"
        demo_run amd-ctk runtime configure --runtime=docker --unset-as-default --config-path "$DOCKERD_CONFIG" ||
                return 0
        _docker_demo_restart || return 0
        demo_run docker info --format 'default runtime: {{.DefaultRuntime}}'
        demo_say "plain runc ignores the variable:"
        demo_run docker run --rm -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal rocm-smi
}

docker_demo_remove() {
        demo_section "Removing the AMD runtime from Docker (README)" \
                "--remove takes out only what configure added; CDI specs (/etc/cdi) are left alone."
        if [ "$HAVE_AMD" = 0 ]; then
                demo_unavailable "the removal demo (needs the docker configuration)"
                return 0
        fi
        local ids
        ids=$(docker ps -aq)
        if [ -n "$ids" ]; then # a restart would wait 10 s for each running bash to stop
                demo_say "(removing the containers left by the previous sections first)"
                # shellcheck disable=SC2086 # one id per word
                docker rm -f $ids >/dev/null
        fi
        demo_run amd-ctk runtime configure --runtime=docker --remove --config-path "$DOCKERD_CONFIG" || return 0
        demo_run cat "$DOCKERD_CONFIG"
        _docker_demo_restart || return 0
        demo_run docker info --format 'runtimes={{range $k, $v := .Runtimes}}{{$k}} {{end}}'
        demo_fails docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
}
