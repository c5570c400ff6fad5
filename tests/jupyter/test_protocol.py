"""The kernel (attn --kernel) driven by jupyter_client, Jupyter's own client library: every message type
the kernel handles, signatures, interrupts, and what a hostile or careless client does (tests/jupyter/).
TAP on stdout. Run by tests/jupyter/test_jupyter.sh with JUPYTER_PATH pointing at a kernelspec of the
attn under test. Expected values: what the REPL prints for the same input (./attn run on a pipe), the
help text of `?torch.softmax` (./attn), and the protocol's own rules (5.3)."""
import functools, json, os, subprocess, sys, time, uuid

import jupyter_client
import zmq
from jupyter_client.session import Session

import support
from support import check, of_type, run, stdout_of, tap_end

ATTN = sys.argv[1]
repl_prints = functools.partial(support.repl_prints, ATTN)  # what attn -i prints for code


ctx = zmq.Context.instance()
km, kc = jupyter_client.manager.start_new_kernel(kernel_name="attn")
pid = km.provisioner.process.pid if km.provisioner else km.kernel.pid
try:
    # ---- kernel_info ----
    info = kc.kernel_info(reply=True, timeout=10)["content"]
    li = info["language_info"]
    check("kernel_info: protocol 5.3, language lua 5.4, lexer and mode lua",
          info["protocol_version"] == "5.3" and li["name"] == "lua" and li["version"] == "5.4"
          and li["pygments_lexer"] == "lua" and li["codemirror_mode"] == "lua", info)
    check("kernel_info: attn's banner", info["banner"].startswith("attn ") and "?name" in info["banner"], info["banner"])

    # ---- execute ----
    reply, out = run(kc, "x = torch.tensor{{1, 2}, {3, 4}} * 0.5")
    c1 = reply["content"]["execution_count"]
    check("execute: a statement replies ok with no result", reply["content"]["status"] == "ok" and not of_type(out, "execute_result"), out)
    reply, out = run(kc, "x")
    res = of_type(out, "execute_result")
    check("execute: a tensor's execute_result is text/plain exactly as the REPL prints it",
          len(res) == 1 and res[0]["data"]["text/plain"] + "\n" == repl_prints("x = torch.tensor{{1, 2}, {3, 4}} * 0.5\nx"),
          (res, repl_prints("x = torch.tensor{{1, 2}, {3, 4}} * 0.5\nx")))
    check("execute: execution counts go up by one per cell", reply["content"]["execution_count"] == c1 + 1
          and res[0]["execution_count"] == c1 + 1, reply["content"])
    check("execute: execute_input echoes the code", of_type(out, "execute_input")[0]["code"] == "x", out)
    reply, out = run(kc, "_")
    check("execute: _ is the last result", of_type(out, "execute_result")[0]["data"]["text/plain"] == res[0]["data"]["text/plain"], out)
    reply, out = run(kc, "print('a', 1); io.write('b\\n'); io.stdout:write('c\\n'); io.stderr:write('oops\\n')")
    err = "".join(c["text"] for c in of_type(out, "stream") if c["name"] == "stderr")
    check("execute: print, io.write and io.stdout:write reach the stdout stream, in order", stdout_of(out) == "a\t1\nb\nc\n", out)
    check("execute: io.stderr reaches the stderr stream", err == "oops\n", out)
    # PyTorch's UserWarning (F.mse_loss of [3] and [3, 1]) where ipykernel shows it: the stderr stream, with
    # the cell's line; the cell's value is its own, and a second line that warns in the cell warns again
    reply, out = run(kc, "a = torch.tensor{1.0, 2, 3}\nb = torch.tensor{{1.0}, {2}, {4}}\n"
                         "l = nn.functional.mse_loss(a, b)\nl = nn.functional.mse_loss(a, b)")
    err = "".join(c["text"] for c in of_type(out, "stream") if c["name"] == "stderr")
    warning = ("UserWarning: Using a target size (torch.Size([3, 1])) that is different to the input size "
               "(torch.Size([3])). This will likely lead to incorrect results due to broadcasting. "
               "Please ensure they have the same size.\n")
    n = reply["content"]["execution_count"]
    check("execute: a UserWarning reaches the stderr stream, naming the cell's lines, once per line",
          err == "In[%d]:3: %sIn[%d]:4: %s" % (n, warning, n, warning) and stdout_of(out) == "", out)
    reply, out = run(kc, "local y = 41\ny + 1")
    check("execute: a top-level local stays for the next line, as at the prompt",
          of_type(out, "execute_result")[0]["data"]["text/plain"] == "42", out)
    reply, out = run(kc, "t = {1, 'two', {3}}\nt")
    check("execute: a table as the REPL shows it", of_type(out, "execute_result")[0]["data"]["text/plain"] == repl_prints("t = {1, 'two', {3}}\nt").rstrip("\n"), out)
    reply, out = run(kc, "1 + 1", silent=True)
    check("execute: silent sends no output and does not count", not of_type(out, "execute_result") and not of_type(out, "execute_input"), out)

    # ---- errors ----
    reply, out = run(kc, "a = 1\nb = nil + 1\nc = 3")
    e = reply["content"]
    count = e["execution_count"]
    check("error: the reply says error and names the cell and the user's line",
          e["status"] == "error" and e["evalue"].startswith(f"In[{count}]:2: attempt to perform arithmetic on a nil value"), e)
    check("error: an error message on iopub with the traceback", of_type(out, "error") and of_type(out, "error")[0]["traceback"][0].startswith("error: "), out)
    reply, out = run(kc, "torch.ones(2, 3):matmul(torch.ones(2, 3))")
    check("error: attn's own error message, as the REPL's", reply["content"]["evalue"] in repl_prints("torch.ones(2, 3):matmul(torch.ones(2, 3))") or "matmul" in reply["content"]["evalue"], reply["content"])
    reply, out = run(kc, "os.exit(3)")
    check("error: os.exit stops the cell, not the kernel", reply["content"]["status"] == "error" and km.is_alive(), reply["content"])

    # Run All sends every cell at once: after one fails, the cells queued behind it are aborted
    # (the first cell runs 0.3 s, so that the others are surely waiting when the second fails)
    ids = [kc.execute(c) for c in ["queued = 0; local t0 = os.clock(); while os.clock() - t0 < 0.3 do end",
                                   "error('first')", "queued = 1", "queued = 2"]]
    replies = [kc._recv_reply(i, timeout=30)["content"]["status"] for i in ids]
    reply, out = run(kc, "queued")
    check("error: the cells queued behind a failed one are aborted, not run (stop_on_error)",
          replies == ["ok", "error", "aborted", "aborted"] and of_type(out, "execute_result")[0]["data"]["text/plain"] == "0",
          (replies, out))
    # a cell sent on the control channel that fails holds the shell's queue too: what waited there is
    # answered (a kernel_info as usual, a cell "aborted"); it was held unanswered until some later failure,
    # so a client waited for ever (scripts/fuzz_kernel.py found it). The first cell keeps the kernel busy
    # 0.3 s, so that the control cell and the two shell requests are all waiting when it ends.
    busy = kc.execute("local t0 = os.clock(); while os.clock() - t0 < 0.3 do end")
    ctl = kc.session.msg("execute_request", {"code": "error('on control')", "silent": False, "store_history": True,
                                             "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
    time.sleep(0.05)
    kc.control_channel.send(ctl)
    info_id = kc.kernel_info()
    cell_id = kc.execute("held = 1")
    kc._recv_reply(busy, timeout=30)
    try:
        statuses = [kc._recv_reply(info_id, timeout=15)["content"]["status"],
                    kc._recv_reply(cell_id, timeout=15)["content"]["status"]]
    except Exception as e:   # the queue's Empty: no reply
        statuses = type(e).__name__
    check("error: after a failed cell on control, the requests waiting on the shell are answered", 
          statuses == ["ok", "aborted"], statuses)
    # a request sent the instant a failed cell's reply arrives is the client's next, not one queued
    # behind the failure: it runs (the kernel looked for queued requests after sending the reply, and
    # took such a request for one of them under load)
    aborted = 0
    for i in range(100):
        first = kc.execute("error('fails')")
        kc._recv_reply(first, timeout=30)
        nxt = kc.execute("after = %d" % i)
        if kc._recv_reply(nxt, timeout=30)["content"]["status"] != "ok":
            aborted += 1
    check("error: a request sent right after a failed cell's reply runs (100 times)", aborted == 0, aborted)
    ids = [kc.execute("error('again')", stop_on_error=False), kc.execute("queued = 3")]
    replies = [kc._recv_reply(i, timeout=30)["content"]["status"] for i in ids]
    check("error: with stop_on_error false the next cells run", replies == ["error", "ok"], replies)

    # ---- rich output ----
    reply, out = run(kc, "w = torch.softmax(torch.tensor{{1.0, 2.0}, {3.0, 1.0}}, -1)\nattention.heatmap(w, {rows = {'a', 'b'}, cols = {'a', 'b'}})")
    dd = of_type(out, "display_data")
    check("rich: attention.heatmap is an image/svg+xml display with a text/plain fallback",
          len(dd) == 1 and dd[0]["data"]["image/svg+xml"].startswith("<svg") and "text/plain" in dd[0]["data"], out)
    check("rich: the SVG holds each weight as PyTorch prints it",
          all(v in dd[0]["data"]["image/svg+xml"] for v in ["0.2689", "0.7311", "0.8808", "0.1192"]), dd)
    reply, out = run(kc, "tr = attention.trace{x = torch.tensor{{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}}\ntr:step() tr:step()")
    dd = of_type(out, "display_data")
    check("rich: tr:step() is text/html (title, matrix) with its text as text/plain",
          len(dd) == 2 and "<pre" in dd[0]["data"]["text/html"] and dd[0]["data"]["text/plain"].startswith("[1/"), out)
    check("rich: the weights step has its heatmap as SVG in the HTML", "<svg" in dd[1]["data"]["text/html"], dd[1]["data"]["text/html"][:300])
    reply, out = run(kc, "display(torch.ones(2), 'x')")
    dd = of_type(out, "display_data")
    check("rich: display(x) shows each value as the REPL prints it",
          [d["data"]["text/plain"] for d in dd] == ["tensor([1., 1.])", "x"], dd)

    # ---- complete: positions in UTF-16 code units ----
    c = kc.complete("torch.soft", reply=True, timeout=10)["content"]
    check("complete: torch.soft -> torch.softmax, from the start of the word", "torch.softmax" in c["matches"]
          and c["cursor_start"] == 0 and c["cursor_end"] == 10, c)
    code = "s = '😀é' ; torch.sof"   # 😀 is two UTF-16 units, é one
    c = kc.complete(code, cursor_pos=len(code.encode("utf-16-le")) // 2, reply=True, timeout=10)["content"]
    check("complete: cursor positions count UTF-16 code units (after an emoji)",
          c["cursor_end"] == 21 and c["cursor_start"] == 12 and "torch.softmax" in c["matches"], c)
    c = kc.complete("x:ma", reply=True, timeout=10)["content"]
    check("complete: methods after a colon", "x:matmul" in c["matches"], c)

    # ---- inspect ----
    c = kc.inspect("y = torch.softmax(x, 1)", cursor_pos=12, reply=True, timeout=10)["content"]
    help_text = subprocess.run([ATTN, "-e", "help('torch.softmax')"], capture_output=True, text=True).stdout
    check("inspect: the ?name help of the name under the cursor", c["found"] and c["data"]["text/plain"] + "\n" == help_text, c)
    c = kc.inspect("nosuchname", reply=True, timeout=10)["content"]
    check("inspect: an unknown name is not found", c["status"] == "ok" and not c["found"], c)

    # ---- is_complete ----
    ic = lambda code: kc._recv_reply(kc.is_complete(code), timeout=10)["content"]
    check("is_complete: an open function is incomplete", ic("function f(a)\n  return a")["status"] == "incomplete")
    check("is_complete: a closed one is complete", ic("function f(a)\n  return a\nend")["status"] == "complete")
    check("is_complete: a syntax error is invalid", ic("x = = 1")["status"] == "invalid")

    # ---- history, comm_info, unknown ----
    h = kc.history(reply=True, timeout=10)["content"]
    check("history: replies ok (an empty history)", h["status"] == "ok" and h["history"] == [], h)
    ci = kc.comm_info(reply=True, timeout=10)["content"]
    check("comm_info: no comms", ci["status"] == "ok" and ci["comms"] == {}, ci)
    msg = kc.session.msg("no_such_request", {})
    kc.shell_channel.send(msg)
    time.sleep(0.3)
    check("unknown message type: ignored, the kernel goes on", kc.kernel_info(reply=True, timeout=10)["content"]["status"] == "ok")

    # ---- signatures ----
    check("signatures: the kernel signs its replies (jupyter_client checked them with the key)", bool(kc.session.key))
    bad = Session(key=b"not-the-key", session=kc.session.session)
    m = bad.msg("execute_request", {"code": "hacked = 1", "silent": False, "store_history": True,
                                    "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
    bad.send(kc.shell_channel.socket, m)
    time.sleep(0.5)
    reply, out = run(kc, "hacked")
    check("signatures: a message with a wrong signature is ignored (its code never ran)",
          of_type(out, "execute_result") == [] or of_type(out, "execute_result")[0]["data"]["text/plain"] == "nil", out)

    # a correctly signed message sent again (captured on the wire, replayed): dropped, as jupyter_client's
    # Session drops a signature it has seen
    replay = ctx.socket(zmq.DEALER)
    replay.linger = 0
    replay.connect(f"{km.transport}://{km.ip}:{km.shell_port}")
    m = kc.session.msg("execute_request", {"code": "replayed = (replayed or 0) + 1", "silent": False,
                                           "store_history": True, "user_expressions": {}, "allow_stdin": False,
                                           "stop_on_error": True})
    wire = kc.session.serialize(m)
    replay.send_multipart(wire)
    first = replay.poll(5000)
    if first:
        replay.recv_multipart()
    replay.send_multipart(wire)
    second = replay.poll(1500)
    replay.close()
    reply, out = run(kc, "replayed")
    results = of_type(out, "execute_result")
    check("signatures: a replayed, correctly signed execute_request is dropped (its code ran once)",
          first and not second and results and results[0]["data"]["text/plain"] == "1", (first, second, out))

    # ---- malformed messages ----
    raw = ctx.socket(zmq.DEALER)
    raw.linger = 0
    raw.connect(f"{km.transport}://{km.ip}:{km.shell_port}")
    raw.send_multipart([b"no delimiter at all"])
    raw.send_multipart([b"<IDS|MSG>", b"sig"])
    good = kc.session
    parts = [b"{not json", b"{}", b"{}", b"{}"]
    raw.send_multipart([b"<IDS|MSG>", good.sign(parts)] + parts)
    parts = [b"[1, 2]", b"{}", b"{}", b"{}"]
    raw.send_multipart([b"<IDS|MSG>", good.sign(parts)] + parts)
    hdr = json.dumps({"msg_id": "1", "session": "s", "username": "u", "date": "", "version": "5.3",
                      "msg_type": "execute_request"}).encode()
    parts = [hdr, b"{}", b"{}", json.dumps({"code": 42}).encode()]
    raw.send_multipart([b"<IDS|MSG>", good.sign(parts)] + parts)
    got = raw.poll(3000)
    frames = raw.recv_multipart() if got else []
    content = json.loads(frames[-1]) if frames else {}
    check("malformed: an execute_request whose code is no string gets an error reply", content.get("status") == "error", frames)
    raw.send_multipart([b"<IDS|MSG>", b"", b"\xff\xfe", b"{}", b"{}", b"{}"] + [b"x"] * 70)
    raw.close()
    check("malformed: after frames without a delimiter, bad JSON, non-objects, 70 frames, the kernel answers",
          kc.kernel_info(reply=True, timeout=10)["content"]["status"] == "ok")
    reply, out = run(kc, "io.write('\\xff\\xfe ok\\n')")
    check("malformed: bytes that are not UTF-8 in the output arrive as U+FFFD", stdout_of(out) == "\ufffd\ufffd ok\n", out)

    reply, out = run(kc, "torch.no_grad()")
    check("a bare torch.no_grad() in a cell is refused with the two right forms (it left autograd off for the session)",
          reply["content"]["status"] == "error" and "torch.no_grad(function()" in reply["content"]["evalue"], reply["content"])
    reply, out = run(kc, "torch.is_grad_enabled()")
    check("... and autograd stays on", of_type(out, "execute_result")[0]["data"]["text/plain"] == "true", out)
    reply, out = run(kc, "nul_ran = 1\u0000error('the rest')")
    check("malformed: a NUL in a cell is an error, not the cell cut short and reported ok",
          reply["content"]["status"] == "error" and "NUL" in reply["content"]["evalue"], reply["content"])
    reply, out = run(kc, "nul_ran")
    check("malformed: ... and nothing of that cell ran",
          of_type(out, "execute_result") == [] or of_type(out, "execute_result")[0]["data"]["text/plain"] == "nil", out)
    reply, out = run(kc, "s = 'a\\\\u0000b'\n#s")
    check("malformed: an escaped backslash before u0000 is not a NUL (the text \\u0000 runs)",
          reply["content"]["status"] == "ok" and of_type(out, "execute_result")[0]["data"]["text/plain"] == "8",
          (reply["content"], out))

    # ---- a client that disconnects mid-request ----
    # another program: a session of its own (jupyter_client names a client's sockets by its session)
    kc2 = km.client(session=Session(key=km.session.key))
    kc2.start_channels()
    kc2.wait_for_ready(timeout=10)
    kc2.execute("for i = 1, 3e6 do end; gone = 1")
    kc2.stop_channels()
    time.sleep(0.2)
    reply, out = run(kc, "gone")
    check("disconnect: a client that leaves mid-request leaves the kernel serving others",
          of_type(out, "execute_result")[0]["data"]["text/plain"] == "1", out)

    # ---- interrupt ----
    run(kc, "kept = 7")
    msg_id = kc.execute("torch.ones(1):expand(2^40):sum()")
    time.sleep(0.5)
    t0 = time.time()
    km.interrupt_kernel()
    r = kc._recv_reply(msg_id, timeout=20)
    took = time.time() - t0
    print(f"# interrupt: the reply came {took:.2f} s after SIGINT")
    check("interrupt: SIGINT stops torch.ones(1):expand(2^40):sum() with an 'interrupted' error",
          r["content"]["status"] == "error" and "interrupted" in r["content"]["evalue"], r["content"])
    # no wait here: the requests aborted behind a failed cell are those queued before its reply went out
    reply, out = run(kc, "kept")
    check("interrupt: the variables stay", [c["data"]["text/plain"] for c in of_type(out, "execute_result")] == ["7"], out)
    km.interrupt_kernel()  # when nothing runs: nothing happens
    time.sleep(0.2)
    check("interrupt: an interrupt between cells does nothing", km.is_alive() and kc.kernel_info(reply=True, timeout=10)["content"]["status"] == "ok")

    # ---- input ----
    reply, out = run(kc, "line = io.read()", allow_stdin=True, stdin_hook=lambda m: kc.input("typed"))
    reply, out = run(kc, "line")
    check("stdin: io.read asks the client (input_request) and gets its reply",
          of_type(out, "execute_result")[0]["data"]["text/plain"] == "typed", out)

    # ---- 10^4 executions: memory stays flat ----
    def rss():
        with open(f"/proc/{pid}/status") as f:
            return int(next(l for l in f if l.startswith("VmRSS")).split()[1]) // 1024

    # A client of its own on the shell channel, plain pyzmq with jupyter_client's Session (signing as
    # every client does): jupyter_client's asyncio plumbing costs more per message than the kernel does.
    mem_session = Session(key=km.session.key)
    mem = ctx.socket(zmq.DEALER)
    mem.linger = 0
    mem.connect(f"{km.transport}://{km.ip}:{km.shell_port}")

    def batch(k, window=200):
        last = None
        for start in range(0, k, window):
            for i in range(start, min(k, start + window)):
                mem_session.send(mem, "execute_request", {"code": f"v = torch.ones(4, 4) * {i}\nv:sum()", "silent": False,
                                 "store_history": True, "user_expressions": {}, "allow_stdin": False})
            for i in range(start, min(k, start + window)):
                if not mem.poll(60000):
                    return None
                _, last = mem_session.recv(mem, mode=0)
        return last

    kc.stop_channels()  # its iopub would otherwise queue the 55000 messages these cells publish
    batch(1000)
    before = rss()
    last = batch(10000)
    after = rss()
    kc = km.client()  # a client's channels cannot start again once stopped: a new one
    kc.start_channels()
    kc.wait_for_ready(timeout=30)
    print(f"# memory: RSS {before} MB after 1000 executions, {after} MB after 10000 more")
    check("memory: 10^4 executions, RSS flat within 20 MB", last is not None and last["content"]["status"] == "ok" and after - before <= 20,
          (before, after))

    # ---- restart mid-execution ----
    msg_id = kc.execute("torch.ones(1):expand(2^40):sum()")
    time.sleep(0.3)
    km.shutdown_wait_time = 1.0  # the busy kernel cannot answer: SIGTERM after half of it
    km.restart_kernel(now=False)
    kc.wait_for_ready(timeout=30)
    reply, out = run(kc, "kept")
    check("restart mid-execution: a fresh kernel (variables gone) that answers",
          reply["content"]["status"] == "ok" and of_type(out, "execute_result")[0]["data"]["text/plain"] == "nil", out)
    pid = km.provisioner.process.pid
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=False)

# ---- the Chinese kernelspec: the language of attn's text, as ATTN_LANG / --lang set it ----
km2, kc2 = jupyter_client.manager.start_new_kernel(kernel_name="attn-zh_cn")
try:
    banner = kc2.kernel_info(reply=True, timeout=10)["content"]["banner"]
    expected = subprocess.run([ATTN, "--lang", "zh_CN", "-e", "io.write(require('attn.repl').banner('0.1', _VERSION))"],
                              capture_output=True, text=True).stdout
    check("attn-zh_cn: the banner in Chinese, as attn --lang zh_CN says it", banner == expected and banner != info["banner"],
          (banner, expected))
    reply, out = run(kc2, "os.exit()")
    check("attn-zh_cn: the kernel's own messages in Chinese too", "Jupyter 内核" in reply["content"]["evalue"], reply["content"])
finally:
    kc2.stop_channels()
    km2.shutdown_kernel(now=False)

# ---- shutdown ----
check("shutdown: the kernel process has ended", not km.is_alive())
try:
    os.kill(pid, 0)
    gone = False
except ProcessLookupError:
    gone = True
check("shutdown: no process left behind", gone)
tap_end()
