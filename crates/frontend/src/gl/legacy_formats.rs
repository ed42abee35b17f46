//! Legacy texture formats of compatibility contexts: the ALPHA, LUMINANCE,
//! LUMINANCE_ALPHA and INTENSITY families (GL 3.0 compatibility table 8.12,
//! ARB_texture_float, EXT_texture_sRGB) and the matching client pixel
//! formats.
//!
//! Neither backend has them (GLES 3 lost them as sized formats, Vulkan never
//! had them), so a texture asks for a real storage format here and its
//! sampler view carries a format swizzle composed with the application's
//! own `GL_TEXTURE_SWIZZLE_*`:
//! - ALPHA stores RGBA (rendering writes alpha where sampling reads it),
//!   sampled as (0, 0, 0, A);
//! - LUMINANCE and INTENSITY store one red channel (rendering to them stores
//!   red, as GL says), sampled as (L, L, L, 1) and (I, I, I, I);
//! - LUMINANCE_ALPHA stores RGBA, sampled as (L, L, L, A).
//!
//! Client pixels in GL_ALPHA / GL_LUMINANCE / GL_LUMINANCE_ALPHA are widened
//! to GL_RGBA of the same type before they are sent ([`widen_client_pixels`]),
//! so no backend sees those formats either. The level keeps the format the
//! application asked for (`LevelInfo::requested`), which answers
//! `GL_TEXTURE_INTERNAL_FORMAT` and the component-size queries.
//!
//! Owns no state; never touches the pipe.

#![forbid(unsafe_code)]

/// The legacy base formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegacyBase {
    Alpha,
    Luminance,
    LuminanceAlpha,
    Intensity,
}

/// What a legacy internal format is stored as and how it samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LegacyFormat {
    pub base: LegacyBase,
    /// The sized format the backends store.
    pub storage: u32,
    /// Bits per component of the storage (reported for L, A and I).
    pub bits: u32,
}

// ARB_texture_float / EXT_texture_sRGB / GL 1.1 enum values glow lacks.
const ALPHA32F_ARB: u32 = 0x8816;
const INTENSITY32F_ARB: u32 = 0x8817;
const LUMINANCE32F_ARB: u32 = 0x8818;
const LUMINANCE_ALPHA32F_ARB: u32 = 0x8819;
const ALPHA16F_ARB: u32 = 0x881C;
const INTENSITY16F_ARB: u32 = 0x881D;
const LUMINANCE16F_ARB: u32 = 0x881E;
const LUMINANCE_ALPHA16F_ARB: u32 = 0x881F;
pub(crate) const INTENSITY: u32 = 0x8049;
/// GL_TEXTURE_LUMINANCE_SIZE (compatibility profile).
pub const TEXTURE_LUMINANCE_SIZE: u32 = 0x8060;
/// GL_TEXTURE_INTENSITY_SIZE (compatibility profile).
pub const TEXTURE_INTENSITY_SIZE: u32 = 0x8061;
/// GL_TEXTURE_LUMINANCE_TYPE (compatibility profile).
pub const TEXTURE_LUMINANCE_TYPE: u32 = 0x8C14;
/// GL_TEXTURE_INTENSITY_TYPE (compatibility profile).
pub const TEXTURE_INTENSITY_TYPE: u32 = 0x8C15;
const ALPHA4: u32 = 0x803B;
const ALPHA8: u32 = 0x803C;
const ALPHA12: u32 = 0x803D;
const ALPHA16: u32 = 0x803E;
const LUMINANCE4: u32 = 0x803F;
const LUMINANCE8: u32 = 0x8040;
const LUMINANCE12: u32 = 0x8041;
const LUMINANCE16: u32 = 0x8042;
const LUMINANCE4_ALPHA4: u32 = 0x8043;
const LUMINANCE6_ALPHA2: u32 = 0x8044;
const LUMINANCE8_ALPHA8: u32 = 0x8045;
const LUMINANCE12_ALPHA4: u32 = 0x8046;
const LUMINANCE12_ALPHA12: u32 = 0x8047;
const LUMINANCE16_ALPHA16: u32 = 0x8048;
const INTENSITY4: u32 = 0x804A;
const INTENSITY8: u32 = 0x804B;
const INTENSITY12: u32 = 0x804C;
const INTENSITY16: u32 = 0x804D;
const SLUMINANCE_ALPHA: u32 = 0x8C44;
const SLUMINANCE8_ALPHA8: u32 = 0x8C45;
const SLUMINANCE: u32 = 0x8C46;
const SLUMINANCE8: u32 = 0x8C47;
// ARB_texture_compression's generic legacy formats (stored uncompressed,
// as GL allows).
const COMPRESSED_ALPHA: u32 = 0x84E9;
const COMPRESSED_LUMINANCE: u32 = 0x84EA;
const COMPRESSED_LUMINANCE_ALPHA: u32 = 0x84EB;
const COMPRESSED_INTENSITY: u32 = 0x84EC;
const COMPRESSED_SLUMINANCE: u32 = 0x8C4A;
const COMPRESSED_SLUMINANCE_ALPHA: u32 = 0x8C4B;

