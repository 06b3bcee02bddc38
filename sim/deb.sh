#!/bin/sh
# make deb: builds the two Debian packages from this tree with dpkg-deb:
#   amd-container-toolkit      amd-ctk, amd-container-runtime (+ libexec),
#                              man pages, the default config (a conffile),
#                              the CDI refresh service and its udev rule
#   amd-container-toolkit-sim  amd-ctk-fakefs
# into build/deb/ (DEB_DIR), version DEB_VERSION (default: sim/pkg.sh version,
# the .rpm's too).  Depends come from dpkg-shlibdeps.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
out=${DEB_DIR:-$BUILD/deb}
case $out in /*) ;; *) out=$PWD/$out ;; esac
arch=$(dpkg --print-architecture)
version=${DEB_VERSION:-$(sh sim/pkg.sh version)}
work=$out/work
rm -rf "$work"
# (one version at a time: the engine scenarios install the one there)
rm -f "$out"/amd-container-toolkit_*.deb "$out"/amd-container-toolkit-sim_*.deb
mkdir -p "$work"
sh sim/pkg.sh stage "$work/stage"

# one package's tree: FILE... from the staging tree, plus docs
pkg_tree() { # NAME FILE...
        local name=$1 root=$work/$1 f
        shift
        mkdir -p "$root/DEBIAN" "$root/usr/share/doc/$name"
        for f in "$@"; do
                mkdir -p "$root/$(dirname "$f")"
                cp -a "$work/stage/$f" "$root/$f"
                # programs without debugging symbols (the build tree keeps them), before
                # Installed-Size is counted
                case $f in usr/bin/* | usr/libexec/*) sh packaging/debian/strip-programs "$root/$f" ;; esac
        done
        cp packaging/debian/copyright "$root/usr/share/doc/$name/copyright"
        printf '%s (%s) unstable; urgency=medium\n\n  * Snapshot of the source tree.\n\n -- amd-container-toolkit developers <amd-container-toolkit@lists.debian.invalid>  %s\n' \
                "$name" "$version" "$(date -R -d @"$(sh sim/pkg.sh epoch)")" |
                gzip -9n >"$root/usr/share/doc/$name/changelog.gz"
        find "$root/usr/share/man" -name '*.1' -exec gzip -9n {} + 2>/dev/null || true
}

# the binaries' shared library dependencies, as a Depends line (or nothing)
depends() { # BINARY...
        local d
        mkdir -p "$work/shlibs/debian"
        printf 'Source: amd-container-toolkit\n\nPackage: amd-container-toolkit\nArchitecture: any\n' \
                >"$work/shlibs/debian/control"
        d=$(cd "$work/shlibs" && for b; do readelf -d "$b" 2>/dev/null | grep -q NEEDED && echo "$b"; done |
                xargs -r dpkg-shlibdeps -O 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
        [ -z "$d" ] || printf 'Depends: %s\n' "$d"
}

control() { # TEMPLATE NAME BINARY...
        local tmpl=$1 name=$2 size deps
        shift 2
        size=$(du -sk --exclude=DEBIAN "$work/$name" | cut -f1)
        deps=$(depends "$@")
        sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" \
                -e "s/@DEPENDS@/${deps:+$(printf '%s\\n' "$deps" | sed 's/[&/]/\\&/g')}/" \
                "$tmpl" >"$work/$name/DEBIAN/control"
}

main=amd-container-toolkit
man() { # PATTERN [EXCLUDE]: the staged man pages, as paths
        (cd "$work/stage" && for f in usr/share/man/man1/$1; do
                case $f in */${2:-none}) ;; *) echo "$f" ;; esac
        done)
}
# shellcheck disable=SC2046
pkg_tree $main usr/bin/amd-ctk usr/bin/amd-container-runtime \
        usr/libexec/amd-container-toolkit/amd-container-runtime-full \
        $(man 'amd-c*.1' 'amd-ctk-fakefs*')
mkdir -p "$work/$main/etc/amd-container-toolkit" "$work/$main/lib/systemd/system" "$work/$main/lib/udev/rules.d"
"$work/stage/usr/bin/amd-ctk" --config /nonexistent/config.json config default >"$work/$main/etc/amd-container-toolkit/config.json"
install -m 0644 packaging/debian/amd-cdi-refresh.service "$work/$main/lib/systemd/system/"
install -m 0644 packaging/debian/60-amd-cdi-refresh.rules "$work/$main/lib/udev/rules.d/"
install -m 0755 packaging/debian/postinst packaging/debian/postrm "$work/$main/DEBIAN/"
install -m 0644 packaging/debian/conffiles "$work/$main/DEBIAN/"
control packaging/debian/control.in $main "$work/$main/usr/bin/amd-ctk" "$work/$main/usr/bin/amd-container-runtime" \
        "$work/$main/usr/libexec/amd-container-toolkit/amd-container-runtime-full"

sim=amd-container-toolkit-sim
# shellcheck disable=SC2046
pkg_tree $sim usr/bin/amd-ctk-fakefs $(man 'amd-ctk-fakefs*.1')
control packaging/debian/control-sim.in $sim "$work/$sim/usr/bin/amd-ctk-fakefs"

mkdir -p "$work/$main/usr/share/lintian/overrides"
install -m 0644 packaging/debian/lintian-overrides "$work/$main/usr/share/lintian/overrides/$main"

for name in $main $sim; do
        chmod -R u+rwX,go+rX,go-w "$work/$name"
        dpkg-deb --root-owner-group -Zxz --build "$work/$name" "$out/${name}_${version}_${arch}.deb" >/dev/null
        echo "$out/${name}_${version}_${arch}.deb"
done
