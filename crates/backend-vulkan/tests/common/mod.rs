//! Helpers shared by backend-vulkan's integration tests (each test binary
//! includes this module with `mod common;`).
#![allow(dead_code)]

use backend_vulkan::VulkanBackend;
use mgpipe::calls::*;
use mgpipe::{Context, Handle, Screen};

pub const CTX: Handle = Handle::new(1, 1);
pub const SURF: Handle = Handle::new(1, 1);

const GL_RGBA8: u32 = 0x8058;
const GL_DEPTH24_STENCIL8: u32 = 0x88F0;

/// The backend on the first usable Vulkan device; None (with a note) when
/// there is none, so the test skips.
pub fn open() -> Option<VulkanBackend> {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "warn".into()),
        )
        .with_test_writer()
        .try_init();
    match VulkanBackend::open_default() {
        Ok(b) => Some(b),
        Err(e) => {
            eprintln!("SKIP: no Vulkan device: {e}");
            None
        }
    }
}

/// Context `CTX` current on a `w`x`h` RGBA8 + D24S8 surface `SURF`, with
/// the viewport covering it.
pub fn current_surface(b: &mut VulkanBackend, w: u32, h: u32) {
    b.context_create(&ContextCreate {
        ctx: CTX,
        ..Default::default()
    });
    b.surface_create(&SurfaceCreate {
        surface: SURF,
        width: w,
        height: h,
        color_format: GL_RGBA8,
        depth_stencil_format: GL_DEPTH24_STENCIL8,
        samples: 0,
        ..Default::default()
    });
    b.make_current(&MakeCurrent {
        ctx: CTX,
        draw: SURF,
        read: SURF,
    });
    b.set_viewport(&SetViewport {
        x: 0.0,
        y: 0.0,
        width: w as f32,
        height: h as f32,
        near: 0.0,
        far: 1.0,
    });
}

/// SPIR-V (or any little-endian word stream) as 32-bit words.
pub fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}