/// EXT_texture_integer's legacy families: (ALPHA*_EXT enum, RGBA storage,
/// one-channel storage, bits).
const INTEGER_FAMILIES: [(u32, u32, u32, u32); 6] = [
    (0x8D72, glow::RGBA32UI, glow::R32UI, 32),
    (0x8D78, glow::RGBA16UI, glow::R16UI, 16),
    (0x8D7E, glow::RGBA8UI, glow::R8UI, 8),
    (0x8D84, glow::RGBA32I, glow::R32I, 32),
    (0x8D8A, glow::RGBA16I, glow::R16I, 16),
    (0x8D90, glow::RGBA8I, glow::R8I, 8),
];

/// The storage of a legacy internal format, None for every other format.
/// Only meaningful in compatibility contexts (a core context refuses these
/// formats before asking).
pub fn legacy_format(requested: u32) -> Option<LegacyFormat> {
    use LegacyBase::*;
    let (base, storage, bits) = match requested {
        glow::ALPHA | ALPHA4 | ALPHA8 | COMPRESSED_ALPHA => (Alpha, glow::RGBA8, 8),
        ALPHA12 | ALPHA16 => (Alpha, glow::RGBA16, 16),
        ALPHA16F_ARB => (Alpha, glow::RGBA16F, 16),
        ALPHA32F_ARB => (Alpha, glow::RGBA32F, 32),
        // 1 is GL 1.0's "one component": LUMINANCE.
        glow::LUMINANCE | 1 | LUMINANCE4 | LUMINANCE8 | COMPRESSED_LUMINANCE => {
            (Luminance, glow::R8, 8)
        }
        LUMINANCE12 | LUMINANCE16 => (Luminance, glow::R16, 16),
        LUMINANCE16F_ARB => (Luminance, glow::R16F, 16),
        LUMINANCE32F_ARB => (Luminance, glow::R32F, 32),
        SLUMINANCE | SLUMINANCE8 | COMPRESSED_SLUMINANCE => (Luminance, glow::SRGB8_ALPHA8, 8),
        // 2 is GL 1.0's "two components": LUMINANCE_ALPHA.
        glow::LUMINANCE_ALPHA
        | 2
        | LUMINANCE4_ALPHA4
        | LUMINANCE6_ALPHA2
        | LUMINANCE8_ALPHA8
        | COMPRESSED_LUMINANCE_ALPHA => (LuminanceAlpha, glow::RGBA8, 8),
        LUMINANCE12_ALPHA4 | LUMINANCE12_ALPHA12 | LUMINANCE16_ALPHA16 => {
            (LuminanceAlpha, glow::RGBA16, 16)
        }
        LUMINANCE_ALPHA16F_ARB => (LuminanceAlpha, glow::RGBA16F, 16),
        LUMINANCE_ALPHA32F_ARB => (LuminanceAlpha, glow::RGBA32F, 32),
        SLUMINANCE_ALPHA | SLUMINANCE8_ALPHA8 | COMPRESSED_SLUMINANCE_ALPHA => {
            (LuminanceAlpha, glow::SRGB8_ALPHA8, 8)
        }
        INTENSITY | INTENSITY4 | INTENSITY8 | COMPRESSED_INTENSITY => (Intensity, glow::R8, 8),
        INTENSITY12 | INTENSITY16 => (Intensity, glow::R16, 16),
        INTENSITY16F_ARB => (Intensity, glow::R16F, 16),
        INTENSITY32F_ARB => (Intensity, glow::R32F, 32),
        // EXT_texture_integer: ALPHA, INTENSITY, LUMINANCE, LUMINANCE_ALPHA
        // follow each of its RGBA/RGB pairs in enum order.
        f @ 0x8D72..=0x8D93 => {
            let (first, rgba, red, bits) = INTEGER_FAMILIES
                .iter()
                .copied()
                .find(|(first, ..)| (*first..*first + 4).contains(&f))?;
            match f - first {
                0 => (Alpha, rgba, bits),
                1 => (Intensity, red, bits),
                2 => (Luminance, red, bits),
                _ => (LuminanceAlpha, rgba, bits),
            }
        }
        _ => return None,
    };
    Some(LegacyFormat {
        base,
        storage,
        bits,
    })
}

