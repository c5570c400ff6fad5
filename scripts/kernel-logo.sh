#!/bin/sh
# Draws the logo of attn's Jupyter kernel (src/cli/logo/): a causal attention matrix, 4 × 4, its
# weights shaded in the YlGnBu scale of the heatmaps (draw/heatmap_svg.lua), the masked cells
# above the diagonal grey, as SVG; then the 32 × 32 and 64 × 64 PNGs Jupyter's kernelspecs want,
# with rsvg-convert (Debian's librsvg2-bin). The files are committed: run this only to redraw them.
#   sh scripts/kernel-logo.sh
set -eu
cd "$(dirname "$0")/.."
out=src/cli/logo
command -v rsvg-convert >/dev/null 2>&1 || sh scripts/install-deps.sh librsvg2-bin
mkdir -p "$out"
# the rows of a causal softmax: row i spreads its weight over the first i tokens, the last the most
{
    echo '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">'
    echo '<rect x="0" y="0" width="64" height="64" rx="10" fill="#ffffff"/>'
    # colours: YlGnBu from light to dark, by the weight's rank in its row
    set -- "#ffffd9" "#c7e9b4" "#41b6c4" "#225ea8" "#081d58"
    for i in 0 1 2 3; do
        for j in 0 1 2 3; do
            x=$((6 + j * 13)); y=$((6 + i * 13))
            if [ "$j" -gt "$i" ]; then
                fill="#bdbdbd"                        # masked: -inf, weight 0
            else
                k=$((4 - i + j)); [ "$k" -gt 4 ] && k=4 # the diagonal darkest
                eval "fill=\${$((k + 1))}"
            fi
            echo "<rect x=\"$x\" y=\"$y\" width=\"12\" height=\"12\" rx=\"2\" fill=\"$fill\"/>"
        done
    done
    echo '</svg>'
} > "$out/logo-svg.svg"
for size in 32 64; do
    rsvg-convert -w "$size" -h "$size" -o "$out/logo-${size}x${size}.png" "$out/logo-svg.svg"
done
ls -l "$out"
