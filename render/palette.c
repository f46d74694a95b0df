/* palette.c: stable colours and marker shapes for names. */
#include "render_impl.h"
#include "tr_map.h"

#include <math.h>
#include <strings.h>

/* The tree's one string hash: the same bytes give the same colour in every run. */
static uint32_t name_hash(const char *s, size_t n)
{
    return (uint32_t)tr_hash_bytes(s, n);
}

static int name_is(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    return n == w && strncasecmp(s, word, n) == 0;
}

/*
** GT's visualize colours for its op names (formats/gt.md section 6), but
** allgather: GT's ecf0f1 would not show on a white lane, so it is darkened.
*/
static const struct {
    const char *name;
    uint32_t rgb;
} gt_ops[] = {
    {"matmul", 0xe74c3c},    {"add", 0x3498db},   {"sub", 0x16a085},        {"mul", 0x9b59b6},
    {"div", 0xf39c12},       {"relu", 0x27ae60},  {"sigmoid", 0x2980b9},    {"tanh", 0x1abc9c},
    {"sum", 0x8e44ad},       {"mean", 0xd35400},  {"transpose", 0x229954},  {"getdata", 0xc0392b},
    {"allgather", 0xbdc3c7}, {"randn", 0xe84393}, {"freetensor", 0x95a5a6}, {"other", 0x7f8c8d},
};

/*
** GT command families: a client command and its worker form ("WorkerBinaryOp")
** share a colour, and the families differ from each other; the colour is the
** one GT gives the op the family stands for where there is one.
*/
static const struct {
    const char *name;
    uint32_t rgb;
} gt_families[] = {
    {"matmul", 0xe74c3c},       {"binaryop", 0x3498db},       {"unaryop", 0x27ae60},
    {"createtensor", 0xe84393}, {"freetensor", 0x95a5a6},     {"getdata", 0xc0392b},
    {"batch", 0xe67e22},        {"registerworker", 0x7f8c8d}, {"reshapeop", 0x9b59b6},
    {"sliceop", 0x1abc9c},
};

/* Instants of GT's event types, so that markers read the same in every log. */
static const struct {
    const char *name;
    uint32_t rgb;
    int shape;
} gt_events[] = {
    {"RECV", 0x1f77b4, TR_SHAPE_CIRCLE},
    {"SEND", 0x2ca02c, TR_SHAPE_SQUARE},
    {"WORKER_SEND", 0xff7f0e, TR_SHAPE_TRIANGLE_UP},
    {"WORKER_RECV", 0x9467bd, TR_SHAPE_TRIANGLE_DOWN},
    {"MODIFIER_INJECT", 0x8c564b, TR_SHAPE_DIAMOND},
    {"ERROR", 0xd62728, TR_SHAPE_CROSS},
};

/*
** d3's category20 (twenty colours that stay apart on white), then its
** category20b: where two names of a picture would share a colour, the later
** one moves on along this table.
*/
static const uint32_t palette[] = {
    0x1f77b4, 0xaec7e8, 0xff7f0e, 0xffbb78, 0x2ca02c, 0x98df8a, 0xd62728, 0xff9896,
    0x9467bd, 0xc5b0d5, 0x8c564b, 0xc49c94, 0xe377c2, 0xf7b6d2, 0x7f7f7f, 0xc7c7c7,
    0xbcbd22, 0xdbdb8d, 0x17becf, 0x9edae5, 0x393b79, 0x5254a3, 0x6b6ecf, 0x9c9ede,
    0x637939, 0x8ca252, 0xb5cf6b, 0xcedb9c, 0x8c6d31, 0xbd9e39, 0xe7ba52, 0xe7cb94,
    0x843c39, 0xad494a, 0xd6616b, 0xe7969c, 0x7b4173, 0xa55194, 0xce6dbd, 0xde9ed6,
};
#define PALETTE_N  (sizeof palette / sizeof *palette)
#define PALETTE_20 20 /* a name's own colour comes from the first twenty */