impl LegacyFormat {
    /// How the storage's channels read as this format's RGBA.
    pub fn swizzle(&self) -> [u32; 4] {
        let (r, a, z, one) = (glow::RED, glow::ALPHA, glow::ZERO, glow::ONE);
        match self.base {
            LegacyBase::Alpha => [z, z, z, a],
            LegacyBase::Luminance => [r, r, r, one],
            LegacyBase::LuminanceAlpha => [r, r, r, a],
            LegacyBase::Intensity => [r, r, r, r],
        }
    }

    /// GL_TEXTURE_BORDER_COLOR `b` as the storage's channels should hold
    /// it: GL converts the border colour to the base format first, so the
    /// components the format lacks never show, whatever a driver does with
    /// a border colour under the view's ZERO/ONE selectors.
    pub fn storage_border(&self, b: [f32; 4]) -> [f32; 4] {
        match self.base {
            LegacyBase::Alpha => [0.0, 0.0, 0.0, b[3]],
            LegacyBase::Luminance | LegacyBase::Intensity => [b[0], 0.0, 0.0, 1.0],
            LegacyBase::LuminanceAlpha => [b[0], 0.0, 0.0, b[3]],
        }
    }

    /// The size query `pname` (GL_TEXTURE_*_SIZE) of this format.
    pub fn component_bits(&self, pname: u32) -> u32 {
        use LegacyBase::*;
        let b = self.bits;
        match (pname, self.base) {
            (glow::TEXTURE_ALPHA_SIZE, Alpha | LuminanceAlpha) => b,
            (TEXTURE_LUMINANCE_SIZE, Luminance | LuminanceAlpha) => b,
            (TEXTURE_INTENSITY_SIZE, Intensity) => b,
            _ => 0,
        }
    }
}

/// GL_GENERATE_MIPMAP (compatibility profile texture parameter).
pub const GENERATE_MIPMAP: u32 = 0x8191;

/// GL_DEPTH_TEXTURE_MODE (compatibility profile).
pub const DEPTH_TEXTURE_MODE: u32 = 0x884B;

/// How a depth texture reads under GL_DEPTH_TEXTURE_MODE `mode`
/// (compatibility profile, default LUMINANCE): None for RED, which is the
/// storage's own (d, 0, 0, 1), and for values that are not modes.
pub fn depth_mode_swizzle(mode: u32) -> Option<[u32; 4]> {
    let (r, z, one) = (glow::RED, glow::ZERO, glow::ONE);
    match mode {
        glow::LUMINANCE => Some([r, r, r, one]),
        INTENSITY => Some([r, r, r, r]),
        glow::ALPHA => Some([z, z, z, r]),
        _ => None,
    }
}

