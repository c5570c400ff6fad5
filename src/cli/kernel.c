/* kernel.c — attn as a Jupyter kernel (attn --kernel CONNECTION_FILE). The loop waits on the shell
 * and control sockets, hands each request to the Lua module attn.kernel (src/lua/kernel/init.lua),
 * which answers it through the functions of attn.kernel.wire below, and ends when that module says
 * a shutdown was asked for. The user's code runs through wire.run, with Ctrl-C armed as at the
 * prompt: Jupyter interrupts a kernel by sending it SIGINT (the kernelspec's interrupt_mode
 * "signal"), which stops a long computation and keeps the variables. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>
#include <zmq.h>

#include "attn_lua.h"
#include "cli.h"
#include "kernel.h"
#include "tensor.h"

static attn_wire wire;
static const char *CHANNEL_NAMES[ATTN_NCHANNELS] = {"shell", "control", "stdin", "iopub", "hb"};

/* Between requests SIGINT is only noted: an interrupt that comes when nothing runs does nothing (the
 * default action would end the kernel). */
static void ignore_sigint(int sig) {
    (void)sig;
}

static int channel_of(lua_State *L, int idx) {
    const char *name = luaL_checkstring(L, idx);
    for (int i = 0; i < ATTN_NCHANNELS; i++)
        if (strcmp(name, CHANNEL_NAMES[i]) == 0 && i != ATTN_HB) return i;
    return luaL_argerror(L, idx, "not a channel");
}

/* The header of a message sent now: ISO 8601 date in UTC with microseconds, as jupyter_client writes. */
static char *new_header(const char *msg_type) {
    char id[37], date[64];
    struct timeval tv;
    struct tm tm;
    cJSON *h = cJSON_CreateObject();
    char *text;
    attn_uuid(id);
    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    size_t n = strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(date + n, sizeof date - n, ".%06ldZ", (long)tv.tv_usec);
    cJSON_AddStringToObject(h, "msg_id", id);
    cJSON_AddStringToObject(h, "session", wire.session);
    cJSON_AddStringToObject(h, "username", "attn");
    cJSON_AddStringToObject(h, "date", date);
    cJSON_AddStringToObject(h, "msg_type", msg_type);
    cJSON_AddStringToObject(h, "version", "5.3");
    text = cJSON_PrintUnformatted(h);
    cJSON_Delete(h);
    return text;
}

/* A Lua value as JSON text (malloc'd), or NULL. */
static char *encode(lua_State *L, int idx) {
    cJSON *j = attn_json_from_lua(L, idx);
    char *text = j ? cJSON_PrintUnformatted(j) : NULL;
    cJSON_Delete(j);
    return text;
}

/* wire.send(channel, msg_type, content [, parent [, metadata]]): parent is the request being answered
 * (its ids route the reply; its header becomes the parent header). On iopub the topic is the type. */
static int l_send(lua_State *L) {
    int channel = channel_of(L, 1);
    const char *msg_type = luaL_checkstring(L, 2);
    char *header, *content, *metadata = NULL;
    const char *parent = "{}";
    char **ids = NULL;
    size_t *idlens = NULL;
    int nids = 0, r;
    luaL_checktype(L, 3, LUA_TTABLE);
    if (lua_istable(L, 4) && lua_getfield(L, 4, "header_json") == LUA_TSTRING) parent = lua_tostring(L, -1);
    if (channel == ATTN_IOPUB) {
        static char topic[80];
        static size_t topiclen;
        static char *topicp = topic;
        topiclen = (size_t)snprintf(topic, sizeof topic, "kernel.%.36s.%.30s", wire.session, msg_type);
        ids = &topicp;
        idlens = &topiclen;
        nids = 1;
    } else if (lua_istable(L, 4) && lua_getfield(L, 4, "ids") == LUA_TTABLE) {
        nids = (int)lua_rawlen(L, -1);
        ids = calloc((size_t)nids + 1, sizeof *ids);
        idlens = calloc((size_t)nids + 1, sizeof *idlens);
        for (int i = 0; ids && idlens && i < nids; i++) {
            lua_rawgeti(L, -1, i + 1);
            ids[i] = (char *)lua_tolstring(L, -1, &idlens[i]); /* kept alive by the table */
            lua_pop(L, 1);
        }
    }
    header = new_header(msg_type);
    content = encode(L, 3);
    metadata = lua_istable(L, 5) ? encode(L, 5) : NULL;
    r = header && content ? attn_wire_send(&wire, channel, nids, ids, idlens, header, parent,
                                           metadata ? metadata : "{}", content) : -1;
    if (channel != ATTN_IOPUB) {
        free(ids);
        free(idlens);
    }
    free(header);
    free(content);
    free(metadata);
    if (r != 0) attn_capture_log("cannot send %s on %s: %s", msg_type, CHANNEL_NAMES[channel], zmq_strerror(errno));
    lua_pushboolean(L, r == 0);
    return 1;
}

