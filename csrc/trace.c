/*
 * trace.c - the growable event buffer (layout in uno.h).
 *
 * Only called when a trace was asked for, so plain realloc doubling is
 * enough; a failed allocation drops records instead of stopping the game.
 */
#if !defined(__CUDACC_RTC__) /* NVRTC: no C library (uno_port.h) */
#include <stdlib.h>
#include <string.h>
#endif

#include "uno.h"

UNO_HD void uno_trace_init(uno_trace *tr)
{
    memset(tr, 0, sizeof *tr);
}

UNO_HD void uno_trace_free(uno_trace *tr)
{
#if !UNO_DEVICE /* traces are CPU only */
    free(tr->ev);
    free(tr->data);
#endif
    uno_trace_init(tr);
}

UNO_HD void uno_trace_clear(uno_trace *tr)
{
    tr->n_ev = 0;
    tr->n_data = 0;
    tr->failed = 0;
}

UNO_HD static int grow(void **buf, int64_t *cap, int64_t need, size_t item)
{
    if (need <= *cap)
        return 1;
    int64_t c = *cap ? *cap : 256;
    while (c < need)
        c *= 2;
#if UNO_DEVICE /* traces are CPU only: every record is dropped */
    void *p = NULL;
    (void)item;
#else
    void *p = realloc(*buf, (size_t)c * item);
#endif
    if (!p)
        return 0;
    *buf = p;
    *cap = c;
    return 1;
}

UNO_HD void uno_trace_event(uno_trace *tr, int type, int p, int a, int b, int c)
{
    if (tr->failed || !grow((void **)&tr->ev, &tr->cap_ev, tr->n_ev + 1, sizeof(uno_event))) {
        tr->failed = 1;
        return;
    }
    uno_event *e = &tr->ev[tr->n_ev++];
    e->type = type;
    e->p = p;
    e->a = a;
    e->b = b;
    e->c = c;
    e->off = (int32_t)tr->n_data;
    e->len = 0;
}

/* Room for n more data items; the last event's list area grows with them. */
UNO_HD static int reserve(uno_trace *tr, int64_t n)
{
    if (tr->failed || tr->n_ev == 0)
        return 0;
    if (!grow((void **)&tr->data, &tr->cap_data, tr->n_data + n, sizeof(int32_t))) {
        tr->failed = 1;
        return 0;
    }
    tr->ev[tr->n_ev - 1].len += (int32_t)n;
    return 1;
}

UNO_HD void uno_trace_cards(uno_trace *tr, const uint8_t *cards, int n)
{
    if (!reserve(tr, (int64_t)n + 1))
        return;
    int32_t *d = tr->data + tr->n_data;
    d[0] = n;
    for (int i = 0; i < n; i++)
        d[i + 1] = cards[i];
    tr->n_data += n + 1;
}

UNO_HD void uno_trace_ints(uno_trace *tr, const int32_t *v, int n)
{
    if (!reserve(tr, (int64_t)n + 1))
        return;
    int32_t *d = tr->data + tr->n_data;
    d[0] = n;
    memcpy(d + 1, v, (size_t)n * sizeof *v);
    tr->n_data += n + 1;
}

UNO_HD int64_t uno_trace_open(uno_trace *tr)
{
    if (!reserve(tr, 1))
        return -1;
    tr->data[tr->n_data] = 0;
    return tr->n_data++;
}

UNO_HD void uno_trace_push(uno_trace *tr, int32_t v)
{
    if (!reserve(tr, 1))
        return;
    tr->data[tr->n_data++] = v;
}

UNO_HD void uno_trace_close(uno_trace *tr, int64_t at)
{
    if (tr->failed || at < 0)
        return;
    tr->data[at] = (int32_t)(tr->n_data - at - 1);
}
