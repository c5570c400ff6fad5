"""What the Python tests of tests/jupyter share: their TAP output (check, skip, tap_end, as in
tests/tap.sh; tests/run.sh counts the "ok" and "not ok" lines), and for those that drive the kernel
through jupyter_client (test_protocol.py, test_plots.py) running code in it and sorting what comes back,
and what the REPL prints for the same code, their expected value. Imported from the test's own folder
(Python puts it first on sys.path)."""
import subprocess
import sys

_count = 0
_failed = 0


def check(desc, cond, diag=""):
    """One TAP result: ok when cond holds; otherwise not ok, with diag's first lines as comments."""
    global _count, _failed
    _count += 1
    if cond:
        print(f"ok {_count} - {desc}")
    else:
        _failed += 1
        print(f"not ok {_count} - {desc}")
        for line in str(diag).splitlines()[:25]:
            print(f"# {line}")
    sys.stdout.flush()


def skip(desc, reason):
    """One TAP result that is a skip: ok, with the reason after # SKIP."""
    global _count
    _count += 1
    print(f"ok {_count} - {desc} # SKIP {reason}")
    sys.stdout.flush()


def tap_end():
    """The plan line, then the exit: status 1 when a check failed."""
    print(f"1..{_count}")
    sys.exit(1 if _failed else 0)


def repl_prints(attn, code):
    """What attn -i prints for code on stdin (the REPL reading a pipe, line by line)."""
    return subprocess.run([attn, "-i"], input=code + "\n", capture_output=True, text=True, timeout=30).stdout


def run(kc, code, timeout=30, **kw):
    """Executes code; returns (reply, [(msg_type, content), ...] from iopub for this request)."""
    out = []
    reply = kc.execute_interactive(code, timeout=timeout,
                                   output_hook=lambda m: out.append((m["msg_type"], m["content"])), **kw)
    return reply, out


def of_type(out, t):
    """The contents of the messages of type t in run's output."""
    return [c for (mt, c) in out if mt == t]


def stdout_of(out):
    """All that run's output wrote on stdout, joined."""
    return "".join(c["text"] for c in of_type(out, "stream") if c["name"] == "stdout")
