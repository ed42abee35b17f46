//! The generic attributes' current values through every form of GL 3.3
//! core (GL 4.6 §10.2), read back with `glGetVertexAttrib{fv,Iiv,Iuiv,dv}`:
//! component padding, normalized conversions, packed 10/10/10/2 values,
//! and the errors (index out of range, a packed type that is not one).
//!
//! `cargo nextest run -p frontend --test attrib_values`

mod common;
use common::{expect_error, make_context, no_gl_error};
use mobilegl::gl::attrib_values as av;

const ATTR: u32 = 3;

/// Attribute `ATTR`'s current value as floats.
unsafe fn floats() -> [f32; 4] {
    let mut v = [f32::NAN; 4];
    // SAFETY: room for four values; a context is current.
    unsafe { av::glGetVertexAttribfv(ATTR, glow::CURRENT_VERTEX_ATTRIB, v.as_mut_ptr()) };
    no_gl_error("glGetVertexAttribfv");
    v
}

#[test]
fn every_form_sets_the_current_value() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer argument points at as many values as its form reads.
    unsafe {
        make_context();
        av::glVertexAttrib2fv(ATTR, [5.0f32, 6.0].as_ptr());
        assert_eq!(floats(), [5.0, 6.0, 0.0, 1.0], "2fv pads with 0, 1");
        av::glVertexAttrib3s(ATTR, -2, 3, 4);
        assert_eq!(floats(), [-2.0, 3.0, 4.0, 1.0], "3s");
        av::glVertexAttrib4dv(ATTR, [0.5f64, 1.5, 2.5, 3.5].as_ptr());
        assert_eq!(floats(), [0.5, 1.5, 2.5, 3.5], "4dv");
        av::glVertexAttrib4ubv(ATTR, [0u8, 1, 128, 255].as_ptr());
        assert_eq!(floats(), [0.0, 1.0, 128.0, 255.0], "4ubv is not normalized");
        av::glVertexAttrib4Nubv(ATTR, [0u8, 51, 255, 255].as_ptr());
        assert_eq!(floats(), [0.0, 0.2, 1.0, 1.0], "4Nubv: c / 255");
        av::glVertexAttrib4Nsv(ATTR, [i16::MIN, -32767, 0, 32767].as_ptr());
        assert_eq!(floats(), [-1.0, -1.0, 0.0, 1.0], "4Nsv: max(c / 32767, -1)");
        av::glVertexAttrib4Nub(ATTR, 255, 0, 0, 255);
        assert_eq!(floats(), [1.0, 0.0, 0.0, 1.0], "4Nub");

        // Packed: x = 1023 (unsigned) / -1 (signed), y = 0, z = 512, w = 3.
        let packed = 1023 | (512 << 20) | (3 << 30);
        av::glVertexAttribP4ui(ATTR, glow::UNSIGNED_INT_2_10_10_10_REV, 1, packed);
        let v = floats();
        assert_eq!(
            [v[0], v[1], v[3]],
            [1.0, 0.0, 1.0],
            "P4ui unsigned normalized"
        );
        assert!((v[2] - 512.0 / 1023.0).abs() < 1e-6, "{v:?}");
        av::glVertexAttribP3uiv(ATTR, glow::INT_2_10_10_10_REV, 0, &packed);
        assert_eq!(floats(), [-1.0, 0.0, -512.0, 1.0], "P3uiv signed, w = 1");
        av::glVertexAttribP4ui(ATTR, glow::FLOAT, 0, packed);
        expect_error("P4ui with a non-packed type", glow::INVALID_ENUM);
        assert_eq!(
            floats(),
            [-1.0, 0.0, -512.0, 1.0],
            "an error changes nothing"
        );

        // Integer forms keep the integer bits.
        av::glVertexAttribI2i(ATTR, -7, 9);
        let mut i = [0i32; 4];
        av::glGetVertexAttribIiv(ATTR, glow::CURRENT_VERTEX_ATTRIB, i.as_mut_ptr());
        no_gl_error("glGetVertexAttribIiv");
        assert_eq!(i, [-7, 9, 0, 1], "I2i pads with 0, 1");
        av::glVertexAttribI4sv(ATTR, [-1i16, 2, -3, 4].as_ptr());
        av::glGetVertexAttribIiv(ATTR, glow::CURRENT_VERTEX_ATTRIB, i.as_mut_ptr());
        assert_eq!(i, [-1, 2, -3, 4], "I4sv sign-extends");
        av::glVertexAttribI3uiv(ATTR, [1u32, u32::MAX, 3].as_ptr());
        let mut u = [0u32; 4];
        av::glGetVertexAttribIuiv(ATTR, glow::CURRENT_VERTEX_ATTRIB, u.as_mut_ptr());
        assert_eq!(u, [1, u32::MAX, 3, 1], "I3uiv");
        let mut d = [0f64; 4];
        av::glGetVertexAttribdv(ATTR, glow::CURRENT_VERTEX_ATTRIB, d.as_mut_ptr());
        assert_eq!(d, [1.0, -1.0, 3.0, 1.0], "dv of an integer value");
        av::glVertexAttrib1d(ATTR, 0.25);
        av::glGetVertexAttribdv(ATTR, glow::CURRENT_VERTEX_ATTRIB, d.as_mut_ptr());
        assert_eq!(d, [0.25, 0.0, 0.0, 1.0], "dv of a float value");

        // Out of range: GL_INVALID_VALUE, for setters and getters alike.
        av::glVertexAttrib3fv(9999, [1.0f32, 2.0, 3.0].as_ptr());
        expect_error("3fv past GL_MAX_VERTEX_ATTRIBS", glow::INVALID_VALUE);
        av::glVertexAttribI1ui(9999, 1);
        expect_error("I1ui past GL_MAX_VERTEX_ATTRIBS", glow::INVALID_VALUE);
        av::glGetVertexAttribIuiv(9999, glow::CURRENT_VERTEX_ATTRIB, u.as_mut_ptr());
        expect_error("Iuiv past GL_MAX_VERTEX_ATTRIBS", glow::INVALID_VALUE);
        // A null pointer is ignored, not read.
        av::glVertexAttrib4Nuiv(ATTR, std::ptr::null());
        no_gl_error("4Nuiv with a null pointer");
    }
}
