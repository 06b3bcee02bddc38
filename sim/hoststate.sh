#!/bin/sh
# The host-state check around `make check`: the tests may change the build
# tree, /tmp and namespaces they create, and nothing else of the machine.
#
#   sh sim/hoststate.sh snapshot DIR         records the host's state in DIR
#   sh sim/hoststate.sh compare BEFORE AFTER  one line per difference; exit 1 if any
#
# A snapshot holds:
#   files    every file, directory, link, socket... under HOSTSTATE_TREES
#            (default /etc /var /run /usr; /tmp is the tests' own) with its
#            type, mode, owner, size, mtime (ns) and link target; one file
#            system per tree (-xdev: what is mounted below one is a mount)
#   mounts   /proc/self/mountinfo: mount point, root, type, source and
#            propagation (shared, master, ...) of every mount
#   netns    `ip netns list`
#   links    the network interfaces of this network namespace
#   procs    every process but kernel threads, by pid and start time (a pid
#            reused by another process is another process); with its parent,
#            command line, and the value of CTK_HOSTCHECK in its environment
#   units    `systemctl is-enabled` of the engines' units (it reads the
#            enablement symlinks, so it answers without systemd running too),
#            and `systemctl is-active` where systemd runs
#   cgroups  every cgroup directory of every hierarchy (each cgroup v1
#            controller's, and the cgroup2 mount), as HIERARCHY:/PATH
#
# compare reports what differs: a file created, removed or modified (mtime,
# size, mode, owner, type or target), a mount, network namespace or
# interface added or removed, a unit's state changed, a process that is
# new and still running, and a cgroup of the run left behind.  Processes that ended are not differences: the
# machine's own short-lived processes end all the time.  Not counted as new:
# kernel threads, and the check's own process tree (the ancestors of the
# process that takes the after snapshot, and its children).  A new process
# whose environment carries the CTK_HOSTCHECK value of the run (make check
# exports one) is marked "[this run]": a daemon a test left behind; one
# without it was started by someone else on the machine, or by a container,
# which has an environment of its own.  Cgroups come and go with everyone's
# containers: the tests make the cgroups of the engines they start below
# one of their own named ctk-RUN-... (RUN: the value of CTK_HOSTCHECK,
# bats/helpers/cgroup.sh), and a new cgroup is one of the run's when its
# path has such a name; the others are someone else's.
#
# Nothing is excluded: what make deps installs happens before the first
# snapshot, and a test has no business anywhere under these trees.
set -eu

TREES=${HOSTSTATE_TREES:-/etc /var /run /usr}
UNITS="docker.service docker.socket containerd.service podman.service podman.socket podman-restart.service"
LIMIT=${HOSTSTATE_LIMIT:-40} # lines per kind of difference

usage() {
        echo "usage: sh sim/hoststate.sh snapshot DIR | compare BEFORE AFTER" >&2
        exit 2
}

# --- snapshot ---------------------------------------------------------------

snap_files() {
        # shellcheck disable=SC2086 # TREES is a list
        for t in $TREES; do
                [ -e "$t" ] || continue
                find "$t" -xdev -printf '%p\t%y %m %U:%G %s %T@ %l\n' 2>/dev/null || true
        done | LC_ALL=C sort
}

# mountinfo: ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTIONS
snap_mounts() {
        awk '{
                prop = ""
                for (i = 7; $i != "-"; i++) {
                        p = $i; sub(/:.*/, "", p)
                        prop = prop (prop == "" ? "" : ",") p
                }
                if (prop == "") prop = "private"
                print $5 "\t" $(i + 1) " " $(i + 2) " root=" $4 " " prop
        }' /proc/self/mountinfo | LC_ALL=C sort
}

snap_netns() {
        ip netns list 2>/dev/null | awk '{ print $1 }' | LC_ALL=C sort
}

