"""Every lesson as a notebook (attn --ipynb), valid under nbformat's validator, then run top to bottom by
`jupyter nbconvert --to notebook --execute` (Jupyter's own runner) with the attn kernel: no cell may
fail, and each code cell's outputs must equal those --ipynb wrote, which come from the terminal's run
of the lesson (lesson/record.lua, as --check runs it). TAP on stdout.
    test_notebooks.py ATTN WORKDIR LESSON..."""
import os, subprocess, sys

import nbformat

from support import check, skip, tap_end

attn, work, lessons = sys.argv[1], sys.argv[2], sys.argv[3:]


def outputs(cell):
    """A cell's outputs with consecutive streams of one name joined (a client may cut a stream anywhere)."""
    out = []
    for o in cell.get("outputs", []):
        if o.output_type == "stream":
            if out and out[-1][0] == "stream" and out[-1][1] == o.name:
                out[-1] = ("stream", o.name, out[-1][2] + o.text)
            else:
                out.append(("stream", o.name, o.text))
        elif o.output_type in ("display_data", "execute_result"):
            out.append((o.output_type, dict(o.data)))
        else:
            out.append((o.output_type, o.get("ename"), o.get("evalue")))
    return out


src_dir, out_dir = os.path.join(work, "written"), os.path.join(work, "executed")
os.makedirs(out_dir, exist_ok=True)
r = subprocess.run([attn, "--ipynb", src_dir] + lessons, capture_output=True, text=True)
check("attn --ipynb writes every lesson's notebook", r.returncode == 0, r.stderr)

runnable = []
for lesson in lessons:
    name = os.path.basename(lesson)[:-4]
    path = os.path.join(src_dir, name + ".ipynb")
    try:
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        ok, why = True, ""
    except Exception as e:  # a missing file, bad JSON, or the validator's complaint
        ok, why = False, e
    check(f"{name}: valid nbformat 4 (nbformat.validate), kernel attn",
          ok and nb.metadata.kernelspec.name == "attn", why)
    if not ok:
        continue
    if nb.metadata.get("attn", {}).get("skipped"):
        # the lesson skipped itself (what it needs, GPT-2's weights, is not on this machine)
        skip(f"{name}: executed by nbconvert", "the lesson skips itself on this machine")
        continue
    runnable.append((name, path, nb))

# two nbconverts, each over half the notebooks (a fresh kernel per notebook), side by side on two cores
halves = [runnable[0::2], runnable[1::2]]
procs = [subprocess.Popen([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--output-dir", out_dir,
                           "--ExecutePreprocessor.timeout=120"] + [p for (_, p, _) in half],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          # a kernel runs in the notebook's folder: lesson.data finds the lessons' data here
                          env=dict(os.environ, ATTN_LESSON_DATA=os.path.abspath("lessons/data")))
         for half in halves if half]
for p in procs:
    _, err = p.communicate()
    if p.returncode != 0:
        print("# nbconvert:", *err.splitlines()[-15:], sep="\n# ")
for name, path, written in runnable:
    out = os.path.join(out_dir, name + ".ipynb")
    if not os.path.exists(out):
        check(f"{name}: executed by nbconvert without an error", False, "no executed notebook (a cell failed)")
        continue
    done = nbformat.read(out, as_version=4)
    errors = [o for c in done.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    check(f"{name}: executed by nbconvert without an error", not errors, errors[:1])
    code = [(a, b) for a, b in zip(written.cells, done.cells) if a.cell_type == "code"]
    # a cell that reads the clock prints times that differ from run to run: run, not compared (the
    # rule of `attn --markdown`'s "output unchecked" blocks)
    clock = [a for a, b in code if "os.clock" in a.source or "os.time" in a.source]
    diff = [(a.source, outputs(a), outputs(b)) for a, b in code if a not in clock and outputs(a) != outputs(b)]
    check(f"{name}: each of its {len(code)} code cells shows what the terminal's run printed"
          + (f" ({len(clock)} reading the clock: not compared)" if clock else ""),
          len(code) > 0 and not diff and len(written.cells) == len(done.cells),
          diff[:1] and f"cell:\n{diff[0][0]}\nwritten:\n{str(diff[0][1])[:800]}\nexecuted:\n{str(diff[0][2])[:800]}")
    svgs = sum(1 for c in done.cells if c.cell_type == "code" for o in c.outputs
               if o.output_type == "display_data" and "image/svg+xml" in o.data)
    if svgs:
        print(f"# {name}: {svgs} figure(s) as SVG (heatmaps, plots)")
tap_end()
