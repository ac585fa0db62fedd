#ifndef HOMEBASE_COPENSSL_SHIM_H
#define HOMEBASE_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/evp.h>

/* Macro-only OpenSSL calls, spelled as functions Swift can import. */
static inline int hb_ssl_ctx_set_min_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}
static inline long hb_ssl_ctx_set_mode(SSL_CTX *ctx, long mode) {
    return SSL_CTX_set_mode(ctx, mode);
}
static inline long hb_ssl_mode_partial_write_and_moving_buffer(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS;
}
static inline int hb_ssl_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
#include <string.h>

/* The connection's BIO (TLSSession): reads take ciphertext straight from the bytes the socket
   just gave (no memory BIO to copy them into first); writes go into the loop's output buffer,
   which the connection drains to the socket after every OpenSSL call. Neither holds bytes of its
   own: a record cut across reads waits in OpenSSL's record buffer. */
typedef struct {
    const unsigned char *input;
    size_t input_len;
    unsigned char *output;
    size_t output_len;
    size_t output_cap;
} hb_bio_io;

static inline int hb_bio_write(BIO *b, const char *data, int len) {
    hb_bio_io *io = (hb_bio_io *)BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (len <= 0) return 0;
    size_t room = io->output_cap - io->output_len;
    if (io->output == NULL || room == 0) { BIO_set_retry_write(b); return -1; }
    size_t n = (size_t)len < room ? (size_t)len : room;
    memcpy(io->output + io->output_len, data, n);
    io->output_len += n;
    return (int)n;
}

static inline int hb_bio_read(BIO *b, char *data, int len) {
    hb_bio_io *io = (hb_bio_io *)BIO_get_data(b);
    BIO_clear_retry_flags(b);
    if (len <= 0) return 0;
    if (io->input_len == 0) { BIO_set_retry_read(b); return -1; }
    size_t n = (size_t)len < io->input_len ? (size_t)len : io->input_len;
    memcpy(data, io->input, n);
    io->input += n;
    io->input_len -= n;
    return (int)n;
}

static inline long hb_bio_ctrl(BIO *b, int cmd, long num, void *ptr) {
    (void)num; (void)ptr;
    hb_bio_io *io = (hb_bio_io *)BIO_get_data(b);
    switch (cmd) {
    case BIO_CTRL_PENDING: return (long)io->input_len;
    case BIO_CTRL_WPENDING: return (long)io->output_len;
    case BIO_CTRL_FLUSH: return 1; /* the connection sends after every call */
    default: return 0;
    }
}

static inline int hb_bio_create(BIO *b) { BIO_set_init(b, 1); return 1; }

/* One method for the process (BIO_METHOD is read-only once made). */
static inline BIO_METHOD *hb_bio_method_new(void) {
    BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "homebase connection");
    if (m == NULL) return NULL;
    if (!BIO_meth_set_write(m, hb_bio_write) || !BIO_meth_set_read(m, hb_bio_read) ||
        !BIO_meth_set_ctrl(m, hb_bio_ctrl) || !BIO_meth_set_create(m, hb_bio_create)) {
        BIO_meth_free(m);
        return NULL;
    }
    return m;
}

/* A BIO over `io` (owned by the caller, which outlives the BIO). */
static inline BIO *hb_bio_new(BIO_METHOD *m, hb_bio_io *io) {
    BIO *b = BIO_new(m);
    if (b != NULL) BIO_set_data(b, io);
    return b;
}
/* --- The relay's own TLS 1.3 record layer (TLSRecordLayer.swift) ---------------------------
   OpenSSL runs the handshake; the application traffic secrets come out through the keylog
   callback into a struct of the session's (SSL app data), never as text anywhere else. */
#include <openssl/hmac.h>
#include <openssl/crypto.h>

typedef struct {
    unsigned char client[48];
    unsigned char server[48];
    unsigned char client_len;
    unsigned char server_len;
} hb_tls13_secrets;

static inline int hb_hex_nibble(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Lines are "LABEL <client random hex> <secret hex>"; only the two application secrets are kept. */
static inline void hb_keylog_capture(const SSL *ssl, const char *line) {
    hb_tls13_secrets *s = (hb_tls13_secrets *)SSL_get_ex_data(ssl, 0);
    if (s == NULL || line == NULL) return;
    unsigned char *dst; unsigned char *len; const char *p;
    if (strncmp(line, "CLIENT_TRAFFIC_SECRET_0 ", 24) == 0) { dst = s->client; len = &s->client_len; p = line + 24; }
    else if (strncmp(line, "SERVER_TRAFFIC_SECRET_0 ", 24) == 0) { dst = s->server; len = &s->server_len; p = line + 24; }
    else return;
    p = strchr(p, ' ');
    if (p == NULL) return;
    p++;
    size_t n = strlen(p);
    if (n % 2 != 0 || n / 2 > sizeof(s->client)) return;
    for (size_t i = 0; i < n / 2; i++) {
        int hi = hb_hex_nibble(p[2 * i]), lo = hb_hex_nibble(p[2 * i + 1]);
        if (hi < 0 || lo < 0) { OPENSSL_cleanse(dst, sizeof(s->client)); *len = 0; return; }
        dst[i] = (unsigned char)(hi << 4 | lo);
    }
    *len = (unsigned char)(n / 2);
}

static inline void hb_ssl_ctx_capture_secrets(SSL_CTX *ctx) { SSL_CTX_set_keylog_callback(ctx, hb_keylog_capture); }
static inline int hb_ssl_set_secrets(SSL *ssl, hb_tls13_secrets *s) { return SSL_set_ex_data(ssl, 0, s); }

static inline int hb_evp_ctrl_aead_set_tag(void) { return EVP_CTRL_AEAD_SET_TAG; }
static inline int hb_evp_ctrl_aead_get_tag(void) { return EVP_CTRL_AEAD_GET_TAG; }
static inline int hb_tls1_3_version(void) { return TLS1_3_VERSION; }
static inline int hb_tls1_2_version(void) { return TLS1_2_VERSION; }
static inline int hb_ssl_ctx_set_max_tls12(SSL_CTX *ctx) { return (int)SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION); }
#endif
