"""The text format of attn's PyTorch reference files (tests/data/torch/*.txt), written in one place: every
scripts/torch_reference_*.py, lesson_reference_*.py and gen_*_reference.py imports its lines and its
header from here, so that the files stay readable by the same readers.

Every file is plain text. '#' lines are comments (the header: what the file holds, which torch made it);
every other line is one case:

    <kind> key=value key=value ... : value value ...

float32 values are their exact bit patterns ("0x3e979a80": struct.pack("<f") read back as an unsigned
32-bit integer), so a reader gets the very float PyTorch computed; int64 values are decimal; float64
parameters are Python's float.hex(). Two kinds of line carry a tensor:

    tensor [case=C] name=N shape=2,3 : 0x3f800000 0x40000000 ...   float32 values, row-major
    int64 [case=C] name=N shape=1,6 : 3 4 5 ...                    int64 values (token ids), row-major

The lessons' files (lesson_*.txt, lessons_*.txt) have no case= key and write a 0-d tensor's shape as
empty ("shape= : ..."); the case files of the tests (autograd.txt, training.txt, backward_trace.txt) put
"case name=C key=value ... : -" before their tensors and write a 0-d shape as "-".

The readers:
  src/lua/lesson/reference.lua   read_reference: lesson.reference(file, name) in the lessons
  tests/lua/support.lua          support.reference (any "<kind> key=value : values" file),
                                 support.case_file (the case/tensor/int64 layout)
  tests/c/refdata.h              for_each_case, parse_f32s: the C tests
Tab-separated files (learn.txt, grads.txt, ...) use f32 / f32s for their values and header() / write()
for the rest; support.tab_cases reads them.
"""
import os
import platform
import struct
import subprocess

import torch


# ---- values ------------------------------------------------------------------------------------------

def f32(x):
    """A number as the bit pattern of the float32 nearest to it: '0x3f800000' for 1."""
    return "0x%08x" % struct.unpack("<I", struct.pack("<f", float(x)))[0]


def f32s(t):
    """A tensor's values, row-major, as float32 bit patterns separated by spaces."""
    return " ".join(f32(v) for v in t.detach().reshape(-1).tolist())


def ints(t):
    """An integer tensor's values, row-major, in decimal separated by spaces."""
    return " ".join(str(v) for v in t.reshape(-1).tolist())


def shape_str(shape, scalar=""):
    """'2,3' for the shape [2, 3]; a 0-d tensor's shape is `scalar` ("" in the lessons' files, "-" in the
    case files)."""
    return ",".join(str(s) for s in shape) or scalar


def float_line(keys, t, scalar=""):
    """'tensor KEYS shape=S : bits': the tensor converted to float32, whatever its dtype (ids and masks
    too, where a reader wants them as floats). KEYS is 'name=N' or 'case=C name=N'."""
    t = torch.as_tensor(t).detach().to(torch.float32)
    return "tensor %s shape=%s : %s" % (keys, shape_str(t.shape, scalar), f32s(t))


def int_line(keys, t, scalar=""):
    """'int64 KEYS shape=S : ints': an integer tensor (token ids) in decimal."""
    t = torch.as_tensor(t).detach()
    return "int64 %s shape=%s : %s" % (keys, shape_str(t.shape, scalar), ints(t))


def tensor_line(keys, t, scalar=""):
    """One tensor as a line: int_line for an int64 tensor, float_line for any other."""
    t = torch.as_tensor(t)
    return (int_line if t.dtype == torch.int64 else float_line)(keys, t, scalar)


def case_line(name, **keys):
    """'case name=C key=value ... : -': the line that opens case C of a case file (how it is built)."""
    return "case name=%s %s : -" % (name, " ".join("%s=%s" % kv for kv in keys.items()))


class Lines(list):
    """The lines of one file in the lessons' layout, collected in order: put(name, t) adds a tensor.

    The lessons' scripts pass put (and put_ids) to the helpers that compute their cases."""

    def __init__(self, prefix=""):
        super().__init__()
        self.prefix = prefix  # put in front of every name: "verdict." for lesson_verdict.txt

    def put(self, name, t):
        self.append(tensor_line("name=" + self.prefix + name, t))

    def put_ids(self, name, t):
        """Token ids: an int64 tensor (0-based, as PyTorch counts them)."""
        assert t.dtype == torch.int64
        self.put(name, t)


class CaseLines(list):
    """The lines of a case file (autograd.txt, training.txt, backward_trace.txt), in order: the script appends
    its "case name=C ... : -" lines itself, put(case, name, t) adds a tensor of case C (a 0-d shape as "-")."""

    def put(self, case, name, t):
        self.append(tensor_line("case=%s name=%s" % (case, name), t, scalar="-"))


# ---- headers -----------------------------------------------------------------------------------------

def debian_torch_version():
    """The version of Debian's python3-torch package, or '?' where dpkg does not know it."""
    return subprocess.run(["dpkg-query", "-W", "-f=${Version}", "python3-torch"],
                          capture_output=True, text=True).stdout.strip() or "?"


def cpu_capability():
    """ATen's CPU capability (the vector kernels torch picked: AVX2, AVX512, ...)."""
    if hasattr(torch.backends, "cpu"):
        return torch.backends.cpu.get_cpu_capability()
    lines = [l for l in torch.__config__.show().splitlines() if "CPU capability" in l] or ["?"]
    return lines[0].split(":")[-1].strip()


def header(what):
    """The three comment lines of the test files (tests/data/torch/*.txt but the lessons'): what the file
    holds, the torch build (MKL and the CPU capability change some bits), the format. The second line names
    gen_torch_reference.py, which all these files came from first."""
    mkl = "yes" if torch.backends.mkl.is_available() else "no"
    return ("# %s\n# made by scripts/gen_torch_reference.py with torch %s (Debian python3-torch %s),"
            " Python %s, %s; MKL: %s; CPU capability: %s\n"
            "# format: <kind> key=value ... : values (float32 as bit patterns, float64 as float.hex())\n"
            % (what, torch.__version__, debian_torch_version(), platform.python_version(), platform.machine(),
               mkl, cpu_capability()))


def lesson_header(what, script, int64_note=None):
    """The three comment lines of a lesson's file: what it holds, the script and torch that made it, the
    format (int64_note says how int64 lines are written, where the file has some)."""
    fmt = "tensor name=N shape=S : values (float32 bit patterns, row-major)"
    if int64_note:
        fmt += "; " + int64_note
    return ("# %s\n# made by scripts/%s with torch %s (Debian python3-torch %s), Python %s, %s\n# format: %s\n"
            % (what, script, torch.__version__, debian_torch_version(), platform.python_version(),
               platform.machine(), fmt))


# ---- writing -----------------------------------------------------------------------------------------

def write_file(path, head, lines, quiet=False):
    """Writes head (comment lines, each ending in a newline) and then every line to path. Through a
    temporary file renamed over path: a reader (a test, a lesson) never sees a half-written file."""
    with open(path + ".tmp", "w") as f:
        f.write(head)
        for line in lines:
            f.write(line + "\n")
    os.replace(path + ".tmp", path)
    if not quiet:
        print("wrote %s (%d lines)" % (path, len(lines)))


def write(out_dir, name, what, lines):
    """out_dir/name with header(what) and the lines: the test files' write."""
    write_file(os.path.join(out_dir, name), header(what), lines)


def writer(out_dir):
    """write with out_dir bound: the write(name, what, lines) the gen_* functions are handed."""
    return lambda name, what, lines: write(out_dir, name, what, lines)
