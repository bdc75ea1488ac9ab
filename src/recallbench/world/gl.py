"""Pick a headless OpenGL backend for MuJoCo before it is imported: EGL, else OSMesa.

MuJoCo reads MUJOCO_GL once, at import, so this must run first; an explicit MUJOCO_GL wins.
EGL is probed for a usable device (Mesa's EGL loads even where it cannot render) and the
result is cached per process.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys

_CHOSEN: str | None = None


def _egl_works() -> bool:
    name = ctypes.util.find_library("EGL")
    if not name:
        return False
    try:
        egl = ctypes.CDLL(name)
        egl.eglGetProcAddress.restype = ctypes.c_void_p
        egl.eglGetProcAddress.argtypes = [ctypes.c_char_p]
        egl.eglGetDisplay.restype = ctypes.c_void_p
        egl.eglGetDisplay.argtypes = [ctypes.c_void_p]
        egl.eglInitialize.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        egl.eglTerminate.argtypes = [ctypes.c_void_p]
        display = None
        # Same path MuJoCo's EGL context takes: the first EGL device, via the platform display.
        query = egl.eglGetProcAddress(b"eglQueryDevicesEXT")
        get_disp = egl.eglGetProcAddress(b"eglGetPlatformDisplayEXT")
        if query and get_disp:
            devices = (ctypes.c_void_p * 4)()
            n = ctypes.c_int(0)
            qfn = ctypes.CFUNCTYPE(
                ctypes.c_uint, ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)
            )(query)
            if qfn(4, devices, ctypes.byref(n)) and n.value > 0:
                gfn = ctypes.CFUNCTYPE(
                    ctypes.c_void_p, ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p
                )(get_disp)
                display = gfn(0x313F, devices[0], None)  # EGL_PLATFORM_DEVICE_EXT
        if not display:
            display = egl.eglGetDisplay(None)
        if not display:
            return False
        major, minor = ctypes.c_int(), ctypes.c_int()
        ok = bool(egl.eglInitialize(display, ctypes.byref(major), ctypes.byref(minor)))
        if ok:
            egl.eglTerminate(display)
        return ok
    except (OSError, AttributeError):
        return False


def select_backend() -> str:
    """Set MUJOCO_GL (and PyOpenGL's platform) if unset; return the backend in use."""
    global _CHOSEN
    if os.environ.get("MUJOCO_GL"):
        return os.environ["MUJOCO_GL"]
    if _CHOSEN is not None:
        return _CHOSEN
    if _egl_works():
        _CHOSEN = "egl"
    elif ctypes.util.find_library("OSMesa"):
        _CHOSEN = "osmesa"
    else:
        _CHOSEN = "glfw"
    os.environ["MUJOCO_GL"] = _CHOSEN
    if _CHOSEN in ("egl", "osmesa"):
        os.environ.setdefault("PYOPENGL_PLATFORM", _CHOSEN)
        if "mujoco" in sys.modules:
            _swap_context(_CHOSEN)
    return _CHOSEN


def _swap_context(backend: str) -> None:
    """MuJoCo was imported first and took its default (GLFW, which needs a display): point its
    renderer at the headless context instead. Renderer looks the class up at construction."""
    import importlib

    try:
        module = importlib.import_module(f"mujoco.{backend}")
        gl_context = importlib.import_module("mujoco.gl_context")
    except ImportError:
        return
    gl_context.GLContext = module.GLContext  # type: ignore[attr-defined]  # a plain module
