/* kernel_heartbeat.c — the heartbeat channel: a client sends a ping and expects it back at once, to
 * tell a busy kernel from a dead one. So it runs in a thread of its own, as every kernel does: a long
 * computation in the main thread does not stop the echo. The thread ends when the context is shut
 * down (zmq_ctx_shutdown makes its blocking receive return ETERM). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>

#include <zmq.h>

#include "kernel.h"

static pthread_t thread;
static int started;

static void *echo(void *socket) {
    for (;;) {
        zmq_msg_t m;
        zmq_msg_init(&m);
        if (zmq_msg_recv(&m, socket, 0) < 0) {
            zmq_msg_close(&m);
            if (errno == EINTR) continue;
            break; /* ETERM: the kernel is shutting down */
        }
        int more = zmq_msg_more(&m);
        if (zmq_msg_send(&m, socket, more ? ZMQ_SNDMORE : 0) < 0) zmq_msg_close(&m);
    }
    int linger = 0;
    zmq_setsockopt(socket, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(socket);
    return NULL;
}

int attn_heartbeat_start(void *socket) {
    sigset_t all, old;
    int r;
    /* SIGINT (the interrupt) is for the main thread: the heartbeat's thread blocks every signal */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    r = pthread_create(&thread, NULL, echo, socket);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    started = r == 0;
    return r;
}

void attn_heartbeat_join(void) {
    if (started) pthread_join(thread, NULL);
    started = 0;
}