/* The message as a Lua table: {channel =, ids = {...}, header =, parent_header =, metadata =, content =,
 * header_json = the header's own text}. Returns 0 (nothing pushed) when a part is not JSON. */
/* Whether JSON text holds the escape of a NUL character (\u0000) in a string: cJSON ends the string
 * there, so a cell "x = 1\u0000error()" ran as "x = 1" and reported ok. Escaped backslashes skipped. */
static int has_nul_escape(const char *text, size_t n) {
    for (size_t i = 0; i + 1 < n; i++) {
        if (text[i] != '\\') continue;
        if (text[i + 1] == 'u' && i + 5 < n && memcmp(text + i + 2, "0000", 4) == 0) return 1;
        i++; /* the escaped character, a backslash included */
    }
    return 0;
}

static int push_msg(lua_State *L, int channel, const attn_msg *m) {
    static const char *names[4] = {"header", "parent_header", "metadata", "content"};
    cJSON *parsed[4] = {NULL, NULL, NULL, NULL};
    int ok = 1;
    for (int i = 0; i < 4 && ok; i++) {
        parsed[i] = cJSON_ParseWithLength(m->parts[i], m->lens[i]);
        ok = parsed[i] != NULL && cJSON_IsObject(parsed[i]);
    }
    if (ok) {
        lua_createtable(L, 0, 8);
        lua_pushstring(L, CHANNEL_NAMES[channel]);
        lua_setfield(L, -2, "channel");
        lua_createtable(L, m->nids, 0);
        for (int i = 0; i < m->nids; i++) {
            lua_pushlstring(L, m->ids[i], m->idlens[i]);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "ids");
        for (int i = 0; i < 4; i++) {
            attn_json_push(L, parsed[i]);
            lua_setfield(L, -2, names[i]);
        }
        lua_pushlstring(L, m->parts[0], m->lens[0]);
        lua_setfield(L, -2, "header_json");
        lua_pushboolean(L, has_nul_escape(m->parts[3], m->lens[3]));
        lua_setfield(L, -2, "content_has_nul"); /* execute.run refuses such a cell (kernel/execute.lua) */
    }
    for (int i = 0; i < 4; i++) cJSON_Delete(parsed[i]);
    return ok;
}

/* wire.input(prompt, password, parent) -> the text typed, or nil and why: an input_request on the stdin
 * channel to the client that sent parent, then its input_reply. A Ctrl-C while waiting is an error. */
static int l_input(lua_State *L) {
    luaL_checkstring(L, 1);
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    lua_pushcfunction(L, l_send);
    lua_pushliteral(L, "stdin");
    lua_pushliteral(L, "input_request");
    lua_createtable(L, 0, 2);
    lua_pushvalue(L, 1);
    lua_setfield(L, -2, "prompt");
    lua_pushboolean(L, lua_toboolean(L, 2));
    lua_setfield(L, -2, "password");
    lua_pushvalue(L, 3);
    lua_call(L, 4, 1);
    lua_pop(L, 1);
    for (;;) {
        attn_msg m;
        char why[200];
        zmq_pollitem_t item = {wire.sockets[ATTN_STDIN], 0, ZMQ_POLLIN, 0};
        int r = zmq_poll(&item, 1, -1);
        if (r < 0 && errno == EINTR && attn_interrupt_requested) return luaL_error(L, "interrupted");
        if (r <= 0) continue;
        r = attn_wire_recv(&wire, ATTN_STDIN, &m, why, sizeof why);
        if (r < 0) return luaL_error(L, "input: %s", why);
        if (r == 0) {
            if (why[0]) attn_capture_log("%s", why);
            continue;
        }
        if (!push_msg(L, ATTN_STDIN, &m)) {
            attn_msg_free(&m);
            continue;
        }
        attn_msg_free(&m);
        lua_getfield(L, -1, "content");
        lua_getfield(L, -1, "value");
        return 1;
    }
}

