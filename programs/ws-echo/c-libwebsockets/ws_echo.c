/*
 * WebSocket echo server (langbench ws-echo): C + libwebsockets (lws 4.x).
 * Usage: ws_echo <port>   (listens on 127.0.0.1 only, any path)
 * Build: gcc -O2 -o ws-echo ws_echo.c -lwebsockets
 *
 * Every received message (reassembled from its fragments) is queued on its
 * connection and written back, when the socket is writable, with the same
 * type (text or binary) and the same bytes.
 */
#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct msg {
    struct msg *next;
    size_t len;
    int binary;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then the payload */
};

struct session {
    struct msg *head, *tail; /* messages waiting to be echoed */
    unsigned char *rx;       /* message being reassembled */
    size_t rx_len, rx_cap;
    int rx_binary;
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
    (void)sig;
    interrupted = 1;
}

static void free_session(struct session *s) {
    while (s->head) {
        struct msg *m = s->head;
        s->head = m->next;
        free(m);
    }
    s->tail = NULL;
    free(s->rx);
    s->rx = NULL;
    s->rx_len = s->rx_cap = 0;
}

static int callback_echo(struct lws *wsi, enum lws_callback_reasons reason,
                         void *user, void *in, size_t len) {
    struct session *s = user;

    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        memset(s, 0, sizeof *s);
        break;

    case LWS_CALLBACK_RECEIVE: {
        if (lws_is_first_fragment(wsi)) {
            s->rx_len = 0;
            s->rx_binary = lws_frame_is_binary(wsi);
        }
        if (s->rx_len + len > s->rx_cap) {
            size_t cap = s->rx_cap ? s->rx_cap : 256;
            while (cap < s->rx_len + len)
                cap *= 2;
            unsigned char *p = realloc(s->rx, cap);
            if (!p)
                return -1;
            s->rx = p;
            s->rx_cap = cap;
        }
        memcpy(s->rx + s->rx_len, in, len);
        s->rx_len += len;
        if (!lws_is_final_fragment(wsi))
            break;

        struct msg *m = malloc(sizeof *m + LWS_PRE + s->rx_len);
        if (!m)
            return -1;
        m->next = NULL;
        m->len = s->rx_len;
        m->binary = s->rx_binary;
        memcpy(m->buf + LWS_PRE, s->rx, s->rx_len);
        if (s->tail)
            s->tail->next = m;
        else
            s->head = m;
        s->tail = m;
        s->rx_len = 0;
        lws_callback_on_writable(wsi);
        break;
    }

    case LWS_CALLBACK_SERVER_WRITEABLE: {
        struct msg *m = s->head;
        if (!m)
            break;
        int n = lws_write(wsi, m->buf + LWS_PRE, m->len,
                          m->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
        s->head = m->next;
        if (!s->head)
            s->tail = NULL;
        free(m);
        if (n < 0)
            return -1;
        if (s->head)
            lws_callback_on_writable(wsi);
        break;
    }

    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_WSI_DESTROY:
        if (s)
            free_session(s);
        break;

    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    /* the first protocol is used when the client asks for none */
    {"echo", callback_echo, sizeof(struct session), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0}
};

int main(int argc, char **argv) {
    int port = argc > 1 ? atoi(argv[1]) : 8080;
    struct lws_context_creation_info info;
    struct lws_context *context;

    lws_set_log_level(LLL_ERR, NULL); /* nothing per connection */

    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;

    context = lws_create_context(&info);
    if (!context) {
        fprintf(stderr, "c-libwebsockets: cannot listen on 127.0.0.1:%d\n", port);
        return 1;
    }
    fprintf(stderr, "c-libwebsockets ws-echo listening on 127.0.0.1:%d\n", port);

    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    int n = 0;
    while (n >= 0 && !interrupted)
        n = lws_service(context, 0);

    lws_context_destroy(context);
    return 0;
}
