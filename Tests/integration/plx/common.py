"""What every part of the harness shares: where the repository is, the device frame's reference
vectors, the IIO channel type names and the harness's own error."""
import os

# Repository root: Tests/integration/plx/common.py → three levels up.
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TRACES_DIR = os.path.join(REPO_ROOT, 'examples', 'traces')

# Standard gravity (m/s²); the device-frame accelerometer at rest has this magnitude.
GRAVITY = 9.80665
# Upright in the normal orientation (docs/frames.md): gravity points to the bottom of the screen.
UPRIGHT = (0.0, -GRAVITY, 0.0)
# Lying face-up on a table: gravity points into the screen.
FACE_UP = (0.0, 0.0, -GRAVITY)

# IIO channel type names for the two sensors (sysfs prefixes in_accel_*, in_anglvel_*).
ACCEL = 'accel'
GYRO = 'anglvel'


class HarnessError(Exception):
    """The harness could not do what a test asked (not a parallaxd failure by itself)."""
