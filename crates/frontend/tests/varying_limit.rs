//! A program whose varyings need more locations than the backend has, even
//! packed (`shader::packing`), is refused at link with a log instead of
//! reaching a driver that may not check (lavapipe overflows its stack); one
//! over the limit only until packed links.
//!
//! `cargo nextest run -p frontend --test varying_limit`

mod common;

use mobilegl::gl::{get, shaders};

#[test]
fn too_many_varying_locations_fail_to_link() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        let mut comps = 0;
        get::glGetIntegerv(glow::MAX_VARYING_COMPONENTS, &mut comps);
        let locations = comps / 4;
        // One `ivec4` per location (packing cannot help): over the limit
        // by one.
        let n = locations + 1;
        let vs = format!(
            "#version 330 core\nflat out ivec4 v[{n}];\nvoid main() {{ for (int i = 0; i < {n}; i++) v[i] = ivec4(i); gl_Position = vec4(0.0); }}\n"
        );
        let fs = format!(
            "#version 330 core\nflat in ivec4 v[{n}];\nout vec4 o;\nvoid main() {{ o = vec4(float(v[{n} - 1].x)); }}\n"
        );
        let (p, linked) = common::try_link_stages(&[
            (glow::VERTEX_SHADER, vs.as_str()),
            (glow::FRAGMENT_SHADER, fs.as_str()),
        ]);
        assert!(
            !linked,
            "{n} int varyings over a limit of {locations} locations"
        );
        let mut log = vec![0u8; 512];
        let mut len = 0;
        shaders::glGetProgramInfoLog(p, 512, &mut len, log.as_mut_ptr().cast());
        let log = String::from_utf8_lossy(&log[..len as usize]);
        assert!(log.contains("locations"), "{log}");
        common::no_gl_error("link");

        // One `int` per location takes a quarter of that once packed.
        let vs = format!(
            "#version 330 core\nflat out int v[{n}];\nvoid main() {{ for (int i = 0; i < {n}; i++) v[i] = i; gl_Position = vec4(0.0); }}\n"
        );
        let fs = format!(
            "#version 330 core\nflat in int v[{n}];\nout vec4 o;\nvoid main() {{ o = vec4(float(v[{n} - 1])); }}\n"
        );
        let (_, linked) = common::try_link_stages(&[
            (glow::VERTEX_SHADER, vs.as_str()),
            (glow::FRAGMENT_SHADER, fs.as_str()),
        ]);
        assert!(linked, "{n} int varyings link once packed");
        common::no_gl_error("link");
    }
}