/// Whether `mode` is a GL_DEPTH_TEXTURE_MODE value.
pub fn valid_depth_mode(mode: u32) -> bool {
    matches!(mode, glow::LUMINANCE | INTENSITY | glow::ALPHA | glow::RED)
}

/// The application's swizzle applied on top of a format swizzle: each
/// selector of `user` picks a component of the format's RGBA.
pub fn compose_swizzle(format: [u32; 4], user: [u32; 4]) -> [u32; 4] {
    user.map(|s| match s {
        glow::RED => format[0],
        glow::GREEN => format[1],
        glow::BLUE => format[2],
        glow::ALPHA => format[3],
        other => other,
    })
}

/// Whether `requested` is one of the unsized legacy formats (which
/// glTexStorage* refuses as it refuses GL_RGBA).
pub fn is_unsized(requested: u32) -> bool {
    matches!(
        requested,
        glow::ALPHA
            | glow::LUMINANCE
            | glow::LUMINANCE_ALPHA
            | INTENSITY
            | SLUMINANCE
            | SLUMINANCE_ALPHA
            | COMPRESSED_ALPHA
            | COMPRESSED_LUMINANCE
            | COMPRESSED_LUMINANCE_ALPHA
            | COMPRESSED_INTENSITY
            | COMPRESSED_SLUMINANCE
            | COMPRESSED_SLUMINANCE_ALPHA
            | 1
            | 2
    )
}

/// EXT_texture_integer's legacy client formats.
const ALPHA_INTEGER: u32 = mgpipe::pixels::gl::ALPHA_INTEGER;
const LUMINANCE_INTEGER: u32 = mgpipe::pixels::gl::LUMINANCE_INTEGER;
const LUMINANCE_ALPHA_INTEGER: u32 = mgpipe::pixels::gl::LUMINANCE_ALPHA_INTEGER;

/// Whether `format` is a legacy client pixel format.
pub fn is_legacy_client_format(format: u32) -> bool {
    matches!(
        format,
        glow::ALPHA
            | glow::LUMINANCE
            | glow::LUMINANCE_ALPHA
            | ALPHA_INTEGER
            | LUMINANCE_INTEGER
            | LUMINANCE_ALPHA_INTEGER
    )
}

/// The components per pixel of a legacy client `format`, and the RGBA
/// client format it widens to.
fn widened(format: u32) -> (usize, u32) {
    match format {
        glow::LUMINANCE_ALPHA => (2, glow::RGBA),
        LUMINANCE_ALPHA_INTEGER => (2, glow::RGBA_INTEGER),
        ALPHA_INTEGER | LUMINANCE_INTEGER => (1, glow::RGBA_INTEGER),
        _ => (1, glow::RGBA),
    }
}

/// The bytes of the integer 1 in type `ty` (the alpha an integer
/// luminance pixel gains); None for other types.
fn integer_one(ty: u32) -> Option<&'static [u8]> {
    Some(match ty {
        glow::UNSIGNED_BYTE | glow::BYTE => &[1],
        glow::UNSIGNED_SHORT | glow::SHORT => &[1, 0],
        glow::UNSIGNED_INT | glow::INT => &[1, 0, 0, 0],
        _ => return None,
    })
}

/// The bytes of a component of type `ty` that read as 1.0 (or the largest
/// value of a normalised integer type); None for packed or unknown types.
fn one_of(ty: u32) -> Option<&'static [u8]> {
    Some(match ty {
        glow::UNSIGNED_BYTE => &[0xFF],
        glow::BYTE => &[0x7F],
        glow::UNSIGNED_SHORT => &[0xFF, 0xFF],
        glow::SHORT => &[0xFF, 0x7F],
        glow::UNSIGNED_INT => &[0xFF, 0xFF, 0xFF, 0xFF],
        glow::INT => &[0xFF, 0xFF, 0xFF, 0x7F],
        glow::HALF_FLOAT => &[0x00, 0x3C],
        glow::FLOAT => &[0x00, 0x00, 0x80, 0x3F],
        _ => return None,
    })
}