/* wire.run(f, ...) -> true, results... | false, message: f called with Ctrl-C armed as at the prompt. */
static int l_run(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 1, LUA_TFUNCTION);
    if (attn_pcall(L, n - 1, LUA_MULTRET, ATTN_CALL_INTERACTIVE) != LUA_OK) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;
    }
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    return lua_gettop(L);
}

/* wire.take() -> stdout, stderr: what was written to them since the last take. */
static int l_take(lua_State *L) {
    for (int fd = 1; fd <= 2; fd++) {
        size_t len;
        char *text = attn_capture_take(fd, &len);
        lua_pushlstring(L, text ? text : "", text ? len : 0);
        free(text);
    }
    return 2;
}

/* wire.log(text): a line in the kernel's log (the stderr it started with). */
static int l_log(lua_State *L) {
    attn_capture_log("%s", luaL_checkstring(L, 1));
    return 0;
}

static int l_hold_queued(lua_State *L); /* below, with drop_queued */

static int open_wire(lua_State *L) {
    static const luaL_Reg f[] = {{"send", l_send}, {"input", l_input}, {"run", l_run}, {"take", l_take},
                                 {"log", l_log}, {"hold_queued", l_hold_queued}, {NULL, NULL}};
    luaL_newlib(L, f);
    lua_pushstring(L, wire.session);
    lua_setfield(L, -2, "session");
    lua_pushliteral(L, ATTN_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}

/* package.preload[name] = open, so that require(name) finds a module of the command line's. */
static void preload_one(lua_State *L, const char *name, lua_CFunction open) {
    lua_getglobal(L, "package");
    if (lua_istable(L, -1) && lua_getfield(L, -1, "preload") == LUA_TTABLE) {
        lua_pushcfunction(L, open);
        lua_setfield(L, -2, name);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
}

void attn_json_preload(lua_State *L) {
    preload_one(L, "attn.json", attn_json_open);
}

/* attn.kernel.wire and attn.json, for require. */
static void preload(lua_State *L) {
    preload_one(L, "attn.kernel.wire", open_wire);
    attn_json_preload(L);
}

/* Calls require("attn.kernel")[name](...) with the nargs values on top; leaves one result. Errors
 * here are the kernel's own (a bug, or memory): logged, and the request goes unanswered. */
static int call_kernel(lua_State *L, const char *name, int nargs) {
    if (!attn_push_function(L, "attn.kernel", name, ATTN_CALL_BARE)) {
        attn_capture_log("cannot load attn.kernel: %s", lua_tostring(L, -1));
        lua_pop(L, 1 + nargs);
        lua_pushnil(L);
        return 0;
    }
    lua_insert(L, -1 - nargs);
    if (attn_pcall(L, nargs, 1, ATTN_CALL_BARE) != LUA_OK) {
        attn_capture_log("attn.kernel.%s: %s", name, lua_tostring(L, -1));
        lua_pop(L, 1);
        lua_pushnil(L);
        return 0;
    }
    return 1;
}

enum { SERVED, SERVED_STOP, SERVED_ABORT };

/* Receives one message from channel and has attn.kernel's function `how` ("handle", or "abort" for the
 * requests queued behind a cell that failed) deal with it. Returns what the module asked for: SERVED_STOP
 * after a shutdown_request, SERVED_ABORT after a failed cell whose queued cells are to be dropped. */
static int serve_msg(lua_State *L, int channel, attn_msg *m, const char *how);

static int serve(lua_State *L, int channel, const char *how) {
    attn_msg m;
    char why[200];
    int r = attn_wire_recv(&wire, channel, &m, why, sizeof why);
    if (r <= 0) {
        if (why[0]) attn_capture_log("%s: %s", CHANNEL_NAMES[channel], why);
        return SERVED;
    }
    return serve_msg(L, channel, &m, how);
}

/* Has attn.kernel's function `how` deal with the message m (freed). */
static int serve_msg(lua_State *L, int channel, attn_msg *m_, const char *how) {
    attn_msg m = *m_;
    int said = SERVED;
    if (!push_msg(L, channel, &m)) {
        attn_capture_log("%s: a message whose parts are not JSON objects: dropped", CHANNEL_NAMES[channel]);
    } else {
        call_kernel(L, how, 1);
        const char *s = lua_tostring(L, -1);
        if (s != NULL) said = strcmp(s, "stop") == 0 ? SERVED_STOP : strcmp(s, "abort") == 0 ? SERVED_ABORT : SERVED;
        lua_pop(L, 1);
    }
    attn_msg_free(&m);
    return said;
}

/* A cell failed: the requests already waiting on the shell when it ended (Run All sent them together)
 * are taken off the socket by wire.hold_queued() before the failed cell's reply goes out, and answered
 * "aborted" without running after it (drop_queued), as ipykernel does, so that one error does not
 * cascade. They used to be looked for after the reply: a client quick to send its next request, having
 * read the error, had that request aborted too. */
static attn_msg *held;
static int nheld, held_cap;

static int l_hold_queued(lua_State *L) {
    for (;;) {
        zmq_pollitem_t item = {wire.sockets[ATTN_SHELL], 0, ZMQ_POLLIN, 0};
        if (zmq_poll(&item, 1, 0) <= 0 || !(item.revents & ZMQ_POLLIN)) break;
        attn_msg m;
        char why[200];
        if (attn_wire_recv(&wire, ATTN_SHELL, &m, why, sizeof why) <= 0) {
            if (why[0]) attn_capture_log("shell: %s", why);
            continue;
        }
        if (nheld == held_cap) {
            int cap = held_cap ? 2 * held_cap : 16;
            attn_msg *more = realloc(held, (size_t)cap * sizeof *more);
            if (more == NULL) { /* no room to hold it: answered now, as aborted, before the reply */
                attn_msg_free(&m);
                break;
            }
            held = more;
            held_cap = cap;
        }
        held[nheld++] = m;
    }
    lua_pushinteger(L, nheld);
    return 1;
}

static int drop_queued(lua_State *L) {
    int stop = 0;
    for (int i = 0; i < nheld; i++) {
        if (stop) attn_msg_free(&held[i]);
        else if (serve_msg(L, ATTN_SHELL, &held[i], "abort") == SERVED_STOP) stop = 1;
    }
    nheld = 0;
    return stop;
}

int attn_kernel(lua_State *L, const char *connection_file) {
    char why[400];
    struct sigaction sa, old;
    int ok = 1;
    if (attn_wire_open(&wire, connection_file, why, sizeof why) != 0) {
        fprintf(stderr, "attn: --kernel: %s\n", why);
        attn_wire_close(&wire);
        return 0;
    }
    if (attn_capture_open() != 0 || attn_heartbeat_start(wire.sockets[ATTN_HB]) != 0) {
        attn_capture_log("cannot start: %s", strerror(errno));
        attn_wire_close(&wire);
        return 0;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ignore_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    preload(L);
    lua_pushstring(L, connection_file);
    if (!call_kernel(L, "start", 1)) ok = 0;
    attn_setglobal(L, "display"); /* kernel.start returned display(x, ...) (kernel/display.lua) */
    pid_t parent = getppid();
    while (ok) {
        zmq_pollitem_t items[2] = {{wire.sockets[ATTN_CONTROL], 0, ZMQ_POLLIN, 0},
                                   {wire.sockets[ATTN_SHELL], 0, ZMQ_POLLIN, 0}};
        int n = zmq_poll(items, 2, 1000);
        /* The process that started the kernel (a notebook server, a console) has died without a
         * shutdown_request (killed, or its terminal closed): nobody can reach this kernel any more,
         * so it ends, as ipykernel's parent poller makes it. */
        if (getppid() != parent) {
            attn_capture_log("the process that started the kernel has ended: shutting down");
            break;
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            attn_capture_log("poll: %s", zmq_strerror(errno));
            ok = 0;
            break;
        }
        /* control first: it is the channel that must get through when the shell is busy. A cell sent on
         * control that fails holds the shell's queue too (wire.hold_queued): those requests are answered
         * here, as after a failed cell on the shell. They were kept unanswered until some later failure:
         * a client waiting on one waited for ever (scripts/fuzz_kernel.py found it). */
        if (items[0].revents & ZMQ_POLLIN) {
            int said = serve(L, ATTN_CONTROL, "handle");
            if (said == SERVED_STOP || (said == SERVED_ABORT && drop_queued(L))) break;
        }
        if (items[1].revents & ZMQ_POLLIN) {
            int said = serve(L, ATTN_SHELL, "handle");
            if (said == SERVED_STOP || (said == SERVED_ABORT && drop_queued(L))) break;
        }
    }
    zmq_ctx_shutdown(wire.context); /* ends the heartbeat's thread */
    attn_heartbeat_join();
    attn_wire_close(&wire);
    sigaction(SIGINT, &old, NULL);
    return ok;
}
