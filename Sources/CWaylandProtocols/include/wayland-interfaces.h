// Addresses of the protocol interface descriptions, for wl_registry_bind from Swift. Swift would
// copy an imported `const struct wl_interface` to a temporary when asked for its address, and
// libwayland keeps the pointer in the proxy: it has to be the real one.
#ifndef PLX_WAYLAND_INTERFACES_H
#define PLX_WAYLAND_INTERFACES_H

#include <wayland-client.h>

const struct wl_interface *plx_wl_compositor_interface(void);
const struct wl_interface *plx_wl_output_interface(void);
const struct wl_interface *plx_xdg_wm_base_interface(void);
const struct wl_interface *plx_zwlr_layer_shell_v1_interface(void);
const struct wl_interface *plx_wp_presentation_interface(void);
const struct wl_interface *plx_wp_viewporter_interface(void);
const struct wl_interface *plx_wp_fractional_scale_manager_v1_interface(void);

#endif
