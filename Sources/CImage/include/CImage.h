// Decodes PNG and JPEG files into 8-bit premultiplied RGBA for parallax-wallpaper (libpng,
// libjpeg-turbo), scaled down while decoding to the size the picture is shown at, so a photo far
// larger than the screen never sits in memory at full size.
#ifndef PLX_CIMAGE_H
#define PLX_CIMAGE_H

#include <stddef.h>
#include <stdint.h>

/// A decoded picture: width × height pixels, 4 bytes each (R, G, B, A, premultiplied alpha), rows
/// top to bottom with no padding. `pixels` is malloc'ed: release it with plx_image_free.
typedef struct {
    uint32_t width;
    uint32_t height;
    uint8_t *pixels;
} plx_image;

/// Largest side of a file accepted (pixels): a bigger file is refused instead of eating time.
#define PLX_IMAGE_MAX_SIDE 16384

/// Reads only the header of `path` (PNG or JPEG, told apart by their signatures): its size in
/// pixels. Returns 0, or -1 and a sentence in `error` (at most `error_size` bytes, NUL-terminated).
int plx_image_probe(const char *path, uint32_t *width, uint32_t *height, char *error, size_t error_size);

/// Decodes `path` to fit within `max_width` × `max_height` pixels (0 = no limit on that side),
/// aspect kept: a larger file is decoded scaled down (JPEG: libjpeg's DCT scaling to the smallest eighth that is
/// still large enough, then an area average; PNG: an area average row by row as rows are read),
/// never up. Returns 0 and fills `out`, or -1 and writes a sentence to `error`.
int plx_image_load(const char *path, uint32_t max_width, uint32_t max_height, plx_image *out, char *error,
                   size_t error_size);

/// Releases the pixels of an image filled by plx_image_load (safe on a zeroed image).
void plx_image_free(plx_image *image);

#endif