/// Tight client pixels of a legacy client `format` widened to GL_RGBA of
/// the same type: ALPHA → (0, 0, 0, A), LUMINANCE → (L, L, L, 1),
/// LUMINANCE_ALPHA → (L, L, L, A) (GL 4.6 compatibility table 8.9). None
/// for a packed type (refused earlier by the format/type check).
pub fn widen_client_pixels(format: u32, ty: u32, tight: &[u8]) -> Option<Vec<u8>> {
    let (comps, rgba) = widened(format);
    let one = if rgba == glow::RGBA_INTEGER {
        integer_one(ty)?
    } else {
        one_of(ty)?
    };
    let c = one.len();
    let texels = tight.len() / (c * comps);
    let mut out = Vec::with_capacity(texels * 4 * c);
    let zero = [0u8; 4];
    for px in tight.chunks_exact(c * comps) {
        let first = &px[..c];
        match format {
            glow::ALPHA | ALPHA_INTEGER => {
                for _ in 0..3 {
                    out.extend_from_slice(&zero[..c]);
                }
                out.extend_from_slice(first);
            }
            glow::LUMINANCE | LUMINANCE_INTEGER => {
                for _ in 0..3 {
                    out.extend_from_slice(first);
                }
                out.extend_from_slice(one);
            }
            _ => {
                for _ in 0..3 {
                    out.extend_from_slice(first);
                }
                out.extend_from_slice(&px[c..2 * c]);
            }
        }
    }
    Some(out)
}

