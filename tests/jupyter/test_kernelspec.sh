#!/bin/sh
# test_kernelspec.sh — attn --install-kernel and what Jupyter makes of it: `jupyter kernelspec list`
# shows attn and its Chinese variant, kernel.json starts this attn in signal interrupt mode, the logos
# are PNG and SVG files. Output is TAP. Run through with_kernel.sh (JUPYTER_PATH set).
set -u
. "$(dirname "$0")/../tap.sh"
dir=$JUPYTER_PATH/kernels
list=$(jupyter-kernelspec list 2>&1)
check "jupyter kernelspec list shows attn" sh -c "printf '%s\n' \"\$1\" | grep -Eq '^ +attn +$dir/attn\$'" - "$list"
check "... and attn-zh_cn, its Chinese variant" sh -c "printf '%s\n' \"\$1\" | grep -Eq '^ +attn-zh_cn +$dir/attn-zh_cn\$'" - "$list"
spec() { /usr/bin/python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print($2)" "$1"; }
check "kernel.json: argv starts this attn with --kernel {connection_file}" \
    test "$(spec "$dir/attn/kernel.json" "s['argv']")" = "['$ATTN', '--kernel', '{connection_file}']"
check "kernel.json: language lua, interrupt_mode signal" \
    test "$(spec "$dir/attn/kernel.json" "s['language'], s['interrupt_mode']")" = "lua signal"
check "the Chinese variant sets ATTN_LANG=zh_CN" test "$(spec "$dir/attn-zh_cn/kernel.json" "s['env']")" = "{'ATTN_LANG': 'zh_CN'}"
check "logo-64x64.png is a 64x64 PNG" sh -c "file '$dir/attn/logo-64x64.png' | grep -q 'PNG image data, 64 x 64'"
check "logo-32x32.png is a 32x32 PNG" sh -c "file '$dir/attn/logo-32x32.png' | grep -q 'PNG image data, 32 x 32'"
check "logo-svg.svg is SVG" grep -q '<svg' "$dir/attn/logo-svg.svg"
out=$("$ATTN" --install-kernel --prefix 2>&1)
check "--prefix without a directory is refused" sh -c "printf '%s' \"\$1\" | grep -q \"'--prefix' needs argument\"" - "$out"
kd=$(mktemp -d)
out=$(HOME=$kd/home JUPYTER_DATA_DIR= XDG_DATA_HOME= "$ATTN" --install-kernel --user --prefix "$kd/p" 2>&1)
s=$?
check "--user with --prefix is refused (--user was dropped), nothing written" sh -c \
    "[ $s -eq 1 ] && printf '%s' \"\$1\" | grep -q -- '--user and --prefix do not go together' && [ ! -e '$kd/p' ] && [ ! -e '$kd/home' ]" - "$out"
rm -rf "$kd"
echo "1..$n"
[ "$failed" -eq 0 ]