snap_links() {
        ip -o link show 2>/dev/null | awk -F': ' '{ n = $2; sub(/@.*/, "", n); split($3, a, "link/"); split(a[2], t, " ");
                                                    print n "\t" t[1] }' | LC_ALL=C sort
}

# PID STARTTIME PPID SELF MARK STARTED CMDLINE (tab-separated)
snap_procs() {
        self=$1
        btime=$(awk '$1 == "btime" { print $2 }' /proc/stat)
        hz=$(getconf CLK_TCK)
        marks=$(grep -zsH '^CTK_HOSTCHECK=' /proc/[0-9]*/environ | tr '\0' '\n' |
                sed -n 's|^/proc/\([0-9]*\)/environ:CTK_HOSTCHECK=|\1 |p') || true
        for d in /proc/[0-9]*; do
                stat=$(cat "$d/stat" 2>/dev/null) || continue
                cmd=$(tr '\0\n\t' '   ' <"$d/cmdline" 2>/dev/null) || continue
                printf '%s\t%s\n' "$stat" "$cmd"
        done | awk -F'\t' -v btime="$btime" -v hz="$hz" -v self="$self" -v marks="$marks" '
                BEGIN {
                        n = split(marks, m, "\n")
                        for (i = 1; i <= n; i++) { split(m[i], kv, " "); mark[kv[1]] = kv[2] }
                }
                {
                        stat = $1; cmd = $2
                        pid = stat; sub(/ .*/, "", pid)
                        comm = stat; sub(/^[^(]*\(/, "", comm); sub(/\)[^)]*$/, "", comm)
                        rest = stat; sub(/.*\) /, "", rest)
                        split(rest, f, " ") # f[1] = state (field 3), f[2] = ppid, f[7] = flags, f[20] = starttime
                        if (int(f[7] / 2097152) % 2 == 1) next # PF_KTHREAD
                        if (pid == 2 || f[2] == 2) next
                        ppid[pid] = f[2]; start[pid] = f[20]; line[pid] = (cmd == "" ? "[" comm "]" : cmd)
                }
                END {
                        # the check itself: the ancestors of this snapshot and its descendants
                        for (p = self; p != "" && p != 0; p = ppid[p]) own[p] = 1
                        for (p in ppid)
                                for (q = p; q != "" && q != 0 && q != 1; q = ppid[q]) if (q == self) { own[p] = 1; break }
                        for (p in ppid) {
                                t = strftime("%Y-%m-%d %H:%M:%S", btime + int(start[p] / hz))
                                sub(/ +$/, "", line[p])
                                printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p, start[p], ppid[p], (p in own) ? "self" : "-",
                                        (p in mark) ? mark[p] : "-", t, line[p]
                        }
                }' | LC_ALL=C sort -n
}

snap_units() {
        command -v systemctl >/dev/null || return 0
        active=0
        [ ! -d /run/systemd/system ] || active=1
        for u in $UNITS; do
                e=$(systemctl is-enabled "$u" 2>/dev/null) || true
                a=-
                [ $active = 0 ] || a=$(systemctl is-active "$u" 2>/dev/null) || true
                printf '%s\tenabled=%s active=%s\n' "$u" "${e:-unknown}" "${a:-unknown}"
        done
}

# HIERARCHY:/PATH of every cgroup (HIERARCHY: the v1 controllers or name,
# "cgroup2")
snap_cgroups() {
        awk '{
                for (i = 7; $i != "-"; i++) ;
                type = $(i + 1); if (type != "cgroup" && type != "cgroup2") next
                n = split($(i + 3), o, ","); key = ""
                for (k = 1; k <= n; k++) if (o[k] != "rw" && o[k] != "ro" && o[k] != "xattr" && o[k] !~ /^release_agent=/ && \
                                                 o[k] != "nsdelegate" && o[k] != "memory_recursiveprot")
                        key = key (key == "" ? "" : ",") o[k]
                if (type == "cgroup2") key = "cgroup2"
                if (!seen[key]++) print key, $5
        }' /proc/self/mountinfo | while read -r key mp; do
                find "$mp" -mindepth 1 -type d -printf "$key:/%P\n" 2>/dev/null || true
        done | LC_ALL=C sort
}