static int event_index(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof gt_events / sizeof *gt_events; i++)
        if (n == strlen(gt_events[i].name) && memcmp(name, gt_events[i].name, n) == 0)
            return (int)i;
    return -1;
}

/* GT's fixed colour of NAME, or -1. */
static int64_t fixed_color(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof gt_ops / sizeof *gt_ops; i++)
        if (name_is(name, n, gt_ops[i].name)) return gt_ops[i].rgb;
    int ev = event_index(name, n);
    if (ev >= 0) return gt_events[ev].rgb;
    const char *fam = name;
    size_t fn = n;
    if (n > 6 && strncmp(name, "Worker", 6) == 0) fam += 6, fn -= 6;
    for (size_t i = 0; i < sizeof gt_families / sizeof *gt_families; i++)
        if (name_is(fam, fn, gt_families[i].name)) return gt_families[i].rgb;
    return -1;
}

uint32_t tr_render_color(const char *name, size_t n)
{
    int64_t fixed = fixed_color(name, n);
    return fixed >= 0 ? (uint32_t)fixed : palette[name_hash(name, n) % PALETTE_20];
}

int tr_render_color_is_fixed(const char *name, size_t n)
{
    return fixed_color(name, n) >= 0;
}

/* RGB mixed with white (AMOUNT > 0) or black (< 0). */
static uint32_t shade(uint32_t rgb, double amount)
{
    uint32_t out = 0;
    for (int sh = 16; sh >= 0; sh -= 8) {
        double v = (rgb >> sh) & 0xff;
        v = amount > 0 ? v + (255 - v) * amount : v * (1 + amount);
        out |= (uint32_t)lround(v) << sh;
    }
    return out;
}

/* The K-th of an endless run of hues (golden angle) at a few saturations and values. */
static uint32_t generated(unsigned k)
{
    double h = fmod(k * 137.508, 360) / 60, s = 0.75 - 0.2 * (k % 3), v = 0.85 - 0.15 * (k / 3 % 3);
    double c = v * s, x = c * (1 - fabs(fmod(h, 2) - 1)), m = v - c;
    double rgb[3][6] = {{c, x, 0, 0, x, c}, {x, c, c, x, 0, 0}, {0, 0, x, c, c, x}};
    int i = (int)h % 6;
    uint32_t out = 0;
    for (int j = 0; j < 3; j++) out = out << 8 | (uint32_t)lround((rgb[j][i] + m) * 255);
    return out;
}

uint32_t tr_render_color_alt(const char *name, size_t n, unsigned k)
{
    if (k == 0) return tr_render_color(name, n);
    int64_t fixed = fixed_color(name, n);
    /* A fixed colour's family stays recognisable: shades of it first. */
    static const double shades[] = {-0.3, 0.4, -0.5, 0.6};
    if (fixed >= 0 && k <= 4) return shade((uint32_t)fixed, shades[k - 1]);
    if (fixed >= 0) k -= 4;
    if (k < PALETTE_N) return palette[(name_hash(name, n) % PALETTE_20 + k) % PALETTE_N];
    return generated(k - PALETTE_N);
}

uint32_t tr_render_flame_color(const char *name, size_t n)
{
    /* flamegraph.pl's "hot": red 205..255, green 0..230, blue 0..55. */
    uint32_t h = name_hash(name, n);
    uint32_t r = 205 + (h & 0xff) * 50 / 255;
    uint32_t g = ((h >> 8) & 0xff) * 230 / 255;
    uint32_t b = ((h >> 16) & 0xff) * 55 / 255;
    return r << 16 | g << 8 | b;
}

int tr_render_marker_shape(const char *name, size_t n)
{
    int ev = event_index(name, n);
    if (ev >= 0) return gt_events[ev].shape;
    return (int)(name_hash(name, n) % TR_SHAPE_COUNT);
}

int tr_render_fill_is_dark(uint32_t rgb)
{
    /* Rec. 601 luma: white text on dark fills, black on light ones. */
    double r = (rgb >> 16) & 0xff, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
    return 0.299 * r + 0.587 * g + 0.114 * b < 150;
}
