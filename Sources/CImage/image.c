// PNG through libpng (row by row), JPEG through libjpeg(-turbo) with DCT scaling; both with a
// longjmp error handler (the libraries' default handlers print or call exit()). Rows go through
// an area-average resampler as they are decoded, so only the scaled result is ever held in full
// (an interlaced PNG is the exception: its passes need the whole image first).
#include "CImage.h"

#include <errno.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

static int fail(char *error, size_t size, const char *path, const char *why) {
    if (error && size) snprintf(error, size, "%s: %s", path, why);
    return -1;
}

static int check_size(uint32_t width, uint32_t height, char *error, size_t size, const char *path) {
    if (width == 0 || height == 0) return fail(error, size, path, "the image is empty");
    if (width > PLX_IMAGE_MAX_SIDE || height > PLX_IMAGE_MAX_SIDE) {
        char why[96];
        snprintf(why, sizeof why, "%ux%u is larger than %d pixels on a side", width, height, PLX_IMAGE_MAX_SIDE);
        return fail(error, size, path, why);
    }
    return 0;
}

/// The size a width × height picture is decoded at to fit max_width × max_height (0 = no limit),
/// aspect kept, never larger than the picture, at least 1 × 1.
static void fitted_size(uint32_t width, uint32_t height, uint32_t max_width, uint32_t max_height, uint32_t *out_width,
                        uint32_t *out_height) {
    double factor = 1;
    if (max_width && max_width < width) factor = (double)max_width / width;
    if (max_height && max_height < height && (double)max_height / height < factor) factor = (double)max_height / height;
    if (factor >= 1) {
        *out_width = width;
        *out_height = height;
        return;
    }
    uint32_t w = (uint32_t)(width * factor + 0.5), h = (uint32_t)(height * factor + 0.5);
    *out_width = w ? w : 1;
    *out_height = h ? h : 1;
}

// MARK: resampling

/// Takes straight-alpha RGBA rows of a source_width-wide picture, source_height of them, top to
/// bottom, and writes the premultiplied area average of each block of them into a width × height
/// picture (width ≤ source_width, height ≤ source_height).
typedef struct {
    uint32_t source_width, source_height, width, height;
    uint32_t *column_start;     // width + 1 source column boundaries
    uint64_t *sums;             // width × 4: premultiplied colour sums (×255) and alpha sums
    uint32_t source_row, row, rows_summed;
    uint8_t *pixels;
} resampler;

static int resampler_init(resampler *r, uint32_t source_width, uint32_t source_height, uint32_t width, uint32_t height) {
    memset(r, 0, sizeof *r);
    r->source_width = source_width;
    r->source_height = source_height;
    r->width = width;
    r->height = height;
    r->column_start = malloc(sizeof(uint32_t) * ((size_t)width + 1));
    r->sums = calloc((size_t)width * 4, sizeof(uint64_t));
    r->pixels = malloc((size_t)width * height * 4);
    if (!r->column_start || !r->sums || !r->pixels) return -1;
    for (uint32_t i = 0; i <= width; i++) r->column_start[i] = (uint32_t)((uint64_t)i * source_width / width);
    return 0;
}

/// Hands the pixels over to `out` (the resampler no longer owns them).
static void resampler_finish(resampler *r, plx_image *out) {
    out->width = r->width;
    out->height = r->height;
    out->pixels = r->pixels;
    r->pixels = NULL;
}

static void resampler_free(resampler *r) {
    free(r->column_start);
    free(r->sums);
    free(r->pixels);
    memset(r, 0, sizeof *r);
}

/// Premultiplies with rounding: c·a/255.
static inline uint8_t premultiply(uint32_t c, uint32_t a) {
    uint32_t product = c * a + 128;
    return (uint8_t)((product + (product >> 8)) >> 8);
}

