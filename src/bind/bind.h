/* bind.h — helpers shared by the Lua bindings (the files in src/bind).
 *
 * A tensor is a full userdata holding one attn_tensor* (NULL until the core call that fills it has
 * succeeded, so a Lua error can never leak a half-made tensor). Errors are Lua errors whose message
 * starts with the user-facing function name: "softmax: dim 4 is out of range for a 3-D tensor". */
#ifndef ATTN_BIND_H
#define ATTN_BIND_H

#include <lauxlib.h>
#include <lua.h>

#include "ops.h"
#include "tensor.h"

#define ATTN_TENSOR_MT "attn.Tensor"
#define ATTN_SIZE_MT "attn.Size"
#define ATTN_DTYPE_MT "attn.dtype"

/* tensor.c (bindings) */
attn_tensor *lt_test(lua_State *L, int idx);                 /* NULL when not a tensor */
attn_tensor *lt_check(lua_State *L, int idx, const char *fn, const char *what); /* what: "input", "mask" */
attn_tensor **lt_newslot(lua_State *L);                      /* pushes an empty tensor userdata */
/* Stores t in the slot on top of the stack, or raises err when t is NULL. Returns 1 (values pushed). */
int lt_finish(lua_State *L, attn_tensor **slot, attn_tensor *t, const attn_error *err);
/* Pushes the element at storage offset `at` as Lua sees it: a boolean, an integer (int64) or a float. */
int lt_push_element(lua_State *L, const attn_tensor *t, int64_t at);
void lt_push_size(lua_State *L, int ndim, const int64_t *shape);
int lt_raise(lua_State *L, const attn_error *err);
/* The error a Ctrl-C raises (the core's loops stop with the message "interrupted", and lt_raise turns
 * that into this): the plain string "interrupted", without a position. */
int lt_interrupted(lua_State *L);
/* luaL_error with the C library's printf formats (lua_pushfstring has no %lld or %g), translated as attn_fail's
 * are (attn_tr): fmt is a string literal, extracted into src/po/<lang>/lib/core.po. */
