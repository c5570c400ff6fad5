/* fused_plan.h — what the two halves of attention.fused share: fused.c plans a call (shapes, layouts,
 * blocks, threads) and fused_task.c runs its tasks, one block of query rows of one batch·head each.
 * Internal to the core; the API is fused.h. */
#ifndef ATTN_FUSED_PLAN_H
#define ATTN_FUSED_PLAN_H

#include "fused.h"

#include <pthread.h>
#include <stdatomic.h>

/* One input matrix stream as the tile packing reads it: the matrix of batch b starts at data + offset(b), row r
 * of it at + r·rs; trans says it is stored column-major (then ld is the column stride). */
typedef struct operand {
    const float *data;
    int64_t bstride[ATTN_MAX_DIMS]; /* per batch dim of the result; 0 where this input broadcasts */
    int64_t rs;
    int trans, ld;
    attn_tensor *copy; /* the contiguous copy read instead of the input, or NULL */
} operand;

typedef struct plan {
    operand q, k, v;
    int nbatch;
    int64_t bshape[ATTN_MAX_DIMS], batches;
    int64_t n, m, d, dv, bq, bk, nqb, ntasks;
    int64_t bqp, bkp, dvp; /* bq, bk and dv padded for the tile kernels (fused_tile.h) */
    float scale;
    int causal;
    float *out;
    int64_t out_bstride[ATTN_MAX_DIMS], out_rs;
    atomic_llong next; /* the next task to take */
    atomic_int stop;   /* set on interrupt: the other workers stop at their next block */
} plan;

typedef struct workspace {
    plan *p;
    float *s, *o, *max, *sum; /* S: bqp×bkp, O: bqp×dvp, m and l: bq */
    float *qp, *kt, *vp;      /* packed tiles: scale·Q bqp×d, Kᵀ d×bkp, V bk×dvp (fused_task.c) */
    int failed;
    pthread_t thread;
} workspace;

/* A worker thread's loop: takes tasks from p->next until none is left or another worker stopped
 * (interrupt); sets w->failed when it stopped. arg is a workspace *. */
void *attn_fused_worker(void *arg);

#endif
