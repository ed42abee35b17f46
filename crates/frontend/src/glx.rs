//! GLX entry points (stubs on surfaceless platforms), owned by the window-system layer.