static void resampler_push(resampler *r, const uint8_t *row) {
    if (r->row >= r->height) return;
    if (r->width == r->source_width && r->height == r->source_height) {
        uint8_t *target = r->pixels + (size_t)r->row * r->width * 4;
        for (uint32_t x = 0; x < r->width; x++) {
            const uint8_t *p = row + (size_t)x * 4;
            target[x * 4 + 0] = premultiply(p[0], p[3]);
            target[x * 4 + 1] = premultiply(p[1], p[3]);
            target[x * 4 + 2] = premultiply(p[2], p[3]);
            target[x * 4 + 3] = p[3];
        }
        r->row++;
        r->source_row++;
        return;
    }
    for (uint32_t x = 0; x < r->width; x++) {
        uint64_t *sum = r->sums + (size_t)x * 4;
        for (uint32_t sx = r->column_start[x]; sx < r->column_start[x + 1]; sx++) {
            const uint8_t *p = row + (size_t)sx * 4;
            sum[0] += (uint32_t)p[0] * p[3];
            sum[1] += (uint32_t)p[1] * p[3];
            sum[2] += (uint32_t)p[2] * p[3];
            sum[3] += p[3];
        }
    }
    r->rows_summed++;
    r->source_row++;
    uint32_t row_end = (uint32_t)((uint64_t)(r->row + 1) * r->source_height / r->height);
    if (r->source_row < row_end && r->source_row < r->source_height) return;
    uint8_t *target = r->pixels + (size_t)r->row * r->width * 4;
    for (uint32_t x = 0; x < r->width; x++) {
        uint64_t *sum = r->sums + (size_t)x * 4;
        uint64_t count = (uint64_t)(r->column_start[x + 1] - r->column_start[x]) * r->rows_summed;
        for (int c = 0; c < 3; c++) target[x * 4 + c] = (uint8_t)((sum[c] + count * 255 / 2) / (count * 255));
        target[x * 4 + 3] = (uint8_t)((sum[3] + count / 2) / count);
        memset(sum, 0, sizeof(uint64_t) * 4);
    }
    r->rows_summed = 0;
    r->row++;
}

// MARK: PNG

struct png_failure {
    jmp_buf escape;
    char message[200];
};

static void png_escape(png_structp png, png_const_charp message) {
    struct png_failure *failure = png_get_error_ptr(png);
    snprintf(failure->message, sizeof failure->message, "%s", message);
    longjmp(failure->escape, 1);
}

static void png_quiet(png_structp png, png_const_charp message) { (void)png; (void)message; }

static int load_png(const char *path, FILE *file, uint32_t max_width, uint32_t max_height, int probe, plx_image *out,
                    char *error, size_t size) {
    struct png_failure failure = {.message = "cannot decode"};
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &failure, png_escape, png_quiet);
    if (!png) return fail(error, size, path, "out of memory");
    png_infop info = png_create_info_struct(png);
    resampler r;
    memset(&r, 0, sizeof r);
    uint8_t *volatile row = NULL;
    uint8_t *volatile whole = NULL;
    if (!info || setjmp(failure.escape)) {
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        resampler_free(&r);
        free(row);
        free(whole);
        return fail(error, size, path, info ? failure.message : "out of memory");
    }
    png_init_io(png, file);
    png_read_info(png, info);
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    int sized = check_size(width, height, error, size, path);
    if (sized != 0 || probe) {
        png_destroy_read_struct(&png, &info, NULL);
        out->width = width;
        out->height = height;
        return sized;
    }
    // Whatever the file holds (palette, grey, 16 bits, with or without alpha) → RGBA8.
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    uint32_t target_width, target_height;
    fitted_size(width, height, max_width, max_height, &target_width, &target_height);
    if (resampler_init(&r, width, height, target_width, target_height) != 0) longjmp(failure.escape, 1);
    size_t stride = (size_t)width * 4;
    if (passes > 1) {
        // Interlaced: each pass refines every row, so the whole picture is needed before rows are final.
        whole = malloc(stride * height);
        if (!whole) longjmp(failure.escape, 1);
        png_bytep *rows = malloc(sizeof(png_bytep) * height);
        if (!rows) longjmp(failure.escape, 1);
        for (uint32_t y = 0; y < height; y++) rows[y] = whole + stride * y;
        png_read_image(png, rows);
        free(rows);
        for (uint32_t y = 0; y < height; y++) resampler_push(&r, whole + stride * y);
    } else {
        row = malloc(stride);
        if (!row) longjmp(failure.escape, 1);
        for (uint32_t y = 0; y < height; y++) {
            png_read_row(png, row, NULL);
            resampler_push(&r, row);
        }
    }
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(row);
    free(whole);
    resampler_finish(&r, out);
    resampler_free(&r);
    return 0;
}

