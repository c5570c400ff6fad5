/* kernel_sign.c — the signature of a Jupyter message: HMAC-SHA256, keyed by the connection file's
 * key, over the header, parent header, metadata and content, in lowercase hex (the protocol's
 * "hmac-sha256" scheme). The HMAC is OpenSSL's (libcrypto's EVP_MAC), never our own. */
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
