/* kernel_sign.c — the signature of a Jupyter message: HMAC-SHA256, keyed by the connection file's
 * key, over the header, parent header, metadata and content, in lowercase hex (the protocol's
 * "hmac-sha256" scheme). The HMAC is OpenSSL's (libcrypto's EVP_MAC), never our own. And the
 * signatures seen, so that a replayed message is dropped. */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "kernel.h"

int attn_sign(const char *key, size_t keylen, const char *const *parts, const size_t *lens, int nparts,
              char hex[ATTN_SIGNATURE_HEX]) {
    unsigned char mac[EVP_MAX_MD_SIZE];
    size_t maclen = 0;
    int ok = 0;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                           OSSL_PARAM_construct_end()};
    /* fetched once: looking the algorithm up costs more than signing a message */
    static EVP_MAC *hmac = NULL;
    if (hmac == NULL) hmac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    EVP_MAC_CTX *ctx = hmac ? EVP_MAC_CTX_new(hmac) : NULL;
    if (ctx && EVP_MAC_init(ctx, (const unsigned char *)key, keylen, params)) {
        ok = 1;
        for (int i = 0; i < nparts && ok; i++)
            ok = EVP_MAC_update(ctx, (const unsigned char *)parts[i], lens[i]);
        ok = ok && EVP_MAC_final(ctx, mac, &maclen, sizeof mac) && maclen == 32;
    }
    EVP_MAC_CTX_free(ctx);
    if (!ok) return -1;
    for (size_t i = 0; i < maclen; i++) {
        static const char digits[] = "0123456789abcdef";
        hex[2 * i] = digits[mac[i] >> 4];
        hex[2 * i + 1] = digits[mac[i] & 15];
    }
    hex[2 * maclen] = '\0';
    return 0;
}

int attn_signature_equal(const char *a, size_t alen, const char *b, size_t blen) {
    return alen == blen && CRYPTO_memcmp(a, b, alen) == 0;
}

/* The signatures seen, as jupyter_client's Session keeps its digest_history: a message whose signature
 * came before is a replay (a captured execute_request sent again would run its code again). A table of
 * the last SEEN_MAX signatures, open addressing over twice as many slots; full, it starts afresh, as
 * jupyter_client culls its history (a replay older than 65,536 messages is no longer recognised). */
#define SEEN_MAX 65536
#define SEEN_SLOTS (2 * SEEN_MAX)

struct attn_seen {
    unsigned char (*slots)[32]; /* the signatures, binary; all zero: empty */
    size_t count;
};

static int hex_digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int attn_signature_seen(attn_seen **seen, const char hex[ATTN_SIGNATURE_HEX]) {
    unsigned char sig[32];
    static const unsigned char zero[32];
    for (int i = 0; i < 32; i++) sig[i] = (unsigned char)(hex_digit(hex[2 * i]) << 4 | hex_digit(hex[2 * i + 1]));
    if (memcmp(sig, zero, 32) == 0) return 0; /* never the signature of anything */
    if (*seen == NULL) {
        *seen = calloc(1, sizeof **seen);
        if (*seen == NULL) return 0;
    }
    attn_seen *s = *seen;
    if (s->slots == NULL || s->count >= SEEN_MAX) {
        free(s->slots);
        s->slots = calloc(SEEN_SLOTS, sizeof *s->slots);
        s->count = 0;
        if (s->slots == NULL) return 0;
    }
    size_t h = 0; /* the signature is an HMAC: its bytes are already uniformly spread */
    memcpy(&h, sig, sizeof h);
    for (size_t i = h % SEEN_SLOTS;; i = (i + 1) % SEEN_SLOTS) {
        if (memcmp(s->slots[i], sig, 32) == 0) return 1;
        if (memcmp(s->slots[i], zero, 32) == 0) {
            memcpy(s->slots[i], sig, 32);
            s->count++;
            return 0;
        }
    }
}

void attn_seen_free(attn_seen *seen) {
    if (seen) free(seen->slots);
    free(seen);
}