snapshot() {
        dir=$1
        mkdir -p "$dir"
        snap_files >"$dir/files"
        snap_mounts >"$dir/mounts"
        snap_netns >"$dir/netns"
        snap_links >"$dir/links"
        snap_units >"$dir/units"
        snap_cgroups >"$dir/cgroups"
        snap_procs $$ >"$dir/procs"
        printf 'run=%s\ntrees=%s\n' "${CTK_HOSTCHECK:--}" "$TREES" >"$dir/meta"
}

# --- compare ----------------------------------------------------------------

# limit KIND: the first LIMIT lines of stdin, then how many more there were
limit() {
        awk -v max="$LIMIT" -v kind="$1" 'NR <= max { print } END { if (NR > max) print "  ... and " NR - max " more " kind }'
}

cmp_files() {
        awk -F'\t' '
                function kind(t) { return t == "d" ? "directory" : t == "l" ? "symlink" : t == "s" ? "socket" : \
                                           t == "p" ? "fifo" : t == "c" || t == "b" ? "device node" : "file" }
                function parent(p) { sub(/\/[^\/]*$/, "", p); return p }
                NR == FNR { before[$1] = $2; next }
                {
                        after[$1] = $2
                        if (!($1 in before)) created[$1] = 1
                        else if (before[$1] != $2) changed[$1] = 1
                }
                END {
                        for (p in before) if (!(p in after)) removed[p] = 1
                        # an entry created or removed below a directory changes the directory: only the entry counts
                        for (p in created) touched[parent(p)] = 1
                        for (p in removed) touched[parent(p)] = 1
                        for (p in created) {
                                for (q = parent(p); q != ""; q = parent(q)) if (q in created) { below[q]++; break }
                                if (q == "") { split(after[p], a, " "); top_c[p] = kind(a[1]) }
                        }
                        for (p in removed) {
                                for (q = parent(p); q != ""; q = parent(q)) if (q in removed) { below_r[q]++; break }
                                if (q == "") { split(before[p], b, " "); top_r[p] = kind(b[1]) }
                        }
                        for (p in top_c) printf "%s created: %s%s\n", top_c[p], p, below[p] ? " (" below[p] " entries below)" : ""
                        for (p in top_r) printf "%s removed: %s%s\n", top_r[p], p, below_r[p] ? " (" below_r[p] " entries below)" : ""
                        for (p in changed) {
                                split(before[p], b, " "); split(after[p], a, " ")
                                if (b[1] == "d" && a[1] == "d" && b[2] == a[2] && b[3] == a[3] && (p in touched)) continue
                                what = ""
                                if (b[1] != a[1]) what = what ", was a " kind(b[1])
                                if (b[2] != a[2]) what = what ", mode " b[2] " -> " a[2]
                                if (b[3] != a[3]) what = what ", owner " b[3] " -> " a[3]
                                if (b[4] != a[4] && a[1] != "d") what = what ", size " b[4] " -> " a[4]
                                if (b[6] != a[6]) what = what ", target " b[6] " -> " a[6]
                                if (b[5] != a[5]) what = what ", modified " strftime("%H:%M:%S", a[5])
                                if (a[1] == "d" && !(p in touched) && b[5] != a[5]) what = what ", entries created and removed again"
                                sub(/^, /, "", what)
                                printf "%s modified: %s (%s)\n", kind(a[1]), p, what
                        }
                }' "$1/files" "$2/files" | LC_ALL=C sort -k3 | limit "files"
}