int lt_error(lua_State *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Argument helpers */
const char *lt_typename(lua_State *L, int idx); /* "number", "Tensor", "torch.Size", ... */
int64_t lt_check_integer(lua_State *L, int idx, const char *fn, const char *what);
double lt_check_number(lua_State *L, int idx, const char *fn, const char *what);
/* A Lua number or boolean as an attn_number: a Lua integer stays an exact int64, a float a double. */
attn_number lt_check_value(lua_State *L, int idx, const char *fn, const char *what);
/* A dtype object (torch.float32, torch.int64, torch.bool) at idx, or -1 if idx holds something else. */
int lt_test_dtype(lua_State *L, int idx);
/* A 1-based (or negative) user dim at idx -> 0-based, checked against ndim. */
int lt_check_dim(lua_State *L, int idx, int ndim, const char *fn);
/* Sizes given as numbers (idx..top) or as one table/torch.Size at idx. Returns ndim. A trailing
 * options table (string keys) is not part of the shape. */
int lt_check_shape(lua_State *L, int idx, const char *fn, int64_t *shape);
int lt_check_shape_table(lua_State *L, int idx, const char *fn, int64_t *shape);
/* The trailing options table of a call, or 0 when the last argument is not an options table. */
int lt_options_index(lua_State *L, int first);
/* Pushes argument `pos` if it is given positionally (and is not the options table), otherwise the
 * options table's field `name`, otherwise nil. Returns the pushed value's type. It pushes: a caller
 * that reads several positions must first lua_settop to the highest one (after lt_options_index). */
int lt_arg(lua_State *L, int pos, int opts, const char *name);
int lt_is_options(lua_State *L, int idx);
/* Every key of the options table at opts (0: none) must be one of known (NULL-terminated; PyTorch's
 * aliases axis and keepdims count for dim and keepdim), else an error naming fn, with "did you mean"
 * for a near miss: a misspelt option silently ignored would give a different answer. */
void lt_check_options(lua_State *L, int opts, const char *fn, const char *const *known);
/* lt_options_index, then lt_check_options on what it found. */
int lt_options(lua_State *L, int first, const char *fn, const char *const *known);
/* alpha.c: the options table of a binary operation at 3 checked (only add and sub take one, {alpha});
 * with alpha given, the result is pushed and 1 returned, otherwise 0 (nothing pushed). */
int lt_binary_options(lua_State *L, const char *fn, int takes_alpha, int negate);
int lt_is_size(lua_State *L, int idx);

/* Account the bytes of tensors allocated since the last call with Lua's garbage collector. */
void lt_account(lua_State *L);

/* index.c: the Tensor metatable's __index (upvalues: the methods table, the torch table), __newindex,
 * __len and __pairs. */
int lt_tensor_index(lua_State *L);
int lt_tensor_newindex(lua_State *L);
int lt_tensor_len(lua_State *L);
int lt_tensor_pairs(lua_State *L);

/* views.c: a 1-based (or negative) index along dim d -> 0-based (0 and out of range are errors);
 * x.T's view (all dims reversed). */
int64_t lt_check_index(lua_State *L, int idx, const attn_tensor *t, int d, const char *fn);
attn_tensor *lt_reversed(const attn_tensor *t, attn_error *err);

/* The binding modules. Each returns its parts: a table whose fields name the library tables it adds
 * to, each holding its functions: {torch = {...}, methods = {...}} (methods: the Tensor methods,
 * t:name()), {attention = {...}}, {functional = {...}} (nn.functional), {metatable = {...}} (the
 * Tensor's operators), {errors = {...}}. src/bind/init.c, the one wiring point, opens them in order
 * and merges the parts into the module attn.bind. */
int luaopen_attn_tensor(lua_State *L);    /* bind/tensor.c: the Tensor type, torch.Size, the dtypes */
int luaopen_attn_deadline(lua_State *L);  /* bind/deadline.c: testing.call_within, for the fuzzer */
/* lua_memory.c: the memory limits in front of the allocator of a state made by luaL_newstate (./attn's). */
void lt_guard_lua_memory(lua_State *L);
int luaopen_attn_create(lua_State *L);    /* bind/create.c */
int luaopen_attn_views(lua_State *L);     /* bind/views.c */
int luaopen_attn_ops(lua_State *L);       /* bind/ops.c */
int luaopen_attn_variance(lua_State *L);  /* bind/variance.c: var and std */
int luaopen_attn_random(lua_State *L);    /* bind/random.c */
int luaopen_attn_attention(lua_State *L); /* bind/attention.c: the stages */
int luaopen_attn_fused(lua_State *L);     /* bind/fused.c: attention.fused */
int luaopen_attn_threads(lua_State *L);   /* bind/threads.c: torch.set_num_threads, get_num_threads, kernels */
int luaopen_attn_layers(lua_State *L);    /* bind/layers.c */
int luaopen_attn_safetensors(lua_State *L); /* bind/safetensors.c: safetensors.load_file/save_file, json.decode */
int luaopen_attn_regex(lua_State *L);       /* bind/regex.c: regex.compile (PCRE2), for GPT-2's tokenizer */
int luaopen_attn_unicode(lua_State *L);      /* bind/unicode.c: unicode.normalize (utf8proc), for tokenizer.json's normalizers */
int luaopen_attn_sampling(lua_State *L);    /* bind/sampling.c: topk, multinomial, exponential_ */
int luaopen_attn_errors(lua_State *L);    /* bind/args.c: which frame is the user's, for src/lua/errors.lua */
int luaopen_attn_markdown(lua_State *L);  /* bind/markdown.c: code blocks of a Markdown text (libcmark) */
int luaopen_attn_autograd(lua_State *L);  /* bind/autograd.c: the dispatch in front of differentiable ops */
int lt_autograd_dispatch(lua_State *L);   /* that dispatch: src/bind/args.c counts its frame as the library's */
int luaopen_attn_i18n(lua_State *L);      /* bind/i18n.c: the embedded translation catalogs */
int luaopen_attn_learn(lua_State *L);     /* bind/learn.c: addcmul, gather, randperm, the losses */
int luaopen_attn_files(lua_State *L);     /* bind/files.c: files.write (core/safe_write.c), paths */
/* Sets field `name` of the parts table on top of the stack to a new table holding the functions of
 * list `a` and of list `b` (either may be NULL). */
void lt_newpart(lua_State *L, const char *name, const luaL_Reg *a, const luaL_Reg *b);
/* torch.tensor (bind/create.c), for bindings that accept a table of numbers where a tensor goes. */
int lt_torch_tensor(lua_State *L);

#endif
