"""The built-in MuJoCo home world: procedural homes, articulated kitchen fixtures, a mobile
manipulator with a magic gripper, rendering and navigation. See docs/world.md.

Importing this package chooses the headless GL backend (EGL, else OSMesa) before MuJoCo loads;
it does not import MuJoCo itself, so ``recallbench --help`` stays fast.
"""

from recallbench.world.gl import select_backend

select_backend()
