#!/bin/sh
# Links the launcher (amd-container-runtime) as a static PIE against musl:
#
#   CC=cc MUSL_GCC=musl-gcc sh sim/musl-link.sh OUT OBJECT... [LDFLAG...]
#
# musl-gcc's specs link every program with musl's dynamic loader as its
# interpreter and Scrt1.o as its start: asked for -static-pie, it makes a
# program that needs /lib/ld-musl-*.so.1 (absent from most hosts) or
# crashes.  Here the compiler driver links, with -static-pie and without
# its own start files and libraries, musl's rcrt1.o (which relocates the
# program itself before main), crti.o, the objects, musl's libc.a and the
# compiler's libgcc.a, crtn.o: no interpreter, ASLR, RELRO with LDFLAGs
# -z relro -z now.  musl's directory is where musl-gcc's specs file is.
set -eu
cc=${CC:-cc}
musl=${MUSL_GCC:-musl-gcc}
[ $# -ge 2 ] || { echo "usage: sh sim/musl-link.sh OUT OBJECT... [LDFLAG...]" >&2; exit 2; }
command -v "$musl" >/dev/null ||
        { echo "$musl is missing (the launcher is built with musl): run make deps" >&2; exit 1; }
out=$1
shift
specs=$("$musl" -### -x c /dev/null -o /dev/null 2>&1 | tr ' ' '\n' | sed -n "s/^'-specs=\(.*\)'$/\1/p" | head -n 1)
lib=$(dirname "${specs:-/nonexistent/musl-gcc.specs}")
for f in rcrt1.o crti.o crtn.o libc.a; do
        [ -f "$lib/$f" ] || { echo "musl-link: $lib/$f is missing (musl-gcc names no musl with rcrt1.o): run make deps" >&2; exit 1; }
done
objs="" flags=""
for a; do
        case $a in
        *.o) objs="$objs $a" ;;
        *) flags="$flags $a" ;;
        esac
done
# shellcheck disable=SC2086 # the lists split into their words
exec "$cc" -static-pie -nostdlib $flags -o "$out" "$lib/rcrt1.o" "$lib/crti.o" "$("$cc" -print-file-name=crtbeginS.o)" \
        $objs -Wl,--start-group "$lib/libc.a" "$("$cc" -print-libgcc-file-name)" -Wl,--end-group \
        "$("$cc" -print-file-name=crtendS.o)" "$lib/crtn.o"