// MARK: JPEG

struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    char message[JMSG_LENGTH_MAX];
};

static void jpeg_escape(j_common_ptr info) {
    struct jpeg_failure *failure = (struct jpeg_failure *)info->err;
    info->err->format_message(info, failure->message);
    longjmp(failure->escape, 1);
}

static void jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

static int load_jpeg(const char *path, FILE *file, uint32_t max_width, uint32_t max_height, int probe, plx_image *out,
                     char *error, size_t size) {
    struct jpeg_decompress_struct info;
    struct jpeg_failure failure;
    resampler r;
    memset(&r, 0, sizeof r);
    uint8_t *volatile row = NULL;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_escape;
    failure.manager.emit_message = jpeg_quiet;
    if (setjmp(failure.escape)) {
        jpeg_destroy_decompress(&info);
        resampler_free(&r);
        free(row);
        return fail(error, size, path, failure.message);
    }
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file);
    jpeg_read_header(&info, TRUE);
    int sized = check_size(info.image_width, info.image_height, error, size, path);
    if (sized != 0 || probe) {
        out->width = info.image_width;
        out->height = info.image_height;
        jpeg_destroy_decompress(&info);
        return sized;
    }
    uint32_t target_width, target_height;
    fitted_size(info.image_width, info.image_height, max_width, max_height, &target_width, &target_height);
    // The smallest DCT scaling M/8 whose output is still at least the target on both sides: the
    // decoder then does most of the shrinking for free, the area average the rest.
    info.out_color_space = JCS_EXT_RGBA;
    info.scale_denom = 8;
    for (unsigned num = 1; num <= 8; num++) {
        info.scale_num = num;
        jpeg_calc_output_dimensions(&info);
        if (info.output_width >= target_width && info.output_height >= target_height) break;
    }
    jpeg_start_decompress(&info);
    if (target_width > info.output_width) target_width = info.output_width;
    if (target_height > info.output_height) target_height = info.output_height;
    if (resampler_init(&r, info.output_width, info.output_height, target_width, target_height) != 0) {
        snprintf(failure.message, sizeof failure.message, "out of memory");
        longjmp(failure.escape, 1);
    }
    row = malloc((size_t)info.output_width * 4);
    if (!row) {
        snprintf(failure.message, sizeof failure.message, "out of memory");
        longjmp(failure.escape, 1);
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW rows[1] = {row};
        jpeg_read_scanlines(&info, rows, 1);
        resampler_push(&r, row);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    free(row);
    resampler_finish(&r, out);
    resampler_free(&r);
    return 0;
}

// MARK: entry points

static int open_image(const char *path, uint32_t max_width, uint32_t max_height, int probe, plx_image *out, char *error,
                      size_t error_size) {
    memset(out, 0, sizeof *out);
    FILE *file = fopen(path, "rb");
    if (!file) return fail(error, error_size, path, strerror(errno));
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, file);
    rewind(file);
    int result;
    if (got == 8 && png_sig_cmp(magic, 0, 8) == 0) {
        result = load_png(path, file, max_width, max_height, probe, out, error, error_size);
    } else if (got >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) {
        result = load_jpeg(path, file, max_width, max_height, probe, out, error, error_size);
    } else {
        result = fail(error, error_size, path, "not a PNG or JPEG file");
    }
    fclose(file);
    return result;
}

int plx_image_probe(const char *path, uint32_t *width, uint32_t *height, char *error, size_t error_size) {
    plx_image header;
    if (open_image(path, 0, 0, 1, &header, error, error_size) != 0) return -1;
    *width = header.width;
    *height = header.height;
    return 0;
}

int plx_image_load(const char *path, uint32_t max_width, uint32_t max_height, plx_image *out, char *error,
                   size_t error_size) {
    return open_image(path, max_width, max_height, 0, out, error, error_size);
}

void plx_image_free(plx_image *image) {
    free(image->pixels);
    image->pixels = NULL;
    image->width = image->height = 0;
}
