"""Headless phoc 0.24 (Phosh's compositor; wlroots 0.15 like sway 1.7) for the wallpaper tests:
`WLR_BACKENDS=headless WLR_RENDERER=pixman` (its GLES2 renderer needs a DRM device), run as the
account like sway, outputs set in its phoc.ini. It offers wlr-screencopy, so grim takes the
screenshots."""
from desktop import Compositor


class Phoc(Compositor):
    """phoc with `outputs` headless outputs of width×height pixels; `transform` is the ini's
    `rotate=` value in degrees."""
    name = 'phoc'
    SOCKET = 'wayland-0'

    def __init__(self, width=640, height=360, transform=None, scale=None, outputs=1):
        super().__init__()
        lines = ['[core]', 'xwayland=false']
        for n in range(1, outputs + 1):
            lines += ['[output:HEADLESS-%d]' % n, 'mode=%dx%d' % (width, height), 'scale=%s' % (scale or 1)]
            if transform is not None:
                lines.append('rotate=%s' % transform)
        config = self.write_config('phoc.ini', '\n'.join(lines) + '\n')
        self._launch(['phoc', '-C', config], {
            'PATH': '/usr/bin:/bin', 'HOME': self.home, 'XDG_RUNTIME_DIR': self.runtime, 'LANG': 'C.UTF-8',
            'WLR_BACKENDS': 'headless', 'WLR_RENDERER': 'pixman', 'WLR_LIBINPUT_NO_DEVICES': '1',
            'WLR_HEADLESS_OUTPUTS': str(outputs),
        }, self.SOCKET)
