/*
 * net.c - the network player (UNO_POLICY_NET; docs/net.md): a small network evaluated on
 * the observation the environments compute (observe.c), its answer the legal action of
 * highest logit.
 *
 * A uno_net is one block of memory: the header (uno.h) and, `data` bytes from its start,
 * the float32 weights in the order of the weight file (uno_sim/players/netfile.py).  The
 * binding builds the block once per file and process and every seat that plays the file
 * points at it; the GPU build reads a device copy of the same bytes.
 *
 * The forward pass is the normative one of docs/net.md, which the numpy twin
 * (netfile.forward) computes too, so that every target gives the same bits: per layer,
 * a = b, then for each input i in order whose value is not 0, a[j] = a[j] + x[i] * W[i][j]
 * (one float32 product, then one float32 sum: no fused multiply-add, -ffp-contract=off
 * here, -fmad=false on a GPU), then ReLU (a > 0 ? a : 0) on the hidden layers.  Skipping
 * the zero inputs is what makes the first layer cheap: an observation is mostly zeros.
 * The inner loop runs over the outputs j, contiguous in W: the compiler vectorises it
 * without reordering any sum.  The decision itself is float32 adds, products and
 * compares, and the explore knob's draw is the engine's integer draw: the CPU and the GPU
 * answer alike.  Nothing here allocates; the buffers are sized by uno.h's maxima.
 */
#include "uno.h"

#if defined(__CUDACC__)
#define NET_RESTRICT __restrict__
#else
#define NET_RESTRICT restrict
#endif

#define NET_DATA_ALIGN 64 /* the weights start on a cache line */

/* The layer's loop in two builds where the compiler and the loader can choose at run time
   (GCC on x86-64 Linux): AVX2 (8 floats a step: about 0.6x the time of a forward pass on
   the shipped sizes) or the baseline.  Both round every product and sum alike (no FMA:
   avx2 alone does not enable it, and -ffp-contract=off forbids contracting). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__CUDACC__)
#define NET_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NET_CLONES
#endif

UNO_HD static inline const float *net_weights(const uno_net *net)
{
    return (const float *)((const char *)net + net->data);
}

UNO_HD int64_t uno_net_setup(uno_net *net, int n_kinds, int seats, int flip, int extreme,
                             int n_layers, const int32_t *widths)
{
    memset(net, 0, sizeof *net);
    if (n_kinds < 1 || n_kinds > UNO_MAX_KINDS || seats < 2 || seats > UNO_MAX_PLAYERS ||
        flip < 0 || flip > 1 || extreme < 0 || extreme > 1 || n_layers < 1 ||
        n_layers > UNO_NET_MAX_LAYERS)
        return -1;
    uno_obs_layout_init(&net->L, n_kinds, seats, flip, extreme);
    if (net->L.size > UNO_NET_MAX_OBS)
        return -1;
    int in = net->L.size;
    int64_t at = 0;
    for (int l = 0; l < n_layers + 2; l++) { /* the hidden layers, the policy head, the value head */
        int out = l < n_layers ? widths[l] : l == n_layers ? net->L.n_actions : 1;
        if (out < 1 || out > UNO_NET_MAX_WIDTH)
            return -1;
        net->in[l] = in;
        net->out[l] = out;
        net->w[l] = at;
        at += (int64_t)in * out;
        net->b[l] = at;
        at += out;
        if (l < n_layers)
            in = out; /* both heads read the last hidden layer */
    }
    net->n_layers = n_layers;
    net->n_floats = at;
    net->data = ((int64_t)sizeof(uno_net) + NET_DATA_ALIGN - 1) / NET_DATA_ALIGN * NET_DATA_ALIGN;
    return at;
}

UNO_HD int uno_net_fits(const uno_net *net, const uno_config *cfg, const uno_table *t)
{
    return net != NULL && net->L.n_kinds == t->n_kinds && net->L.flip == (t->n_sides == 2) &&
           net->L.extreme == (cfg->draw_source == UNO_DRAW_LAUNCHER) &&
           net->L.seats >= cfg->players;
}

/*
 * One layer, docs/net.md's loop: a[0..out) = b, then a += x[i] * W[i] for every input i in
 * order with x[i] != 0.  Vectorised over j (restrict: a, x and W never overlap).
 */
