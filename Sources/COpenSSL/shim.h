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
#endif
