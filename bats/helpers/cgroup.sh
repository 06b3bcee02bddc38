#!/bin/sh
# A cgroup of a test's own for the engines it starts, in every hierarchy of
# the host (each cgroup v1 controller's and the cgroup2 one): the engines
# run in a cgroup namespace rooted there, on cgroup file systems mounted
# afresh in their mount namespace, so whatever cgroups they make (docker's
# /docker, containerd's /default and /k8s.io, a ctr namespace's, podman's
# /libpod_parent) land below it, and removing it removes them all.  The
# cgroup is made below the caller's own cgroup in each hierarchy, and named
# after the host check's run (CTK_HOSTCHECK) so that sim/hoststate.sh knows
# it for one of the run's.
#
#   sh cgroup.sh make FILE TAG       makes ctk-[RUN-]TAG.X (X: random, for
#                                    tests side by side giving one TAG; and
#                                    its leaf init/, for processes: cgroup v2
#                                    lets none into a cgroup whose children
#                                    get controllers) in every hierarchy;
#                                    FILE lists them
#   sh cgroup.sh launch FILE CMD...  CMD in FILE's cgroups, to unshare the
#                                    cgroup namespace rooted there
#   sh cgroup.sh mount FILE DIR host|hybrid|v1|v2 PID
#                                    (in that namespace and a mount namespace
#                                    of its own) the cgroup file systems at DIR:
#                                    the host's v1 hierarchies with or without
#                                    the cgroup2 one below DIR/unified, or the
#                                    cgroup2 one alone at DIR (host: as the
#                                    host has them); then moves PID to init/
#   sh cgroup.sh enter FILE CMD...   CMD in FILE's init/ cgroups, to enter
#                                    that namespace (nsenter --cgroup)
#   sh cgroup.sh remove FILE         kills what is left in them and removes
#                                    them (and FILE); 1 if one remains
set -eu

# the cgroup mounts of this mount namespace: TYPE MOUNTPOINT OPTIONS (the
# super options without rw/ro)
hierarchies() {
        awk '{
                for (i = 7; $i != "-"; i++) ;
                type = $(i + 1); if (type != "cgroup" && type != "cgroup2") next
                n = split($(i + 3), o, ","); opts = ""
                for (k = 1; k <= n; k++) if (o[k] != "rw" && o[k] != "ro") opts = opts (opts == "" ? "" : ",") o[k]
                if (!seen[type " " opts]++) print type, $5, (opts == "" ? "-" : opts)
        }' /proc/self/mountinfo
}

# own TYPE OPTIONS: this process's cgroup in that hierarchy (/proc/self/cgroup)
own() {
        awk -F: -v type="$1" -v opts="$2" '
                type == "cgroup2" { if ($1 == "0") { print $3; exit } next }
                {
                        n = split($2, want, ","); m = split(opts, have, ",")
                        found = 0
                        for (i = 1; i <= n; i++) for (k = 1; k <= m; k++) if (want[i] == have[k]) found++
                        if (n > 0 && found == n) { print $3; exit }
                }' /proc/self/cgroup
}

make_cgroups() {
        file=$1 name=ctk-${CTK_HOSTCHECK:+$CTK_HOSTCHECK-}${2#ctk-}.$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
        : >"$file"
        hierarchies | while read -r type mp opts; do
                base=$mp$(own "$type" "$opts")
                base=${base%/}
                [ -d "$base" ] || continue
                mkdir "$base/$name" "$base/$name/init"
                echo "$base/$name" >>"$file"
                # cpuset (v1): a child has no CPU or memory node until given some
                if [ -e "$base/cpuset.cpus" ] && [ -e "$base/cpuset.mems" ] && [ "$type" = cgroup ]; then
                        for d in "$base/$name" "$base/$name/init"; do
                                cat "$base/cpuset.cpus" >"$d/cpuset.cpus"
                                cat "$base/cpuset.mems" >"$d/cpuset.mems"
                        done
                fi
        done
}

mount_cgroups() {
        dir=$2 layout=$3
        if [ "$layout" = host ]; then
                layout=v2
                ! hierarchies | grep -q '^cgroup ' || layout=hybrid
        fi
        if [ "$layout" = v2 ]; then
                mount -t cgroup2 cgroup2 "$dir"
                # (v2: a process left at the root would keep the engines'
                # cgroups from getting controllers)
                echo "$4" >"$dir/init/cgroup.procs"
                return
        fi
        controllers=" $(awk 'NR > 1 { print $1 }' /proc/cgroups | tr '\n' ' ')"
        # (read before the tmpfs hides the mounts below dir)
        mounts=$(hierarchies | while read -r type mp opts; do
                if [ "$type" = cgroup2 ]; then
                        [ "$layout" = hybrid ] && echo "unified cgroup2 -"
                        continue
                fi
                # a named hierarchy without controllers is mounted with
                # "none" (no controller named means every one)
                none=none
                for o in $(echo "$opts" | tr , ' '); do
                        case $controllers in *" $o "*) none= ;; esac
                done
                case ,$opts, in *,name=*) ;; *) none= ;; esac
                echo "${mp##*/} cgroup ${none:+$none,}$opts"
        done)
        mount -t tmpfs -o mode=0755 cgroup "$dir"
        echo "$mounts" | while read -r name type opts; do
                [ -n "$name" ] || continue
                mkdir "$dir/$name"
                if [ "$opts" = - ]; then
                        mount -t "$type" "$type" "$dir/$name"
                else
                        mount -t "$type" -o "$opts" "$type" "$dir/$name"
                fi
                into_init "$dir/$name" "$4"
        done
}

# into_init DIR PID: PID to a v1 hierarchy's init/.  Where the kernel
# refuses (it has once answered EIO), PID stays at the namespace's root,
# which is the test's cgroup all the same (v1 has no rule against that).
into_init() {
        echo "$2" 2>/dev/null >"$1/init/cgroup.procs" ||
                echo "cgroup.sh: cannot move $2 to $1/init (left at the namespace's root)" >&2
}

remove_cgroups() {
        file=$1
        [ -e "$file" ] || return 0
        left=0
        for tries in 1 2 3 4 5 6 7 8 9 10; do
                left=0
                while read -r d; do
                        [ -d "$d" ] || continue
                        # what is left in it (a test killed before its teardown)
                        find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null || true
                        find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true
                        [ ! -d "$d" ] || left=1
                done <"$file"
                [ $left = 1 ] || break
                # (killed processes leave their cgroup when they have exited)
                sleep 0.1
        done
        if [ $left = 1 ]; then
                while read -r d; do [ ! -d "$d" ] || echo "cgroup $d is still there" >&2; done <"$file"
                return 1
        fi
        rm -f "$file"
}

case ${1:-} in
make) make_cgroups "$2" "$3" ;;
launch | enter)
        file=$2 leaf=
        [ "$1" = launch ] || leaf=/init
        shift 2
        while read -r d; do echo $$ >"$d$leaf/cgroup.procs"; done <"$file"
        exec "$@"
        ;;
mount) mount_cgroups "$2" "$3" "$4" "$5" ;;
remove) remove_cgroups "$2" ;;
*)
        echo "usage: sh cgroup.sh make FILE TAG | launch FILE CMD... | mount FILE DIR LAYOUT PID | enter FILE CMD..." \
                "| remove FILE" >&2
        exit 2
        ;;
esac