# added/removed lines of a sorted list, as "WHAT added: LINE"
cmp_list() {
        local what=$1 lb=$2 la=$3
        LC_ALL=C comm -13 "$lb" "$la" | sed "s/^/$what added: /; s/\t\(.*\)/ (\1)/" | limit "${what}s"
        LC_ALL=C comm -23 "$lb" "$la" | sed "s/^/$what removed: /; s/\t\(.*\)/ (\1)/" | limit "${what}s"
}

cmp_units() {
        awk -F'\t' 'NR == FNR { before[$1] = $2; next }
                    ($1 in before) && before[$1] != $2 { print "service " $1 ": " before[$1] " -> " $2 }' "$1/units" "$2/units"
}

# the cgroups of the run (a component ctk-RUN-...) created and still there
cmp_cgroups() {
        local run
        run=$(sed -n 's/^run=//p' "$2/meta")
        [ "$run" != - ] || return 0
        # one line per cgroup of the run, with the hierarchies it is in and
        # how many below it
        LC_ALL=C comm -13 "$1/cgroups" "$2/cgroups" | awk -v mark="/ctk-$run-" '
                (i = index($0, mark)) {
                        rest = substr($0, i + 1); name = rest; sub(/\/.*/, "", name)
                        h = $0; sub(/:.*/, "", h)
                        if (rest == name) { where[name] = where[name] (where[name] == "" ? "" : ", ") h; n[name]++ }
                        else below[name]++
                }
                END {
                        for (c in below) if (!(c in n)) n[c] = 0
                        for (c in n)
                                printf "cgroup left: %s (in %s%s)\n", c, n[c] ? where[c] : "cgroups made before the check", \
                                        below[c] ? "; " below[c] " below it" : ""
                }' | LC_ALL=C sort | limit "cgroups"
}

cmp_procs() {
        local run
        run=$(sed -n 's/^run=//p' "$2/meta")
        awk -F'\t' -v run="$run" '
                NR == FNR { seen[$1 " " $2] = 1; next }
                {
                        ppid[$1] = $3; own[$1] = ($4 == "self"); started[$1] = $6; line[$1] = $7
                        new[$1] = !(($1 " " $2) in seen); tag[$1] = ($5 != "-" && $5 == run) ? " [this run]" : ""
                }
                END {
                        for (p in new) {
                                if (!new[p] || own[p]) continue
                                # the nearest ancestor that ran before the check
                                for (q = ppid[p]; (q in new) && new[q] && q != 1; q = ppid[q]) ;
                                if ((q in new) && q != 1 && !own[q]) { # (another session: grouped)
                                        if (!(q in other)) first[q] = p " " line[p]
                                        other[q]++
                                        continue
                                }
                                printf "process %s (parent %s, started %s)%s: %s\n", p, ppid[p], started[p], tag[p], line[p]
                        }
                        for (q in other)
                                printf "process %s (%s), not the check'"'"'s and running before it: %d new below it, e.g. %s\n", \
                                        q, line[q], other[q], first[q]
                }' "$1/procs" "$2/procs" | LC_ALL=C sort | limit "processes"
}

compare() {
        b=$1 a=$2
        for f in files mounts netns links procs units cgroups meta; do
                [ -f "$b/$f" ] && [ -f "$a/$f" ] || {
                        echo "hoststate: $b or $a is not a complete snapshot (no $f)" >&2
                        exit 2
                }
        done
        out=$({
                cmp_files "$b" "$a"
                cmp_list mount "$b/mounts" "$a/mounts"
                cmp_list "network namespace" "$b/netns" "$a/netns"
                cmp_list interface "$b/links" "$a/links"
                cmp_units "$b" "$a"
                cmp_cgroups "$b" "$a"
                cmp_procs "$b" "$a"
        })
        [ -n "$out" ] || exit 0
        printf '%s\n' "$out"
        exit 1
}

case "${1:-}" in
snapshot) [ $# -eq 2 ] || usage; snapshot "$2" ;;
compare) [ $# -eq 3 ] || usage; compare "$2" "$3" ;;
*) usage ;;
esac
