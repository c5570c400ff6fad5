"""fuzz_kernel.py — the kernel's messages at random, through its sockets: attn --kernel (src/cli/kernel*.c reads
the frames, checks signatures, decodes the JSON; src/lua/kernel answers) given frames without the delimiter,
random bytes, bad and replayed signatures, correctly signed messages whose header, parent header, metadata
and content are random JSON (wrong types, deep nesting, huge numbers, NUL escapes, lone surrogates), and
correctly formed requests of every type with random fields and cells of random code; heartbeats of random
bytes. Every 500 messages, and at the end, the kernel must still answer a kernel_info_request and an
execute_request (1 + 1 is 2); a crash, a sanitizer report (the kernel's stderr) or a hang fails the run.
scripts/fuzz.sh runs it under the ASan+UBSan build after the Lua fuzzer.
    /usr/bin/python3 scripts/fuzz_kernel.py ATTN N [SEED]      e.g. ... build/asan/attn 50000 1
Needs jupyter_client and pyzmq (Debian's python3-jupyter-client, python3-zmq: scripts/install-jupyter-tests.sh).
Prints "fuzz_kernel: N messages ..., kernel alive" and exits 0, or says what failed and exits 1."""
import json, os, random, shutil, subprocess, sys, tempfile, time

import zmq
from jupyter_client import BlockingKernelClient
from jupyter_client.connect import write_connection_file
from jupyter_client.session import Session

ATTN, N = sys.argv[1], int(sys.argv[2])
SEED = int(sys.argv[3]) if len(sys.argv) > 3 else 1
rng = random.Random(SEED)

# shutdown_request only with a wrong signature (signed, the kernel would rightly end)
TYPES = ["execute_request", "complete_request", "inspect_request", "is_complete_request", "kernel_info_request",
         "history_request", "comm_info_request", "interrupt_request", "input_reply",
         "comm_open", "comm_msg", "no_such_request", "", "execute_reply", "\u00e9"]
CODE = ["1 + 1", "x = (x or 0) + 1", "x", "local a = 1\n", "error('e')", "torch.ones(2)", "torch.ones(2) +", "=2",
        "for i = 1, 3 do end", "return", "(", "\n", "--[[", "torch.rand(2, 2):softmax(1)", "string.rep('x', 9)",
        "\u00e9", "print('p')", "io.stderr:write('e')", "os.exit()", "display(1)", "?torch.ones", "io.read()",
        "nn.functional.mse_loss(torch.ones(3), torch.ones(3, 1))", "attention.heatmap(torch.rand(2, 2))"]
# allow_stdin is always false: io.read() in a cell then waits for the client's input_reply, for ever, as
# ipykernel's input() waits (a notebook asks its user; this client never answers)
KEYS = ["code", "cursor_pos", "silent", "store_history", "stop_on_error", "restart", "detail_level",
        "user_expressions", "value", "comm_id", "target_name", "data", "hist_access_type", "msg_type", "msg_id",
        "session", "username", "version", "date"]


def value(depth=0):
    r = rng.randrange(14)
    if r == 0 and depth < 40:
        return [value(depth + 1) for _ in range(rng.randrange(4))]
    if r == 1 and depth < 40:
        return {rng.choice(KEYS): value(depth + 1) for _ in range(rng.randrange(4))}
    if r == 2:
        return rng.choice([0, -1, 2 ** 53 + 1, 2 ** 64, -2 ** 63, 1e308, 0.5, 10 ** 30])
    if r == 3:
        return rng.choice([True, False, None])
    if r == 4:
        return "".join(rng.choice(CODE) for _ in range(rng.randrange(4)))
    if r == 5:
        return rng.choice(["\u0000", "\ud800", "a\u0000b", "x" * rng.randrange(10000), "\uffff", "<IDS|MSG>"])
    if r == 6:
        return rng.choice(TYPES)
    return rng.randrange(-5, 100)


def deep(n):
    return "[" * n + "]" * n


