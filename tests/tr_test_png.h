/*
** tr_test_png.h: reading back a PNG the renderer wrote, pixel by pixel, for
** the render tests (test_render.c, test_render_layout.c; they link cairo).
*/
#ifndef TR_TEST_PNG_H
#define TR_TEST_PNG_H

#include <cairo.h>
#include <stddef.h>
#include <stdint.h>

typedef struct png {
    cairo_surface_t *s;
    int w, h, stride;
    const unsigned char *data;
} png;

/* ^Opens PATH; 0, or -1 when it is no PNG cairo reads. */
static inline int png_open(png *p, const char *path)
{
    *p = (png){0};
    p->s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(p->s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(p->s);
        p->s = NULL;
        return -1;
    }
    cairo_surface_flush(p->s);
    p->w = cairo_image_surface_get_width(p->s);
    p->h = cairo_image_surface_get_height(p->s);
    p->stride = cairo_image_surface_get_stride(p->s);
    p->data = cairo_image_surface_get_data(p->s);
    return 0;
}

/* ^The 0xRRGGBB of pixel X, Y; 0xff000000 outside the picture. */
static inline uint32_t px(const png *p, int x, int y)
{
    if (!p->s || x < 0 || y < 0 || x >= p->w || y >= p->h) return 0xff000000u;
    return *(const uint32_t *)(const void *)(p->data + (size_t)y * (size_t)p->stride +
                                             (size_t)x * 4) &
           0xffffff;
}

static inline void png_close(png *p)
{
    if (p->s) cairo_surface_destroy(p->s);
}

#endif
