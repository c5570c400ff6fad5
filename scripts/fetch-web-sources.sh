#!/bin/sh
# Fetches and unpacks the Debian source packages of the C libraries the WebAssembly build compiles with
# emcc (`make web`): Lua 5.4, cJSON, PCRE2, utf8proc, cmark, and three functions of glibc's libm. The sources come from Debian's mirror through
# `apt-get source`, with a deb-src list, apt's state and the downloads all under DIR, so the system's apt
# configuration is left untouched; nothing third-party is ever copied into the repository.
#   sh scripts/fetch-web-sources.sh build/web-src
# Leaves DIR/lua5.4, DIR/cjson, DIR/pcre2, DIR/utf8proc, DIR/cmark (each the unpacked tree), DIR/glibc (three
# files and the headers they need), and DIR/.fetched when all are there; does nothing when that exists.
set -eu
dir=$1
# (.fetched alone is not enough: a build/ made before a part was added to this script lacks that part)
[ -f "$dir/.fetched" ] && [ -f "$dir/glibc/s_tanhf.c" ] && [ -f "$dir/glibc/s_erff.c" ] && exit 0
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/apt/sources.list.d"
dir=$(cd "$dir" && pwd)

# The mirror and suite the machine's own apt uses (its deb entries), as deb-src; Debian's by default.
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || codename=bookworm
uri=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1 | sed 's/^URIs: *//; s/ .*//')
[ -n "$uri" ] || uri=$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) .*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$uri" ] || uri=http://deb.debian.org/debian
# signed by Debian's archive keys where the machine keeps them apart (Debian); else apt's trusted keys
signed=""
[ -f /usr/share/keyrings/debian-archive-keyring.gpg ] && signed="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
echo "deb-src $signed$uri $codename main" > "$dir/apt/sources.list"

apt_opts="-o Dir::Etc::SourceList=$dir/apt/sources.list -o Dir::Etc::SourceParts=$dir/apt/sources.list.d
 -o Dir::State::Lists=$dir/apt/lists -o Dir::Cache::Archives=$dir/apt/archives -o Debug::NoLocking=1
 -o APT::Sandbox::User=root"
# shellcheck disable=SC2086  # one word per option
apt-get $apt_opts -q update >/dev/null
cd "$dir"
# source package names: lua5.4, cjson (libcjson), pcre2 (libpcre2-8), utf8proc, cmark (libcmark)
for pkg in lua5.4 cjson pcre2 utf8proc cmark; do
    rm -rf "$pkg" "$pkg"-[0-9]*
    # shellcheck disable=SC2086
    apt-get $apt_opts -q source "$pkg" >/dev/null
    mv "$(ls -d "$pkg"-[0-9]* | head -n 1)" "$pkg"
done

# glibc's tanhf, erff and expm1f (flt-32, fdlibm's): PyTorch's scalar lambdas call the C library's tanhf and
# erff (src/core/activation.c's gelu_tanh_s, gelu_s), so attn's bits are glibc's; emscripten's musl computes
# other bits (tanhf differs on about 3% of floats, erff on 0.2%; expf, logf and powf agree). Only these three
# files of the upstream tarball are taken, checked to be untouched by Debian's patches, and compiled with the
# small headers below in place of glibc's internal ones (src/web/web.mk).
rm -rf glibc glibc-[0-9]* debian
# shellcheck disable=SC2086
apt-get $apt_opts -q source --download-only glibc >/dev/null
flt32=sysdeps/ieee754/flt-32
tar xJf glibc_*.orig.tar.xz --wildcards "glibc-*/$flt32/s_tanhf.c" "glibc-*/$flt32/s_erff.c" "glibc-*/$flt32/s_expm1f.c"
tar xJf glibc_*.debian.tar.xz debian/patches
if grep -rlE "$flt32/s_(tanhf|erff|expm1f)\.c" debian/patches; then
    echo "fetch-web-sources: Debian's glibc patches these files; apply them before using them" >&2
    exit 1
fi
mkdir -p glibc/include
mv glibc-*/$flt32/s_tanhf.c glibc-*/$flt32/s_erff.c glibc-*/$flt32/s_expm1f.c glibc/
rm -rf glibc-[0-9]* debian
cat > glibc/include/math_private.h <<'H'
#include <errno.h>
#include <stdint.h>
#include <string.h>
#define GET_FLOAT_WORD(i, d) do { float f_ = (d); uint32_t u_; memcpy(&u_, &f_, 4); (i) = u_; } while (0)
#define SET_FLOAT_WORD(d, i) do { uint32_t u_ = (i); float f_; memcpy(&f_, &u_, 4); (d) = f_; } while (0)
#define __set_errno(e) (errno = (e))
H
# the floating-point exceptions glibc raises on purpose do not change a result
echo '#define math_check_force_underflow(x) ((void)0)' > glibc/include/math-underflow.h
printf '#define math_force_eval(x) ((void)(x))\n#define math_opt_barrier(x) (x)\n' > glibc/include/math-barriers.h
echo '#define math_narrow_eval(x) (x)' > glibc/include/math-narrow-eval.h
echo '#define libm_alias_float(from, to)' > glibc/include/libm-alias-float.h
echo '#define FIX_INT_FP_CONVERT_ZERO 0' > glibc/include/fix-int-fp-convert-zero.h
rm -f ./*.dsc ./*.tar.* ./*.diff.gz

# cmark's build writes three small headers with CMake; these are the same ones, for emcc without CMake.
version=$(sed -n 's/^project(cmark VERSION \([0-9.]*\)).*/\1/p' cmark/CMakeLists.txt)
[ -n "$version" ] || version=0.30.2
major=${version%%.*}; rest=${version#*.}; minor=${rest%%.*}; patch=${rest#*.}
cat > cmark/src/cmark_version.h <<H
#ifndef CMARK_VERSION_H
#define CMARK_VERSION_H
#define CMARK_VERSION ((${major} << 16) | (${minor} << 8) | ${patch})
#define CMARK_VERSION_STRING "${version}"
#endif
H
cat > cmark/src/cmark_export.h <<'H'
#ifndef CMARK_EXPORT_H
#define CMARK_EXPORT_H
#define CMARK_EXPORT
#define CMARK_NO_EXPORT
#endif
H
cat > cmark/src/config.h <<'H'
#ifndef CMARK_CONFIG_H
#define CMARK_CONFIG_H
#include <stdbool.h>
#define HAVE_STDBOOL_H
#define HAVE___BUILTIN_EXPECT
#define HAVE___ATTRIBUTE__
#define CMARK_ATTRIBUTE(list) __attribute__ (list)
#define CMARK_INLINE inline
#endif
H
# Debian's Lua names its C-module folders by the multiarch triplet, in a header its build writes.
cat > lua5.4/src/lua5.4-deb-multiarch.h <<'H'
#define DEB_HOST_MULTIARCH "wasm32-emscripten"
H
# PCRE2's generic configuration and character tables, as its README says for builds without configure.
cp pcre2/src/config.h.generic pcre2/src/config.h
cp pcre2/src/pcre2.h.generic pcre2/src/pcre2.h
cp pcre2/src/pcre2_chartables.c.dist pcre2/src/pcre2_chartables.c
touch .fetched
