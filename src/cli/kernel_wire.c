/* kernel_wire.c — the kernel's side of the Jupyter wire protocol (5.3): the connection file, the
 * five ZeroMQ sockets, and messages as frames:
 *     [routing ids...] "<IDS|MSG>" signature header parent_header metadata content [buffers...]
 * A message whose signature does not match is dropped (the protocol's rule: a client without the
 * key cannot run code), and so is one whose signature came before (a replay). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zmq.h>

#include "kernel.h"
#include "safe_read.h"

#define DELIMITER "<IDS|MSG>"
#define MAX_FRAMES 64

static const struct {
    const char *port;
    int type;
} CHANNELS[ATTN_NCHANNELS] = {
    [ATTN_SHELL] = {"shell_port", ZMQ_ROUTER},
    [ATTN_CONTROL] = {"control_port", ZMQ_ROUTER},
    [ATTN_STDIN] = {"stdin_port", ZMQ_ROUTER},
    [ATTN_IOPUB] = {"iopub_port", ZMQ_PUB},
    [ATTN_HB] = {"hb_port", ZMQ_REP},
};

void attn_uuid(char out[37]) {
    unsigned char b[16];
    if (getentropy(b, sizeof b) != 0) /* (getentropy: Linux, macOS and the BSDs alike) never seen; still, ids must differ */
        for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)rand();
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* variant 1 */
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* Through the one way attn opens a file to read (core/safe_read.c): a FIFO given as the connection file
 * is refused at once (fopen blocked on it for ever). NULL, and why, when the file cannot be read. */
