/* kernel.h — what the files of attn's Jupyter kernel share (attn --kernel CONNECTION_FILE):
 *   kernel.c            the loop: reads requests, hands them to the Lua module attn.kernel
 *                       (src/lua/kernel/), and gives that module its C functions (attn.kernel.wire)
 *   kernel_wire.c       the connection file, the ZeroMQ sockets and the messages on them, signed
 *   kernel_sign.c       HMAC-SHA256 of a message (OpenSSL's libcrypto)
 *   kernel_json.c       JSON (cJSON) to Lua tables and back
 *   kernel_capture.c    what the user's code writes to stdout and stderr, caught for the streams
 *   kernel_heartbeat.c  the heartbeat channel, in a thread of its own
 *   kernel_install.c    attn --install-kernel: the kernelspec (kernel.json and the logo)
 * The wording of messages and the meaning of requests are in Lua; C only moves bytes. */
#ifndef ATTN_KERNEL_H
#define ATTN_KERNEL_H
#include <stddef.h>

#include <cjson/cJSON.h>
#include <lua.h>

/* ---- kernel_json.c ---- */
/* Pushes v as a Lua value: objects and arrays as tables (arrays get the metatable that
 * attn_json_from_lua reads as "an array", so an empty one stays one), null as nil. */
void attn_json_push(lua_State *L, const cJSON *v);
/* The Lua value at idx as JSON (NULL when it holds something JSON has no word for: a function, a
 * key that is not a string, a cycle). A table is an array when it has that metatable or a [1]. */
cJSON *attn_json_from_lua(lua_State *L, int idx);
/* Opens the Lua module attn.json: {encode = f(v [, pretty]) -> text, decode = f(text) -> v,
 * array = f([t]) -> t marked as an array}. */
int attn_json_open(lua_State *L);

/* ---- kernel_sign.c ---- */
#define ATTN_SIGNATURE_HEX 65 /* 64 hex digits and a NUL */
/* hex = HMAC-SHA256(key) of the parts one after the other, in lowercase hex. Returns 0 on success. */
int attn_sign(const char *key, size_t keylen, const char *const *parts, const size_t *lens, int nparts,
              char hex[ATTN_SIGNATURE_HEX]);
/* Compares two signatures in constant time; 1 when they are equal. */
int attn_signature_equal(const char *a, size_t alen, const char *b, size_t blen);
/* Whether the signature hex (a valid one, lowercase) was seen before; records it. *seen starts NULL. */
typedef struct attn_seen attn_seen;
int attn_signature_seen(attn_seen **seen, const char hex[ATTN_SIGNATURE_HEX]);
void attn_seen_free(attn_seen *seen);

/* ---- kernel_wire.c ---- */
enum { ATTN_SHELL, ATTN_CONTROL, ATTN_STDIN, ATTN_IOPUB, ATTN_HB, ATTN_NCHANNELS };
typedef struct {
    void *context;
    void *sockets[ATTN_NCHANNELS];
    char *key;          /* the signing key; "" when the connection file has none (no signing) */
    size_t keylen;
    char session[37];   /* this kernel's session id, a UUID */
    char endpoints[ATTN_NCHANNELS][300];
    struct attn_seen *seen; /* the signatures received (kernel_sign.c): a replay is dropped */
} attn_wire;
/* A message as it comes off a socket: the routing identities, then the four JSON parts. */
typedef struct {
    int nids;
    char **ids;
    size_t *idlens;
    char *parts[4];     /* header, parent_header, metadata, content (NUL-terminated) */
    size_t lens[4];
} attn_msg;
/* Reads the connection file and binds the five sockets. Returns 0 on success, or fills why. */
int attn_wire_open(attn_wire *w, const char *connection_file, char *why, size_t whylen);
void attn_wire_close(attn_wire *w);
/* Receives one multipart message from a socket that has one waiting. Returns 1 with *m filled, 0 when
 * the message was dropped (no delimiter, a bad signature: why says it), -1 on a socket error. */
int attn_wire_recv(attn_wire *w, int channel, attn_msg *m, char *why, size_t whylen);
void attn_msg_free(attn_msg *m);
/* Sends a message: ids (routing; the topic on iopub), then the delimiter, the signature and the parts
 * given as JSON text. Returns 0 on success. */
int attn_wire_send(attn_wire *w, int channel, int nids, char *const *ids, const size_t *idlens,
                   const char *header, const char *parent, const char *metadata, const char *content);
/* A fresh UUID (version 4) as text. */
void attn_uuid(char out[37]);

/* ---- kernel_capture.c ---- */
/* stdout and stderr go to memory files while the kernel runs (the kernel's own messages go to the
 * stderr it started with: attn_capture_log). Returns 0 on success. */
int attn_capture_open(void);
/* Everything written to fd (1 or 2) since the last take, as a malloc'd string (*len bytes). */
char *attn_capture_take(int fd, size_t *len);
/* The kernel's own log: the stderr it started with (Jupyter shows it in the server's log). */
void attn_capture_log(const char *fmt, ...);

/* ---- kernel_heartbeat.c ---- */
/* Starts the thread that echoes every ping on the heartbeat socket; it ends when the context is shut
 * down (zmq_ctx_shutdown), and attn_heartbeat_join waits for it. */
int attn_heartbeat_start(void *socket);
void attn_heartbeat_join(void);

#endif