def random_json():
    r = rng.randrange(8)
    if r == 0:
        return deep(rng.choice([10, 200, 5000])).encode()
    if r == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(40)))
    if r == 2:
        return json.dumps(value()).encode()
    obj = {rng.choice(KEYS): value() for _ in range(rng.randrange(6))}
    return json.dumps(obj).encode()


def header(msg_type):
    return {"msg_id": str(rng.randrange(10 ** 9)), "session": "fuzz", "username": "u", "date": "",
            "version": "5.3", "msg_type": msg_type}


def request(session):
    """A request of a known type, correctly formed but for random fields."""
    t = rng.choice(TYPES[:8])
    content = {"code": "".join(rng.choice(CODE) for _ in range(rng.randrange(5))), "silent": rng.random() < 0.1,
               "store_history": True, "user_expressions": {}, "allow_stdin": False, "stop_on_error": rng.random() < 0.5,
               "cursor_pos": rng.randrange(-2, 40)}
    for _ in range(rng.randrange(3)):
        content[rng.choice(KEYS)] = value()
    content["allow_stdin"] = False
    if t == "execute_request" and not isinstance(content.get("code"), str):
        content["code"] = "1"
    # json.dumps escapes what is not ASCII (a lone surrogate as \ud800), which Session's own packer cannot
    parts = [json.dumps(header(t)).encode(), b"{}", b"{}", json.dumps(content).encode()]
    return [b"<IDS|MSG>", session.sign(parts)] + parts


