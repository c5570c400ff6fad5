"""attention.plot in a notebook cell (attn --kernel, driven by jupyter_client as test_protocol.py does): a
plot printed in a cell, and a plot that is a cell's value, arrive as image/svg+xml (draw/plot_svg.lua)
with the terminal's drawing as the text/plain fallback; the SVG has a group per series and a marker per
point; other output in the cell stays text around it; an error names attention.plot. Expected values:
what the REPL prints for the same code (./attn -i on a pipe). TAP on stdout.
    test_plots.py ATTN    (with JUPYTER_PATH holding attn's kernelspec: tests/jupyter/with_kernel.sh)"""
import functools, re, sys

import jupyter_client

import support
from support import check, of_type, run, stdout_of, tap_end

ATTN = sys.argv[1]
repl_prints = functools.partial(support.repl_prints, ATTN)  # what attn -i prints for code


def series(svg):
    """[(name, points, number of markers)] of each <g class="series"> in the SVG."""
    groups = re.findall(r'<g class="series" data-name="([^"]*)" data-points="(\d+)"[^>]*>(.*?)</g>', svg, re.S)
    return [(name, int(points), len(re.findall(r'class="marker"', body))) for name, points, body in groups]


PLOT = ('attention.plot{x = {3, 64, 768, 4096}, logx = true, xlabel = "d_k", ylabel = "norm", '
        'series = {{"raw", {0.96, 0.81, 0.23, 0.03}}, {"<scaled>", {1.2, 1.1, 1.0, 0.9}}}}')

km, kc = jupyter_client.manager.start_new_kernel(kernel_name="attn")
try:
    terminal = repl_prints("print(" + PLOT + ")")
    reply, out = run(kc, "print('before')\nprint(" + PLOT + ")\nprint('after')")
    dd = of_type(out, "display_data")
    check("a printed plot: one display_data, image/svg+xml with a text/plain fallback",
          reply["content"]["status"] == "ok" and len(dd) == 1 and set(dd[0]["data"]) == {"image/svg+xml", "text/plain"}, out)
    svg = dd[0]["data"]["image/svg+xml"] if dd else ""
    check("its SVG: a plot with two series, a marker for each of the 4 points",
          svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" class="plot"') and svg.endswith("</svg>")
          and series(svg) == [("raw", 4, 4), ("&lt;scaled&gt;", 4, 4)], svg[:400])
    check("its SVG: the axes' labels, no script, the series name <scaled> escaped",
          ">d_k (log scale)</text>" in svg and ">norm</text>" in svg and "<script" not in svg and "<scaled>" not in svg, svg[:400])
    check("its text/plain: the terminal's drawing, as the REPL prints it",
          dd and dd[0]["data"]["text/plain"] + "\n" == terminal, (dd and dd[0]["data"]["text/plain"], terminal))
    check("the text printed around it stays text, in order: before, the picture, after",
          [mt for (mt, _) in out if mt in ("stream", "display_data")] == ["stream", "display_data", "stream"]
          and stdout_of(out) == "before\nafter\n", out)

    reply, out = run(kc, PLOT)
    res = of_type(out, "execute_result")
    check("a plot as a cell's value: the execute_result is image/svg+xml with the REPL's text as text/plain",
          len(res) == 1 and series(res[0]["data"].get("image/svg+xml", "")) == [("raw", 4, 4), ("&lt;scaled&gt;", 4, 4)]
          and res[0]["data"]["text/plain"] + "\n" == repl_prints(PLOT) and not of_type(out, "display_data"), out)

    reply, out = run(kc, "s = " + PLOT + "\n#s > 0")
    res = of_type(out, "execute_result")
    check("a plot kept in a variable is its text (a string), not a picture, until it is shown",
          len(res) == 1 and res[0]["data"] == {"text/plain": "true"} and not of_type(out, "display_data"), out)
    reply, out = run(kc, "print(s)")
    dd = of_type(out, "display_data")
    check("printed in a later cell, it is the picture",
          len(dd) == 1 and series(dd[0]["data"]["image/svg+xml"]) == [("raw", 4, 4), ("&lt;scaled&gt;", 4, 4)]
          and dd[0]["data"]["text/plain"] + "\n" == terminal and stdout_of(out) == "", out)
    reply, out = run(kc, "print(s:sub(1, -2))")
    check("its text but the last character is text, not a picture",
          stdout_of(out) == terminal[:-2] + "\n" and not of_type(out, "display_data"), out)

    reply, out = run(kc, "attention.plot{x = {1, 2}, series = {{'a', {1}}}}")
    e = reply["content"]
    check("an error names attention.plot, as at the prompt",
          e["status"] == "error" and "attention.plot: series[1] has 1 numbers but x has 2" in e["evalue"], e)
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)
    kc = km = None  # closed now, not by __del__ at the interpreter's exit (when logging is gone)
tap_end()