/// An upload in a legacy client format as GL_RGBA of the same type
/// (blob widened, `bpp` scaled); any other upload unchanged. An empty blob
/// (no data) only changes the format.
pub fn widen_upload(
    format: u32,
    ty: u32,
    bpp: usize,
    blob: std::borrow::Cow<'_, [u8]>,
) -> (std::borrow::Cow<'_, [u8]>, u32, usize) {
    if !is_legacy_client_format(format) {
        return (blob, format, bpp);
    }
    let (comps, rgba) = widened(format);
    let rgba_bpp = bpp / comps * 4;
    if blob.is_empty() {
        return (blob, rgba, rgba_bpp);
    }
    match widen_client_pixels(format, ty, &blob) {
        Some(w) => (std::borrow::Cow::Owned(w), rgba, rgba_bpp),
        None => (blob, format, bpp),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_store_and_sample_as_gl_says() {
        let a = legacy_format(ALPHA8).unwrap();
        assert_eq!(a.storage, glow::RGBA8);
        assert_eq!(
            a.swizzle(),
            [glow::ZERO, glow::ZERO, glow::ZERO, glow::ALPHA]
        );
        assert_eq!(a.component_bits(glow::TEXTURE_ALPHA_SIZE), 8);
        assert_eq!(a.component_bits(glow::TEXTURE_RED_SIZE), 0);
        let l = legacy_format(LUMINANCE16F_ARB).unwrap();
        assert_eq!(l.storage, glow::R16F);
        assert_eq!(l.component_bits(TEXTURE_LUMINANCE_SIZE), 16);
        let i = legacy_format(INTENSITY8).unwrap();
        assert_eq!(i.swizzle(), [glow::RED; 4]);
        assert_eq!(i.component_bits(TEXTURE_INTENSITY_SIZE), 8);
        // ARB_texture_compression's generic formats store uncompressed.
        let ci = legacy_format(COMPRESSED_INTENSITY).unwrap();
        assert_eq!((ci.base, ci.storage), (LegacyBase::Intensity, glow::R8));
        let cla = legacy_format(COMPRESSED_LUMINANCE_ALPHA).unwrap();
        assert_eq!(cla.base, LegacyBase::LuminanceAlpha);
        let la = legacy_format(LUMINANCE8_ALPHA8).unwrap();
        assert_eq!(la.storage, glow::RGBA8);
        assert_eq!(la.component_bits(TEXTURE_LUMINANCE_SIZE), 8);
        assert_eq!(la.component_bits(glow::TEXTURE_ALPHA_SIZE), 8);
        // EXT_texture_integer: LUMINANCE_ALPHA8I_EXT, ALPHA32UI_EXT; the
        // RGBA/RGB integer enums between them are not legacy.
        let li = legacy_format(0x8D93).unwrap();
        assert_eq!(
            (li.base, li.storage),
            (LegacyBase::LuminanceAlpha, glow::RGBA8I)
        );
        let au = legacy_format(0x8D72).unwrap();
        assert_eq!(
            (au.base, au.storage, au.bits),
            (LegacyBase::Alpha, glow::RGBA32UI, 32)
        );
        assert_eq!(legacy_format(glow::RGBA8I), None);
        assert_eq!(legacy_format(glow::RGB16UI), None);
        assert_eq!(legacy_format(glow::RGBA8), None);
        assert_eq!(legacy_format(glow::R8), None);
    }

    #[test]
    fn border_colour_keeps_only_the_format_components() {
        let b = [0.1, 0.9, 0.5, 0.8];
        let a = legacy_format(glow::ALPHA).unwrap();
        assert_eq!(a.storage_border(b), [0.0, 0.0, 0.0, 0.8]);
        let la = legacy_format(glow::LUMINANCE_ALPHA).unwrap();
        assert_eq!(la.storage_border(b), [0.1, 0.0, 0.0, 0.8]);
    }

    #[test]
    fn user_swizzle_selects_format_components() {
        let f = legacy_format(glow::ALPHA).unwrap().swizzle();
        let identity = [glow::RED, glow::GREEN, glow::BLUE, glow::ALPHA];
        assert_eq!(compose_swizzle(f, identity), f);
        // The application reads alpha into red: the stored alpha.
        let user = [glow::ALPHA, glow::ONE, glow::RED, glow::ZERO];
        assert_eq!(
            compose_swizzle(f, user),
            [glow::ALPHA, glow::ONE, glow::ZERO, glow::ZERO]
        );
    }

    #[test]
    fn client_pixels_widen_to_rgba() {
        let l = widen_client_pixels(glow::LUMINANCE, glow::UNSIGNED_BYTE, &[7, 9]).unwrap();
        assert_eq!(l, [7, 7, 7, 255, 9, 9, 9, 255]);
        let a = widen_client_pixels(glow::ALPHA, glow::UNSIGNED_BYTE, &[5]).unwrap();
        assert_eq!(a, [0, 0, 0, 5]);
        let la = widen_client_pixels(glow::LUMINANCE_ALPHA, glow::UNSIGNED_SHORT, &[1, 2, 3, 4])
            .unwrap();
        assert_eq!(la, [1, 2, 1, 2, 1, 2, 3, 4]);
        let f = widen_client_pixels(glow::LUMINANCE, glow::FLOAT, &0.5f32.to_le_bytes()).unwrap();
        assert_eq!(&f[12..16], &1.0f32.to_le_bytes());
        assert!(widen_client_pixels(glow::ALPHA, glow::UNSIGNED_SHORT_5_6_5, &[0, 0]).is_none());
    }

    #[test]
    fn integer_client_pixels_widen_to_rgba_integer() {
        // LUMINANCE_INTEGER: alpha is the integer 1, not the type's maximum.
        let l = widen_client_pixels(LUMINANCE_INTEGER, glow::SHORT, &[7, 1]).unwrap();
        assert_eq!(l, [7, 1, 7, 1, 7, 1, 1, 0]);
        let a = widen_client_pixels(ALPHA_INTEGER, glow::UNSIGNED_BYTE, &[5]).unwrap();
        assert_eq!(a, [0, 0, 0, 5]);
        let (blob, format, bpp) = widen_upload(
            LUMINANCE_ALPHA_INTEGER,
            glow::UNSIGNED_BYTE,
            2,
            std::borrow::Cow::Borrowed(&[3, 4][..]),
        );
        assert_eq!(
            (&blob[..], format, bpp),
            (&[3, 3, 3, 4][..], glow::RGBA_INTEGER, 4)
        );
        assert!(widen_client_pixels(ALPHA_INTEGER, glow::FLOAT, &[0; 4]).is_none());
    }
}
