// The system libraries parallax-wallpaper draws with: libwayland-client, wayland-egl, EGL and
// OpenGL ES 2 (Debian: libwayland-dev, libegl-dev, libgles-dev).
#include <wayland-client.h>
#include <wayland-egl.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES2/gl2.h>