def main():
    tmp = tempfile.mkdtemp(prefix="attn_fuzz_kernel_")
    conn, info = write_connection_file(os.path.join(tmp, "kernel.json"), key=os.urandom(16).hex().encode())
    err_path = os.path.join(tmp, "stderr")
    # a sanitizer's report into files of its own: the kernel's fd 2 is a pipe it reads itself while a cell runs
    # (src/cli/kernel_capture.c), where a report made while crashing would be lost
    report = os.path.join(tmp, "sanitizer")
    env = dict(os.environ,
               ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0:halt_on_error=1") + ":log_path=" + report,
               UBSAN_OPTIONS=os.environ.get("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1") + ":log_path=" + report)
    with open(err_path, "wb") as err:
        proc = subprocess.Popen([ATTN, "--kernel", conn], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, env=env)
    kc = BlockingKernelClient(connection_file=conn)
    kc.load_connection_file()
    kc.start_channels()
    session = kc.session
    ctx = zmq.Context.instance()

    def sock(kind, port):
        s = ctx.socket(kind)
        s.linger = 0
        s.sndtimeo = 60000   # a send that waits a minute: the kernel has stopped reading (zmq.Again)
        s.connect(f"tcp://{info['ip']}:{port}")
        return s

    shell, control = sock(zmq.DEALER, info["shell_port"]), sock(zmq.DEALER, info["control_port"])
    stdin, hb = sock(zmq.DEALER, info["stdin_port"]), sock(zmq.REQ, info["hb_port"])
    sent_wire = []
    recent = []   # the last messages sent, for the report of a failure

    def sanitizer_reports():
        return "".join(open(os.path.join(tmp, f), errors="replace").read() for f in sorted(os.listdir(tmp))
                       if f.startswith("sanitizer"))

    def fail(why):
        tail = (open(err_path, "rb").read()[-3000:].decode("utf-8", "replace") + sanitizer_reports())[-6000:]
        state = "running" if proc.poll() is None else f"ended with status {proc.returncode}"
        print(f"fuzz_kernel: seed {SEED}: {why} (the kernel: {state}); the last messages sent:")
        for frames in recent:
            print("   ", [f[:300] for f in frames])
        print(f"its stderr ends:\n{tail}")
        proc.kill()
        sys.exit(1)

    def alive_and_answering(at):
        if proc.poll() is not None:
            fail(f"the kernel ended (status {proc.returncode}) after {at} messages")
        try:
            if kc.kernel_info(reply=True, timeout=60)["content"]["status"] != "ok":
                fail(f"kernel_info did not reply ok after {at} messages")
            # a random cell still queued from another socket may fail and abort this one, as it should
            # (stop_on_error): the next try runs
            for _ in range(20):
                msg_id = kc.execute("1 + 1")
                reply = kc.get_shell_msg(timeout=60)
                while reply["parent_header"].get("msg_id") != msg_id:
                    reply = kc.get_shell_msg(timeout=60)
                if reply["content"]["status"] != "aborted":
                    break
            if reply["content"]["status"] != "ok":
                fail(f"1 + 1 did not run after {at} messages: {reply['content']}")
        except Exception as e:  # the queue's Empty on a timeout: a hang
            fail(f"no reply within 60 s after {at} messages ({type(e).__name__})")

    def drain():
        for s in (shell, control, stdin):
            while s.poll(0):
                s.recv_multipart()
        while True:
            try:
                kc.get_iopub_msg(timeout=0.001)
            except Exception:   # Empty: nothing more
                break

    i = 0

    def send(target, frames):
        recent.append(frames)
        if len(recent) > 8:
            recent.pop(0)
        if target is stdin:   # read only while a cell waits for input: its queue fills, and then is full
            try:
                target.send_multipart(frames, flags=zmq.NOBLOCK)
            except zmq.Again:
                pass
            return
        try:
            target.send_multipart(frames)
        except zmq.Again:
            fail(f"a send waited 60 s after {i} messages: the kernel has stopped reading")

    start = time.time()
    for i in range(1, N + 1):
        r = rng.randrange(10)
        target = rng.choice([shell, shell, shell, control, stdin])
        if r == 0:   # frames of random bytes, with or without the delimiter
            frames = [bytes(rng.randrange(256) for _ in range(rng.randrange(30))) for _ in range(rng.randrange(1, 9))]
            if rng.random() < 0.5:
                frames.insert(rng.randrange(len(frames) + 1), b"<IDS|MSG>")
            send(target, frames)
        elif r == 1:   # a wrong signature, or none
            parts = [json.dumps(header(rng.choice(TYPES + ["shutdown_request"]))).encode(), b"{}", b"{}", random_json()]
            send(target, [b"<IDS|MSG>", rng.choice([b"", b"00", b"x" * 64, b"\xff" * 80])] + parts)
        elif r in (2, 3):   # correctly signed, random JSON in the four parts, and sometimes buffers
            parts = [rng.choice([json.dumps(header(rng.choice(TYPES))).encode(), random_json()]), random_json(),
                     random_json(), random_json()]
            wire = [b"<IDS|MSG>", session.sign(parts)] + parts
            wire += [random_json() for _ in range(rng.choice([0, 0, 1, 70]))]
            send(target, wire)
            sent_wire.append(wire)
        elif r == 4 and sent_wire:   # a replay
            send(target, rng.choice(sent_wire))
        elif r == 5:   # a heartbeat of random bytes: echoed
            hb.send(bytes(rng.randrange(256) for _ in range(rng.randrange(100))))
            if hb.poll(10000):
                hb.recv()
            else:
                fail(f"the heartbeat did not echo after {i} messages")
        else:   # a well-formed request with random fields, on shell or control
            wire = request(session)
            send(rng.choice([shell, shell, control]), wire)
            sent_wire.append(wire)
        if len(sent_wire) > 200:
            sent_wire[:100] = []
        if i % 50 == 0:
            drain()
        if i % 500 == 0 or i == N:
            drain()
            alive_and_answering(i)
    seconds = time.time() - start
    kc.shutdown()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        fail("the kernel did not end after a shutdown_request")
    text = open(err_path, "rb").read().decode("utf-8", "replace") + sanitizer_reports()
    if "Sanitizer" in text or "runtime error:" in text:
        fail("a sanitizer report")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"fuzz_kernel: seed {SEED}: {N} messages in {seconds:.0f} s, kernel alive and answering, "
          f"status {proc.returncode} after shutdown, no sanitizer report")


main()