static char *read_file(const char *path, char *why, size_t whylen) {
    attn_error err;
    struct stat st = {0};
    int fd = attn_read_open(NULL, path, &err);
    if (fd < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size >= (1 << 20)) {
        snprintf(why, whylen, S_ISDIR(st.st_mode) ? attn_tr("%s: it is a folder") : attn_tr("%s: it is larger than 1 MB"),
                 path);
        close(fd);
        return NULL;
    }
    char *text = malloc((size_t)st.st_size + 1);
    FILE *f = fdopen(fd, "rb");
    if (text == NULL || f == NULL || fread(text, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        snprintf(why, whylen, "%s: %s", path, strerror(errno ? errno : EIO));
        free(text);
        if (f) fclose(f);
        else close(fd);
        return NULL;
    }
    text[st.st_size] = '\0';
    fclose(f);
    return text;
}

/* The endpoints and the key, from the connection file. */
static int read_connection(attn_wire *w, const char *path, char *why, size_t whylen) {
    char reason[600];
    char *text = read_file(path, reason, sizeof reason);
    cJSON *c = text ? cJSON_Parse(text) : NULL;
    const cJSON *transport, *ip, *key, *scheme;
    int ok = 0;
    free(text);
    if (c == NULL) {
        if (text) snprintf(why, whylen, attn_tr("cannot read the connection file %s: it is not JSON"), path);
        else snprintf(why, whylen, attn_tr("cannot read the connection file: %s"), reason);
        return -1;
    }
    transport = cJSON_GetObjectItemCaseSensitive(c, "transport");
    ip = cJSON_GetObjectItemCaseSensitive(c, "ip");
    key = cJSON_GetObjectItemCaseSensitive(c, "key");
    scheme = cJSON_GetObjectItemCaseSensitive(c, "signature_scheme");
    const char *tr = cJSON_IsString(transport) ? transport->valuestring : "tcp";
    const char *host = cJSON_IsString(ip) ? ip->valuestring : "127.0.0.1";
    if (cJSON_IsString(scheme) && strcmp(scheme->valuestring, "hmac-sha256") != 0) {
        snprintf(why, whylen, "%s: signature_scheme %s is not hmac-sha256", path, scheme->valuestring);
        goto done;
    }
    if (strcmp(tr, "tcp") != 0 && strcmp(tr, "ipc") != 0) {
        snprintf(why, whylen, "%s: transport %s is neither tcp nor ipc", path, tr);
        goto done;
    }
    for (int i = 0; i < ATTN_NCHANNELS; i++) {
        const cJSON *port = cJSON_GetObjectItemCaseSensitive(c, CHANNELS[i].port);
        if (!cJSON_IsNumber(port) || port->valuedouble < 1 || port->valuedouble > 65535) {
            snprintf(why, whylen, "%s: %s is missing or not a port number", path, CHANNELS[i].port);
            goto done;
        }
        if (strcmp(tr, "tcp") == 0)
            snprintf(w->endpoints[i], sizeof w->endpoints[i], "tcp://%s:%d", host, port->valueint);
        else
            snprintf(w->endpoints[i], sizeof w->endpoints[i], "ipc://%s-%d", host, port->valueint);
    }
    w->key = strdup(cJSON_IsString(key) ? key->valuestring : "");
    w->keylen = w->key ? strlen(w->key) : 0;
    ok = w->key != NULL;
    if (!ok) snprintf(why, whylen, "not enough memory");
done:
    cJSON_Delete(c);
    return ok ? 0 : -1;
}

int attn_wire_open(attn_wire *w, const char *connection_file, char *why, size_t whylen) {
    memset(w, 0, sizeof *w);
    if (read_connection(w, connection_file, why, whylen) != 0) return -1;
    attn_uuid(w->session);
    w->context = zmq_ctx_new();
    if (w->context == NULL) {
        snprintf(why, whylen, "zmq_ctx_new: %s", zmq_strerror(errno));
        return -1;
    }
    for (int i = 0; i < ATTN_NCHANNELS; i++) {
        int linger = 1000; /* ms to deliver the last replies at shutdown, then give up */
        w->sockets[i] = zmq_socket(w->context, CHANNELS[i].type);
        /* A client that reconnects, or a second one with the same session (jupyter_client names its
         * sockets by the session), takes over the routing identity, as in ipykernel: otherwise the
         * ROUTER keeps routing to the connection that is gone, and the newcomer gets no replies. */
        int handover = 1;
        if (w->sockets[i] == NULL || zmq_setsockopt(w->sockets[i], ZMQ_LINGER, &linger, sizeof linger) != 0 ||
            (CHANNELS[i].type == ZMQ_ROUTER &&
             zmq_setsockopt(w->sockets[i], ZMQ_ROUTER_HANDOVER, &handover, sizeof handover) != 0) ||
            zmq_bind(w->sockets[i], w->endpoints[i]) != 0) {
            snprintf(why, whylen, "cannot listen on %s: %s", w->endpoints[i], zmq_strerror(errno));
            return -1;
        }
    }
    return 0;
}

void attn_wire_close(attn_wire *w) {
    for (int i = 0; i < ATTN_NCHANNELS; i++) {
        if (i != ATTN_HB && w->sockets[i]) zmq_close(w->sockets[i]); /* the heartbeat's thread closes its own */
        w->sockets[i] = NULL;
    }
    if (w->context) zmq_ctx_term(w->context);
    w->context = NULL;
    free(w->key);
    w->key = NULL;
    attn_seen_free(w->seen);
    w->seen = NULL;
}

void attn_msg_free(attn_msg *m) {
    for (int i = 0; i < m->nids; i++) free(m->ids[i]);
    free(m->ids);
    free(m->idlens);
    for (int i = 0; i < 4; i++) free(m->parts[i]);
    memset(m, 0, sizeof *m);
}

static char *copy_frame(zmq_msg_t *f, size_t *len) {
    size_t n = zmq_msg_size(f);
    char *s = malloc(n + 1);
    if (s == NULL) return NULL;
    memcpy(s, zmq_msg_data(f), n);
    s[n] = '\0';
    *len = n;
    return s;
}

int attn_wire_recv(attn_wire *w, int channel, attn_msg *m, char *why, size_t whylen) {
    zmq_msg_t frames[MAX_FRAMES];
    int n = 0, more = 1, result = 0, delim = -1;
    memset(m, 0, sizeof *m);
    why[0] = '\0';
    /* every frame of the message is read, even past MAX_FRAMES, so that the next one starts clean */
    while (more) {
        zmq_msg_t extra, *f = n < MAX_FRAMES ? &frames[n] : &extra;
        zmq_msg_init(f);
        /* the first frame without waiting: a poll's "ready" can be stale (the shell's queue taken by
         * wire.hold_queued while a control request ran), and a blocking receive would then wait for the
         * next message with the control channel unserved. The frames after it are there (zmq's messages
         * arrive whole). */
        if (zmq_msg_recv(f, w->sockets[channel], n == 0 ? ZMQ_DONTWAIT : 0) < 0) {
            zmq_msg_close(f);
            if (errno == EAGAIN && n == 0) return 0; /* nothing there: nothing lost */
            if (errno == EINTR && n == 0) { /* a signal before anything came: nothing lost */
                for (int i = 0; i < n; i++) zmq_msg_close(&frames[i]);
                return 0;
            }
            if (errno == EINTR) continue;
            for (int i = 0; i < n; i++) zmq_msg_close(&frames[i]);
            snprintf(why, whylen, "receive: %s", zmq_strerror(errno));
            return -1;
        }
        more = zmq_msg_more(f);
        if (f == &extra) zmq_msg_close(f);
        else n++;
    }
    for (int i = 0; i < n; i++) {
        if (zmq_msg_size(&frames[i]) == strlen(DELIMITER) && memcmp(zmq_msg_data(&frames[i]), DELIMITER, strlen(DELIMITER)) == 0) {
            delim = i;
            break;
        }
    }
    if (delim < 0 || n - delim < 6) {
        snprintf(why, whylen, "a message without the delimiter or with fewer than 5 parts after it: dropped");
        goto out;
    }
    if (w->keylen > 0) {
        const char *parts[4];
        size_t lens[4];
        char hex[ATTN_SIGNATURE_HEX];
        for (int i = 0; i < 4; i++) {
            parts[i] = zmq_msg_data(&frames[delim + 2 + i]);
            lens[i] = zmq_msg_size(&frames[delim + 2 + i]);
        }
        if (attn_sign(w->key, w->keylen, parts, lens, 4, hex) != 0 ||
            !attn_signature_equal(hex, strlen(hex), zmq_msg_data(&frames[delim + 1]), zmq_msg_size(&frames[delim + 1]))) {
            snprintf(why, whylen, "a message with a wrong signature: dropped");
            goto out;
        }
        if (attn_signature_seen(&w->seen, hex)) {
            snprintf(why, whylen, "a message whose signature came before (a replay): dropped");
            goto out;
        }
    }
    m->nids = delim;
    m->ids = calloc((size_t)delim + 1, sizeof *m->ids);
    m->idlens = calloc((size_t)delim + 1, sizeof *m->idlens);
    if (m->ids == NULL || m->idlens == NULL) goto oom;
    for (int i = 0; i < delim; i++)
        if ((m->ids[i] = copy_frame(&frames[i], &m->idlens[i])) == NULL) goto oom;
    for (int i = 0; i < 4; i++)
        if ((m->parts[i] = copy_frame(&frames[delim + 2 + i], &m->lens[i])) == NULL) goto oom;
    result = 1;
    goto out;
oom:
    snprintf(why, whylen, "not enough memory for a message: dropped");
    attn_msg_free(m);
out:
    for (int i = 0; i < n; i++) zmq_msg_close(&frames[i]);
    return result;
}

static int send_frame(void *s, const void *data, size_t len, int more) {
    for (;;) {
        if (zmq_send(s, data, len, more ? ZMQ_SNDMORE : 0) >= 0) return 0;
        if (errno != EINTR) return -1;
    }
}

int attn_wire_send(attn_wire *w, int channel, int nids, char *const *ids, const size_t *idlens,
                   const char *header, const char *parent, const char *metadata, const char *content) {
    const char *parts[4] = {header, parent, metadata, content};
    size_t lens[4];
    char hex[ATTN_SIGNATURE_HEX] = "";
    void *s = w->sockets[channel];
    for (int i = 0; i < 4; i++) lens[i] = strlen(parts[i]);
    if (w->keylen > 0 && attn_sign(w->key, w->keylen, parts, lens, 4, hex) != 0) return -1;
    for (int i = 0; i < nids; i++)
        if (send_frame(s, ids[i], idlens[i], 1) != 0) return -1;
    if (send_frame(s, DELIMITER, strlen(DELIMITER), 1) != 0 || send_frame(s, hex, strlen(hex), 1) != 0)
        return -1;
    for (int i = 0; i < 4; i++)
        if (send_frame(s, parts[i], lens[i], i < 3) != 0) return -1;
    return 0;
}
