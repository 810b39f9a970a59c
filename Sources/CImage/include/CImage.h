// Decodes PNG and JPEG files into 8-bit RGBA for parallax-wallpaper (libpng, libjpeg-turbo).
#ifndef PLX_CIMAGE_H
#define PLX_CIMAGE_H

#include <stddef.h>
#include <stdint.h>

/// A decoded picture: width × height pixels, 4 bytes each (R, G, B, A, straight alpha), rows top
/// to bottom with no padding. `pixels` is malloc'ed: release it with plx_image_free.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint8_t *pixels;
} plx_image;

/// Largest side accepted (pixels): a bigger file is refused instead of eating memory.
#define PLX_IMAGE_MAX_SIDE 16384

/// Loads `path` (PNG or JPEG, told apart by their signatures). Returns 0 and fills `out`, or -1
/// and writes a sentence to `error` (never more than `error_size` bytes, NUL-terminated).
int plx_image_load(const char *path, plx_image *out, char *error, size_t error_size);

/// Releases the pixels of an image filled by plx_image_load (safe on a zeroed image).
void plx_image_free(plx_image *image);

#endif
