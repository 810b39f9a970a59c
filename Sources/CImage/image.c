// PNG through libpng's simplified API, JPEG through libjpeg(-turbo) with a longjmp error handler
// (libjpeg's default handler calls exit()). Both end as straight-alpha RGBA8.
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

static int load_png(const char *path, plx_image *out, char *error, size_t size) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) return fail(error, size, path, image.message);
    if (check_size(image.width, image.height, error, size, path) != 0) {
        png_image_free(&image);
        return -1;
    }
    image.format = PNG_FORMAT_RGBA;
    uint8_t *pixels = malloc((size_t)PNG_IMAGE_SIZE(image));
    if (!pixels) {
        png_image_free(&image);
        return fail(error, size, path, "out of memory");
    }
    if (!png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
        free(pixels);
        return fail(error, size, path, image.message);
    }
    out->width = image.width;
    out->height = image.height;
    out->pixels = pixels;
    return 0;
}

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

static int load_jpeg(const char *path, FILE *file, plx_image *out, char *error, size_t size) {
    struct jpeg_decompress_struct info;
    struct jpeg_failure failure;
    uint8_t *volatile pixels = NULL;
    info.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_escape;
    failure.manager.emit_message = jpeg_quiet;
    if (setjmp(failure.escape)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        return fail(error, size, path, failure.message);
    }
    jpeg_create_decompress(&info);
    jpeg_stdio_src(&info, file);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&info);
    if (check_size(info.output_width, info.output_height, error, size, path) != 0) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    size_t stride = (size_t)info.output_width * 4;
    pixels = malloc(stride * info.output_height);
    if (!pixels) {
        jpeg_destroy_decompress(&info);
        return fail(error, size, path, "out of memory");
    }
    while (info.output_scanline < info.output_height) {
        JSAMPROW row = pixels + stride * info.output_scanline;
        jpeg_read_scanlines(&info, &row, 1);
    }
    jpeg_finish_decompress(&info);
    out->width = info.output_width;
    out->height = info.output_height;
    out->pixels = pixels;
    jpeg_destroy_decompress(&info);
    return 0;
}

int plx_image_load(const char *path, plx_image *out, char *error, size_t error_size) {
    memset(out, 0, sizeof *out);
    FILE *file = fopen(path, "rb");
    if (!file) return fail(error, error_size, path, strerror(errno));
    unsigned char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof magic, file);
    int result;
    if (got == 8 && png_sig_cmp(magic, 0, 8) == 0) {
        fclose(file);
        return load_png(path, out, error, error_size);
    } else if (got >= 3 && magic[0] == 0xFF && magic[1] == 0xD8 && magic[2] == 0xFF) {
        rewind(file);
        result = load_jpeg(path, file, out, error, error_size);
    } else {
        result = fail(error, error_size, path, "not a PNG or JPEG file");
    }
    fclose(file);
    return result;
}

void plx_image_free(plx_image *image) {
    free(image->pixels);
    image->pixels = NULL;
    image->width = image->height = 0;
}
