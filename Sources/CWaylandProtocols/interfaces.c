// See include/wayland-interfaces.h. Not generated: wayland-scanner's output is the *-protocol.c
// files next to this one.
#include "wayland-interfaces.h"
#include "fractional-scale-v1-client-protocol.h"
#include "presentation-time-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-shell-client-protocol.h"

const struct wl_interface *plx_wl_compositor_interface(void) { return &wl_compositor_interface; }
const struct wl_interface *plx_wl_output_interface(void) { return &wl_output_interface; }
const struct wl_interface *plx_xdg_wm_base_interface(void) { return &xdg_wm_base_interface; }
const struct wl_interface *plx_zwlr_layer_shell_v1_interface(void) { return &zwlr_layer_shell_v1_interface; }
const struct wl_interface *plx_wp_presentation_interface(void) { return &wp_presentation_interface; }
const struct wl_interface *plx_wp_viewporter_interface(void) { return &wp_viewporter_interface; }
const struct wl_interface *plx_wp_fractional_scale_manager_v1_interface(void) { return &wp_fractional_scale_manager_v1_interface; }