UNO_HD NET_CLONES static void net_layer(const float *NET_RESTRICT x, int in, const float *NET_RESTRICT w,
                             const float *NET_RESTRICT b, int out, float *NET_RESTRICT a)
{
    for (int j = 0; j < out; j++)
        a[j] = b[j];
    for (int i = 0; i < in; i++) {
        const float xi = x[i];
        if (xi == 0.0f)
            continue;
        const float *NET_RESTRICT row = w + (int64_t)i * out;
        for (int j = 0; j < out; j++)
            a[j] = a[j] + xi * row[j];
    }
}

/* The hidden layers on obs, in buf[2][UNO_NET_MAX_WIDTH] by turns; the last one's units. */
UNO_HD static const float *net_trunk(const uno_net *net, const float *obs, float *buf)
{
    const float *W = net_weights(net), *x = obs;
    for (int l = 0; l < net->n_layers; l++) {
        float *a = buf + (l & 1) * UNO_NET_MAX_WIDTH;
        const int out = net->out[l];
        net_layer(x, net->in[l], W + net->w[l], W + net->b[l], out, a);
        for (int j = 0; j < out; j++)
            a[j] = a[j] > 0.0f ? a[j] : 0.0f;
        x = a;
    }
    return x;
}

UNO_HD void uno_net_forward(const uno_net *net, const float *obs, float *logits, float *value)
{
    float buf[2 * UNO_NET_MAX_WIDTH];
    const float *W = net_weights(net), *h = net_trunk(net, obs, buf);
    const int l = net->n_layers;
    if (logits)
        net_layer(h, net->in[l], W + net->w[l], W + net->b[l], net->out[l], logits);
    if (value)
        net_layer(h, net->in[l + 1], W + net->w[l + 1], W + net->b[l + 1], 1, value);
}

/* Seat p's observation for the network at `decision`, with the game's scaling, into L,
   obs, mask and kind_index. */
UNO_HD static void net_observe(uno_game *g, const uno_net *net, int p, int decision, int arg,
                               uno_obs_layout *L, float *obs, int8_t *mask, int16_t *kind_index)
{
    *L = net->L;
    uno_obs_scale_env(L, g->cfg->target, g->t->n_cards);
    if (L->flip) /* the observation shows the draw pile's top card's other face (F6) */
        uno_draw_settle(g);
    uno_observe(g, L, p, decision, arg, obs, mask, kind_index);
}

UNO_HD float uno_net_value(uno_game *g, const uno_net *net, int p, int decision, int arg)
{
    uno_obs_layout L;
    float obs[UNO_NET_MAX_OBS], v = 0.0f;
    int8_t mask[UNO_NET_MAX_ACTIONS];
    int16_t kind_index[UNO_MAX_KINDS];
    net_observe(g, net, p, decision, arg, &L, obs, mask, kind_index);
    uno_net_forward(net, obs, NULL, &v);
    return v;
}

UNO_HD int uno_net_decide(uno_game *g, int p, int decision, int arg, int honest)
{
    const uno_policy *pol = &g->pol[p];
    const uno_net *net = pol->net;
    uno_obs_layout L;
    float obs[UNO_NET_MAX_OBS], logits[UNO_NET_MAX_ACTIONS];
    int8_t mask[UNO_NET_MAX_ACTIONS];
    int16_t kind_index[UNO_MAX_KINDS];
    int16_t legal[UNO_NET_MAX_ACTIONS];
    net_observe(g, net, p, decision, arg, &L, obs, mask, kind_index);
    if (honest && decision == UNO_DEC_PLAY && uno_holds_color(g, p)) /* C7: no bluff */
        for (int k = 0; k < L.n_kinds; k++)
            mask[k] = (int8_t)(mask[k] && !g->t->restricted[k]);
    int n = 0;
    for (int a = 0; a < L.n_actions; a++)
        if (mask[a])
            legal[n++] = (int16_t)a;
    int act = legal[0]; /* one legal answer: taken without the network */
    if (n > 1 && uno_dec_bernoulli(g, p, UNO_DK_NET, pol->explore)) {
        act = legal[uno_dec_bounded(g, p, UNO_DK_NET, (uint32_t)n)];
    } else if (n > 1) {
        uno_net_forward(net, obs, logits, NULL);
        for (int i = 1; i < n; i++) /* the highest logit, the lowest id among equals */
            if (logits[legal[i]] > logits[act])
                act = legal[i];
    }
    return uno_env_answer(&L, g->n, g->side, p, decision, act, kind_index);
}

#if !defined(__CUDACC_RTC__)
uint64_t uno_fnv1a64(const void *p, size_t n, uint64_t h)
{
    const uint8_t *s = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= UINT64_C(0x100000001B3);
    }
    return h;
}
#endif
