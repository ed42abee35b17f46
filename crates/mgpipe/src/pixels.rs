//! Client pixel data shared by the backends: the size of a desktop-GL
//! (format, type) pair, the tight size of an image box, CPU conversion
//! between pairs, and the size checks of a `get_texture_image` reply.
//!
//! Backend-neutral: GL enums are plain `u32` (desktop values, [`gl`]), no
//! driver types. What a backend can read or store natively (GLES readable
//! pairs, Vulkan formats, conversions that depend on the storage format)
//! stays in that backend's `emulation.rs`.
//!
//! Every function is total over client-controlled input: an unknown pair, a
//! short buffer or a size that overflows gives `None` (or an error), never
//! a panic.

use thiserror::Error;

/// The GL enums this module reads (desktop GL values).
pub mod gl {
    pub const BYTE: u32 = 0x1400;
    pub const UNSIGNED_BYTE: u32 = 0x1401;
    pub const SHORT: u32 = 0x1402;
    pub const UNSIGNED_SHORT: u32 = 0x1403;
    pub const INT: u32 = 0x1404;
    pub const UNSIGNED_INT: u32 = 0x1405;
    pub const FLOAT: u32 = 0x1406;
    pub const HALF_FLOAT: u32 = 0x140B;

    pub const UNSIGNED_BYTE_3_3_2: u32 = 0x8032;
    pub const UNSIGNED_SHORT_4_4_4_4: u32 = 0x8033;
    pub const UNSIGNED_SHORT_5_5_5_1: u32 = 0x8034;
    pub const UNSIGNED_INT_8_8_8_8: u32 = 0x8035;
    pub const UNSIGNED_INT_10_10_10_2: u32 = 0x8036;
    pub const UNSIGNED_BYTE_2_3_3_REV: u32 = 0x8362;
    pub const UNSIGNED_SHORT_5_6_5: u32 = 0x8363;
    pub const UNSIGNED_SHORT_5_6_5_REV: u32 = 0x8364;
    pub const UNSIGNED_SHORT_4_4_4_4_REV: u32 = 0x8365;
    pub const UNSIGNED_SHORT_1_5_5_5_REV: u32 = 0x8366;
    pub const UNSIGNED_INT_8_8_8_8_REV: u32 = 0x8367;
    pub const UNSIGNED_INT_2_10_10_10_REV: u32 = 0x8368;
    pub const UNSIGNED_INT_24_8: u32 = 0x84FA;
    pub const UNSIGNED_INT_10F_11F_11F_REV: u32 = 0x8C3B;
    pub const UNSIGNED_INT_5_9_9_9_REV: u32 = 0x8C3E;
    pub const FLOAT_32_UNSIGNED_INT_24_8_REV: u32 = 0x8DAD;

    pub const STENCIL_INDEX: u32 = 0x1901;
    pub const DEPTH_COMPONENT: u32 = 0x1902;
    pub const RED: u32 = 0x1903;
    pub const GREEN: u32 = 0x1904;
    pub const BLUE: u32 = 0x1905;
    pub const ALPHA: u32 = 0x1906;
    pub const RGB: u32 = 0x1907;
    pub const RGBA: u32 = 0x1908;
    pub const LUMINANCE: u32 = 0x1909;
    pub const LUMINANCE_ALPHA: u32 = 0x190A;
    pub const BGR: u32 = 0x80E0;
    pub const BGRA: u32 = 0x80E1;
    pub const RG: u32 = 0x8227;
    pub const RG_INTEGER: u32 = 0x8228;
    pub const DEPTH_STENCIL: u32 = 0x84F9;
    pub const RED_INTEGER: u32 = 0x8D94;
    pub const GREEN_INTEGER: u32 = 0x8D95;
    pub const BLUE_INTEGER: u32 = 0x8D96;
    pub const RGB_INTEGER: u32 = 0x8D98;
    pub const RGBA_INTEGER: u32 = 0x8D99;
    pub const BGR_INTEGER: u32 = 0x8D9A;
    pub const BGRA_INTEGER: u32 = 0x8D9B;
    // EXT_texture_integer's legacy client formats (compatibility).
    pub const ALPHA_INTEGER: u32 = 0x8D97;
    pub const LUMINANCE_INTEGER: u32 = 0x8D9C;
    pub const LUMINANCE_ALPHA_INTEGER: u32 = 0x8D9D;
}

use gl as g;

/// Short names of the scalar types, for the format tables here and in the
/// backends.
pub const UB: u32 = g::UNSIGNED_BYTE;
pub const SB: u32 = g::BYTE;
pub const US: u32 = g::UNSIGNED_SHORT;
pub const SS: u32 = g::SHORT;
pub const UI: u32 = g::UNSIGNED_INT;
pub const SI: u32 = g::INT;
pub const HF: u32 = g::HALF_FLOAT;
pub const FL: u32 = g::FLOAT;

/// Components of a client format in memory order, as indices into RGBA
/// (luminance is read into R and copied to G and B by [`convert`]), and
/// whether the format is an integer one. None: not a colour/depth/stencil
/// client format with separate components (`DEPTH_STENCIL` included).
pub fn channels(format: u32) -> Option<(&'static [usize], bool)> {
    Some(match format {
        g::RED | g::DEPTH_COMPONENT | g::LUMINANCE => (&[0], false),
        g::GREEN => (&[1], false),
        g::BLUE => (&[2], false),
        g::ALPHA => (&[3], false),
        g::RG => (&[0, 1], false),
        g::LUMINANCE_ALPHA => (&[0, 3], false),
        g::RGB => (&[0, 1, 2], false),
        g::BGR => (&[2, 1, 0], false),
        g::RGBA => (&[0, 1, 2, 3], false),
        g::BGRA => (&[2, 1, 0, 3], false),
        g::RED_INTEGER | g::STENCIL_INDEX | g::LUMINANCE_INTEGER => (&[0], true),
        g::ALPHA_INTEGER => (&[3], true),
        g::LUMINANCE_ALPHA_INTEGER => (&[0, 3], true),
        g::GREEN_INTEGER => (&[1], true),
        g::BLUE_INTEGER => (&[2], true),
        g::RG_INTEGER => (&[0, 1], true),
        g::RGB_INTEGER => (&[0, 1, 2], true),
        g::BGR_INTEGER => (&[2, 1, 0], true),
        g::RGBA_INTEGER => (&[0, 1, 2, 3], true),
        g::BGRA_INTEGER => (&[2, 1, 0, 3], true),
        _ => return None,
    })
}

/// Number of components of a client format (see [`channels`]).
pub fn channel_count(format: u32) -> Option<usize> {
    channels(format).map(|(c, _)| c.len())
}

/// Packed pixel types: component bit widths (first component first),
/// whether the first component sits in the low bits (`_REV`), and the pixel
/// size in bytes. The depth/stencil and shared-exponent packings are not
/// decodable and not listed (their size is in [`bytes_per_pixel`]).
pub fn packed(ty: u32) -> Option<(&'static [u32], bool, usize)> {
    Some(match ty {
        g::UNSIGNED_BYTE_3_3_2 => (&[3, 3, 2], false, 1),
        g::UNSIGNED_BYTE_2_3_3_REV => (&[3, 3, 2], true, 1),
        g::UNSIGNED_SHORT_5_6_5 => (&[5, 6, 5], false, 2),
        g::UNSIGNED_SHORT_5_6_5_REV => (&[5, 6, 5], true, 2),
        g::UNSIGNED_SHORT_4_4_4_4 => (&[4, 4, 4, 4], false, 2),
        g::UNSIGNED_SHORT_4_4_4_4_REV => (&[4, 4, 4, 4], true, 2),
        g::UNSIGNED_SHORT_5_5_5_1 => (&[5, 5, 5, 1], false, 2),
        g::UNSIGNED_SHORT_1_5_5_5_REV => (&[5, 5, 5, 1], true, 2),
        g::UNSIGNED_INT_8_8_8_8 => (&[8, 8, 8, 8], false, 4),
        g::UNSIGNED_INT_8_8_8_8_REV => (&[8, 8, 8, 8], true, 4),
        g::UNSIGNED_INT_10_10_10_2 => (&[10, 10, 10, 2], false, 4),
        g::UNSIGNED_INT_2_10_10_10_REV => (&[10, 10, 10, 2], true, 4),
        _ => return None,
    })
}

/// Bytes of one component of a scalar (non-packed) type.
pub fn scalar_size(ty: u32) -> Option<usize> {
    Some(match ty {
        UB | SB => 1,
        US | SS | HF => 2,
        UI | SI | FL => 4,
        _ => return None,
    })
}

/// Bytes per pixel of client data in `format`/`ty` (None: unknown pair).
///
/// Packed types (including `UNSIGNED_INT_24_8`, `10F_11F_11F_REV`,
/// `5_9_9_9_REV` and `FLOAT_32_UNSIGNED_INT_24_8_REV`) give their pixel
/// size whatever the format; scalar types need a format of [`channels`]
/// (so `DEPTH_STENCIL` with a scalar type is None).
pub fn bytes_per_pixel(format: u32, ty: u32) -> Option<usize> {
    match ty {
        g::UNSIGNED_INT_24_8 | g::UNSIGNED_INT_10F_11F_11F_REV | g::UNSIGNED_INT_5_9_9_9_REV => {
            return Some(4)
        }
        g::FLOAT_32_UNSIGNED_INT_24_8_REV => return Some(8),
        _ => {}
    }
    if let Some((_, _, bytes)) = packed(ty) {
        return Some(bytes);
    }
    channel_count(format)?.checked_mul(scalar_size(ty)?)
}

/// Pixels in a `w*h*d` box, `d` 0 counted as 1 (None: overflow).
pub fn pixel_count(w: u32, h: u32, d: u32) -> Option<usize> {
    let n = (w as u64)
        .checked_mul(h as u64)?
        .checked_mul(d.max(1) as u64)?;
    usize::try_from(n).ok()
}

/// Tight byte size of a `w*h*d` image, `d` 0 counted as 1 (None: unknown
/// pair or overflow).
pub fn image_size(format: u32, ty: u32, w: u32, h: u32, d: u32) -> Option<usize> {
    let bpp = bytes_per_pixel(format, ty)?;
    pixel_count(w, h, d)?.checked_mul(bpp)
}

/// A `texture_subimage` blob as tight rows: `blob` itself when
/// `row_stride` is 0 or already `row_bytes`, else the `rows` rows of
/// `row_bytes` gathered from `row_stride` apart. None when the stride is
/// shorter than a row or the blob shorter than its last row's end (a
/// malformed record: records cross a process boundary in `spawn`).
pub fn tight_rows(
    blob: &[u8],
    row_stride: usize,
    row_bytes: usize,
    rows: usize,
) -> Option<std::borrow::Cow<'_, [u8]>> {
    if row_stride == 0 || row_stride == row_bytes || rows == 0 {
        return Some(std::borrow::Cow::Borrowed(blob));
    }
    if row_stride < row_bytes || strided_len(row_stride, row_bytes, rows)? > blob.len() {
        return None;
    }
    let mut out = Vec::with_capacity(rows * row_bytes);
    for r in 0..rows {
        let at = r * row_stride;
        out.extend_from_slice(&blob[at..at + row_bytes]);
    }
    Some(std::borrow::Cow::Owned(out))
}

/// Bytes `rows` rows of `row_bytes` span when they start `row_stride`
/// apart: the last row ends the span (None on overflow).
pub fn strided_len(row_stride: usize, row_bytes: usize, rows: usize) -> Option<usize> {
    if rows == 0 {
        return Some(0);
    }
    (rows - 1).checked_mul(row_stride)?.checked_add(row_bytes)
}

pub fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = match exp {
        0 if man == 0 => sign,
        0 => {
            // subnormal: normalise
            let mut e: i32 = 127 - 15 + 1;
            let mut m = man;
            while m & 0x400 == 0 {
                m <<= 1;
                e -= 1;
            }
            sign | ((e as u32) << 23) | ((m & 0x3ff) << 13)
        }
        0x1f => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = (man | 0x80_0000) >> (1 - e);
        return sign | ((m >> 13) + ((m >> 12) & 1)) as u16;
    }
    (sign as u32 | ((e as u32) << 10) | (man >> 13)).wrapping_add((man >> 12) & 1) as u16
}

/// Little-endian unsigned value of 1, 2 or 4 bytes (None otherwise).
fn read_uint(b: &[u8]) -> Option<u64> {
    Some(match *b {
        [a] => a as u64,
        [a, b] => u16::from_le_bytes([a, b]) as u64,
        [a, b, c, d] => u32::from_le_bytes([a, b, c, d]) as u64,
        _ => return None,
    })
}

/// An unsigned small float of `bits` bits (5 exponent bits, `bits - 5`
/// mantissa bits: the 11- and 10-bit floats of `10F_11F_11F_REV`) to f64.
fn small_float_to_f64(v: u32, bits: u32) -> f64 {
    // Same exponent bias and width as half floats: shift into one.
    f16_to_f32((v << (15 - bits)) as u16) as f64
}

/// f64 to an unsigned small float of `bits` bits (negative values and
/// -0 give 0, values past the largest finite one give it, NaN stays NaN).
fn f64_to_small_float(x: f64, bits: u32) -> u32 {
    // Half-float mantissa bits below the ones kept.
    let drop = 15 - bits;
    if x.is_nan() {
        return (0x1f << (bits - 5)) | 1;
    }
    if x <= 0.0 {
        return 0;
    }
    let h = f32_to_f16(x as f32) as u32;
    let inf = 0x1f << (bits - 5);
    if h >= 0x7c00 {
        return if x.is_infinite() { inf } else { inf - 1 };
    }
    // Round to nearest on the dropped bits; a carry into the exponent is
    // the next representable value.
    let r = (h + (1 << (drop - 1))) >> drop;
    if r >= inf {
        inf - 1
    } else {
        r
    }
}

/// `UNSIGNED_INT_5_9_9_9_REV` / `UNSIGNED_INT_10F_11F_11F_REV` (RGB only)
/// to RGB floats.
fn decode_packed_float(v: u32, ty: u32) -> Option<[f64; 3]> {
    Some(match ty {
        g::UNSIGNED_INT_5_9_9_9_REV => {
            let scale = 2f64.powi((v >> 27) as i32 - 15 - 9);
            [0, 9, 18].map(|s| ((v >> s) & 0x1ff) as f64 * scale)
        }
        g::UNSIGNED_INT_10F_11F_11F_REV => [
            small_float_to_f64(v & 0x7ff, 11),
            small_float_to_f64((v >> 11) & 0x7ff, 11),
            small_float_to_f64(v >> 22, 10),
        ],
        _ => return None,
    })
}

/// RGB floats to `UNSIGNED_INT_5_9_9_9_REV` / `10F_11F_11F_REV`.
fn encode_packed_float(c: [f64; 3], ty: u32) -> Option<u32> {
    Some(match ty {
        g::UNSIGNED_INT_5_9_9_9_REV => {
            // EXT_texture_shared_exponent's encoding: N = 9 mantissa bits,
            // bias 15, exponent at most 31.
            let max = 511.0 / 512.0 * 65536.0;
            let c = c.map(|x| if x.is_nan() { 0.0 } else { x.clamp(0.0, max) });
            let maxc = c[0].max(c[1]).max(c[2]);
            let mut e = if maxc > 0.0 {
                (maxc.log2().floor() as i32).max(-16) + 16
            } else {
                0
            };
            let mut denom = 2f64.powi(e - 15 - 9);
            if (maxc / denom + 0.5).floor() >= 512.0 {
                denom *= 2.0;
                e += 1;
            }
            let m = c.map(|x| ((x / denom + 0.5).floor() as u32).min(511));
            m[0] | (m[1] << 9) | (m[2] << 18) | ((e.clamp(0, 31) as u32) << 27)
        }
        g::UNSIGNED_INT_10F_11F_11F_REV => {
            f64_to_small_float(c[0], 11)
                | (f64_to_small_float(c[1], 11) << 11)
                | (f64_to_small_float(c[2], 10) << 22)
        }
        _ => return None,
    })
}

/// One pixel to RGBA (normalised for non-integer formats, raw otherwise).
fn decode(px: &[u8], format: u32, ty: u32) -> Option<[f64; 4]> {
    let (chans, integer) = channels(format)?;
    let mut out = [0.0, 0.0, 0.0, 1.0];
    if matches!(
        ty,
        g::UNSIGNED_INT_5_9_9_9_REV | g::UNSIGNED_INT_10F_11F_11F_REV
    ) {
        if format != g::RGB {
            return None;
        }
        let v = u32::from_le_bytes(px.get(..4)?.try_into().ok()?);
        let [r, gg, b] = decode_packed_float(v, ty)?;
        return Some([r, gg, b, 1.0]);
    }
    if let Some((bits, rev, bytes)) = packed(ty) {
        let v = read_uint(px.get(..bytes)?)?;
        let total: u32 = bits.iter().sum();
        let mut shift = if rev { 0 } else { total };
        for (i, &b) in bits.iter().enumerate() {
            if !rev {
                shift -= b;
            }
            let max = (1u64 << b) - 1;
            let c = (v >> shift) & max;
            if rev {
                shift += b;
            }
            *out.get_mut(*chans.get(i)?)? = if integer {
                c as f64
            } else {
                c as f64 / max as f64
            };
        }
        return Some(out);
    }
    let sz = scalar_size(ty)?;
    for (i, &ch) in chans.iter().enumerate() {
        let u = read_uint(px.get(i * sz..(i + 1) * sz)?)?;
        *out.get_mut(ch)? = match (ty, integer) {
            (FL, _) => f32::from_bits(u as u32) as f64,
            (HF, _) => f16_to_f32(u as u16) as f64,
            (UB | US | UI, false) => u as f64 / ((1u64 << (sz * 8)) - 1) as f64,
            (SB, false) => ((u as u8 as i8) as f64 / 127.0).max(-1.0),
            (SS, false) => ((u as u16 as i16) as f64 / 32767.0).max(-1.0),
            (SI, false) => ((u as u32 as i32) as f64 / 2147483647.0).max(-1.0),
            (SB, true) => (u as u8 as i8) as f64,
            (SS, true) => (u as u16 as i16) as f64,
            (SI, true) => (u as u32 as i32) as f64,
            _ => u as f64,
        };
    }
    if matches!(
        format,
        g::LUMINANCE | g::LUMINANCE_ALPHA | g::LUMINANCE_INTEGER | g::LUMINANCE_ALPHA_INTEGER
    ) {
        out[1] = out[0];
        out[2] = out[0];
    }
    Some(out)
}

fn encode(v: [f64; 4], format: u32, ty: u32, dst: &mut [u8]) -> Option<()> {
    let (chans, integer) = channels(format)?;
    if matches!(
        ty,
        g::UNSIGNED_INT_5_9_9_9_REV | g::UNSIGNED_INT_10F_11F_11F_REV
    ) {
        if format != g::RGB {
            return None;
        }
        let w = encode_packed_float([v[0], v[1], v[2]], ty)?;
        dst.get_mut(..4)?.copy_from_slice(&w.to_le_bytes());
        return Some(());
    }
    if let Some((bits, rev, bytes)) = packed(ty) {
        let total: u32 = bits.iter().sum();
        let mut word = 0u64;
        let mut shift = if rev { 0 } else { total };
        for (i, &b) in bits.iter().enumerate() {
            if !rev {
                shift -= b;
            }
            let max = (1u64 << b) - 1;
            let x = *v.get(*chans.get(i)?)?;
            let c = if integer {
                x.clamp(0.0, max as f64) as u64
            } else {
                (x.clamp(0.0, 1.0) * max as f64).round() as u64
            };
            word |= (c & max) << shift;
            if rev {
                shift += b;
            }
        }
        dst.get_mut(..bytes)?
            .copy_from_slice(word.to_le_bytes().get(..bytes)?);
        return Some(());
    }
    let sz = scalar_size(ty)?;
    for (i, &ch) in chans.iter().enumerate() {
        let x = *v.get(ch)?;
        let raw: u32 = match ty {
            FL => (x as f32).to_bits(),
            HF => f32_to_f16(x as f32) as u32,
            UB | US | UI => {
                let max = ((1u64 << (sz * 8)) - 1) as f64;
                if integer {
                    x.clamp(0.0, max) as u32
                } else {
                    (x.clamp(0.0, 1.0) * max).round() as u32
                }
            }
            SB | SS | SI => {
                let max = ((1u64 << (sz * 8 - 1)) - 1) as f64;
                let s = if integer {
                    x.clamp(-max - 1.0, max)
                } else {
                    (x.clamp(-1.0, 1.0) * max).round()
                };
                s as i64 as u32
            }
            _ => return None,
        };
        dst.get_mut(i * sz..(i + 1) * sz)?
            .copy_from_slice(raw.to_le_bytes().get(..sz)?);
    }
    Some(())
}

/// Convert `pixels` pixels between client format/type pairs on the CPU.
/// An identical pair is copied as is (the only way `DEPTH_STENCIL` and the
/// shared-exponent/packed-float types pass). None when either pair is not
/// convertible, `src` is shorter than `pixels` pixels, or a size overflows.
pub fn convert(src: &[u8], sf: u32, st: u32, df: u32, dt: u32, pixels: usize) -> Option<Vec<u8>> {
    let sb = bytes_per_pixel(sf, st)?;
    let db = bytes_per_pixel(df, dt)?;
    let src = src.get(..sb.checked_mul(pixels)?)?;
    if sf == df && st == dt {
        return Some(src.to_vec());
    }
    let mut out = vec![0u8; db.checked_mul(pixels)?];
    for (s, d) in src.chunks_exact(sb).zip(out.chunks_exact_mut(db)) {
        encode(decode(s, sf, st)?, df, dt, d)?;
    }
    Some(out)
}

// ------------------------------------------------------- get_texture_image

/// Mip levels any texture can have: a `u32` extent has at most 32.
pub const MAX_LEVELS: u32 = 32;

/// True when `level` can name a mip level of some texture (the backend
/// still checks it against the texture's own levels).
pub fn level_in_range(level: u32) -> bool {
    level < MAX_LEVELS
}

/// Why a `get_texture_image` request gets an empty reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum TexImageReject {
    #[error("unknown format/type")]
    UnknownPair,
    #[error("image too large")]
    TooLarge,
}

/// The checked shape of a `get_texture_image` reply: `depth` slices of
/// `width x height` tight pixels of `bpp` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TexImageReply {
    pub bpp: usize,
    pub width: usize,
    pub height: usize,
    /// The request's depth, 0 counted as 1.
    pub depth: usize,
    /// Bytes of one `width x height` slice.
    pub slice_bytes: usize,
    /// Bytes of the whole reply (`slice_bytes * depth`, at most `max_len`);
    /// 0 when the width or the height is 0.
    pub len: usize,
}

/// Validate a `get_texture_image` request before anything is read and size
/// its reply: the (format, type) pair must be known, each dimension must fit
/// a `GLsizei`, and the reply must be at most `max_len` bytes.
pub fn texture_image_reply(
    format: u32,
    ty: u32,
    width: u32,
    height: u32,
    depth: u32,
    max_len: u64,
) -> Result<TexImageReply, TexImageReject> {
    let bpp = bytes_per_pixel(format, ty).ok_or(TexImageReject::UnknownPair)?;
    let depth = depth.max(1);
    if [width, height, depth].iter().any(|&v| v > i32::MAX as u32) {
        return Err(TexImageReject::TooLarge);
    }
    let len = image_size(format, ty, width, height, depth)
        .filter(|&n| n as u64 <= max_len)
        .ok_or(TexImageReject::TooLarge)?;
    let slice_bytes = image_size(format, ty, width, height, 1).ok_or(TexImageReject::TooLarge)?;
    Ok(TexImageReply {
        bpp,
        width: width as usize,
        height: height as usize,
        depth: depth as usize,
        slice_bytes,
        len,
    })
}

#[cfg(test)]
mod tests {
    use super::gl as g;
    use super::*;

    #[test]
    fn known_pixel_sizes() {
        assert_eq!(bytes_per_pixel(g::RGBA, g::UNSIGNED_BYTE), Some(4));
        assert_eq!(bytes_per_pixel(g::RGB, g::UNSIGNED_BYTE), Some(3));
        assert_eq!(bytes_per_pixel(g::RGB, g::UNSIGNED_SHORT_5_6_5), Some(2));
        assert_eq!(bytes_per_pixel(g::DEPTH_COMPONENT, g::FLOAT), Some(4));
        assert_eq!(
            bytes_per_pixel(g::DEPTH_STENCIL, g::UNSIGNED_INT_24_8),
            Some(4)
        );
        assert_eq!(
            bytes_per_pixel(g::DEPTH_STENCIL, g::FLOAT_32_UNSIGNED_INT_24_8_REV),
            Some(8)
        );
        assert_eq!(bytes_per_pixel(g::RGBA, g::FLOAT), Some(16));
        assert_eq!(bytes_per_pixel(g::RG_INTEGER, g::SHORT), Some(4));
        assert_eq!(bytes_per_pixel(g::LUMINANCE_ALPHA, g::HALF_FLOAT), Some(4));
        assert_eq!(
            bytes_per_pixel(g::BGRA, g::UNSIGNED_INT_8_8_8_8_REV),
            Some(4)
        );
        assert_eq!(bytes_per_pixel(g::RGB, g::UNSIGNED_BYTE_3_3_2), Some(1));
        assert_eq!(bytes_per_pixel(g::STENCIL_INDEX, g::UNSIGNED_BYTE), Some(1));
        assert_eq!(channel_count(g::BGR), Some(3));
        assert_eq!(channel_count(g::DEPTH_STENCIL), None);
    }

    #[test]
    fn unknown_pairs() {
        assert_eq!(bytes_per_pixel(g::RGBA, 0xdead), None);
        assert_eq!(bytes_per_pixel(0xdead, g::UNSIGNED_BYTE), None);
        assert_eq!(bytes_per_pixel(g::RGBA, 0), None);
        // DEPTH_STENCIL only with its packed types.
        assert_eq!(bytes_per_pixel(g::DEPTH_STENCIL, g::UNSIGNED_BYTE), None);
        assert_eq!(bytes_per_pixel(g::DEPTH_STENCIL, g::FLOAT), None);
        assert_eq!(image_size(g::RGBA, 0xdead, 1, 1, 1), None);
        // Packed types do not look at the format (both backends' tables
        // behaved so; such a pair then fails in `convert`).
        assert_eq!(bytes_per_pixel(0xdead, g::UNSIGNED_SHORT_5_6_5), Some(2));
        assert_eq!(
            convert(
                &[0, 0],
                0xdead,
                g::UNSIGNED_SHORT_5_6_5,
                g::RGBA,
                g::UNSIGNED_BYTE,
                1
            ),
            None
        );
    }

    #[test]
    fn tight_rows_gathers_strided_rows_and_refuses_short_blobs() {
        let blob: Vec<u8> = (0..10).collect();
        // Rows of 2 bytes, 4 apart: 0 1 | 4 5 | 8 9.
        assert_eq!(&*tight_rows(&blob, 4, 2, 3).unwrap(), &[0, 1, 4, 5, 8, 9]);
        assert_eq!(strided_len(4, 2, 3), Some(10));
        assert!(tight_rows(&blob[..9], 4, 2, 3).is_none());
        assert!(tight_rows(&blob, 1, 2, 3).is_none());
        assert!(matches!(
            tight_rows(&blob, 0, 2, 3),
            Some(std::borrow::Cow::Borrowed(_))
        ));
        assert_eq!(strided_len(usize::MAX, 2, 3), None);
    }

    #[test]
    fn image_sizes() {
        assert_eq!(image_size(g::RGBA, g::FLOAT, 2, 2, 1), Some(64));
        // Odd widths: tight rows, no alignment padding.
        assert_eq!(image_size(g::RGB, g::UNSIGNED_BYTE, 3, 3, 1), Some(27));
        assert_eq!(image_size(g::RED, g::UNSIGNED_BYTE, 5, 7, 1), Some(35));
        assert_eq!(
            image_size(g::RGB, g::UNSIGNED_SHORT_5_6_5, 1, 3, 2),
            Some(12)
        );
        // depth 0 counts as 1; zero width or height is empty.
        assert_eq!(image_size(g::RGBA, g::UNSIGNED_BYTE, 3, 5, 0), Some(60));
        assert_eq!(image_size(g::RGBA, g::UNSIGNED_BYTE, 0, 5, 9), Some(0));
        assert_eq!(pixel_count(3, 5, 0), Some(15));
        assert_eq!(pixel_count(7, 1, 3), Some(21));
    }

    #[test]
    fn overflow_is_none() {
        assert_eq!(
            image_size(g::RGBA, g::FLOAT, u32::MAX, u32::MAX, u32::MAX),
            None
        );
        assert_eq!(
            image_size(
                g::DEPTH_STENCIL,
                g::FLOAT_32_UNSIGNED_INT_24_8_REV,
                u32::MAX,
                u32::MAX,
                2
            ),
            None
        );
        assert_eq!(
            convert(
                &[],
                g::RGBA,
                g::FLOAT,
                g::RGBA,
                g::UNSIGNED_BYTE,
                usize::MAX
            ),
            None
        );
    }

    #[test]
    fn convert_swizzles_and_converts() {
        let src = [1u8, 2, 3, 4, 10, 20, 30, 40];
        let out = convert(&src, g::BGRA, UB, g::RGBA, UB, 2).unwrap();
        assert_eq!(out, vec![3, 2, 1, 4, 30, 20, 10, 40]);
        // BGRA + 8_8_8_8_REV has the same memory layout as BGRA bytes on LE.
        let out = convert(&src, g::BGRA, g::UNSIGNED_INT_8_8_8_8_REV, g::RGBA, UB, 2).unwrap();
        assert_eq!(out, vec![3, 2, 1, 4, 30, 20, 10, 40]);
        let rgb = [10u8, 20, 30];
        assert_eq!(
            convert(&rgb, g::RGB, UB, g::RGBA, UB, 1).unwrap(),
            vec![10, 20, 30, 255]
        );
        let f: Vec<u8> = [1.0f32, 0.5, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let out = convert(&f, g::RGBA, FL, g::RGBA, UB, 1).unwrap();
        assert_eq!(out, vec![255, 128, 0, 255]);
        assert_eq!(
            convert(&out, g::RGBA, UB, g::RGB, UB, 1).unwrap(),
            vec![255, 128, 0]
        );
        // 5_6_5 pure red.
        let px = 0xF800u16.to_le_bytes();
        assert_eq!(
            convert(&px, g::RGB, g::UNSIGNED_SHORT_5_6_5, g::RGBA, UB, 1).unwrap(),
            vec![255, 0, 0, 255]
        );
        // Luminance spreads to RGB.
        assert_eq!(
            convert(&[7, 9], g::LUMINANCE_ALPHA, UB, g::RGBA, UB, 1).unwrap(),
            vec![7, 7, 7, 9]
        );
        // Signed normalised and integer formats.
        assert_eq!(
            convert(&[0x81], g::RED, SB, g::RED, FL, 1).unwrap(),
            (-1.0f32).to_le_bytes().to_vec()
        );
        assert_eq!(
            convert(
                &300u32.to_le_bytes(),
                g::RED_INTEGER,
                UI,
                g::RED_INTEGER,
                UB,
                1
            )
            .unwrap(),
            vec![255]
        );
    }

    #[test]
    fn shared_exponent_and_packed_floats_convert() {
        let rgb = [1.0f32, 0.5, 0.25];
        let src: Vec<u8> = rgb.iter().flat_map(|f| f.to_le_bytes()).collect();
        for ty in [g::UNSIGNED_INT_5_9_9_9_REV, g::UNSIGNED_INT_10F_11F_11F_REV] {
            let packed = convert(&src, g::RGB, FL, g::RGB, ty, 1).unwrap();
            assert_eq!(packed.len(), 4);
            let back = convert(&packed, g::RGB, ty, g::RGBA, FL, 1).unwrap();
            let f: Vec<f32> = back
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(f, [1.0, 0.5, 0.25, 1.0], "type {ty:#x}");
        }
        // 1.0 in RGB9_E5: mantissa 256, exponent 16 (2^(16 - 15 - 9) * 256).
        let one = (256u32) | (16 << 27);
        let back = convert(
            &one.to_le_bytes(),
            g::RGB,
            g::UNSIGNED_INT_5_9_9_9_REV,
            g::RGB,
            FL,
            1,
        )
        .unwrap();
        assert_eq!(&back[..4], &1.0f32.to_le_bytes());
        // Negative values clamp to 0; only RGB has these packings.
        let neg: Vec<u8> = [-1.0f32, 0.0, 0.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let p = convert(&neg, g::RGB, FL, g::RGB, g::UNSIGNED_INT_10F_11F_11F_REV, 1).unwrap();
        assert_eq!(p, [0, 0, 0, 0]);
        assert_eq!(
            convert(
                &[0; 4],
                g::RGBA,
                g::UNSIGNED_INT_5_9_9_9_REV,
                g::RGBA,
                FL,
                1
            ),
            None
        );
    }

    #[test]
    fn convert_rejects_short_and_opaque_pairs() {
        assert_eq!(convert(&[1, 2, 3], g::RGBA, UB, g::RGBA, UB, 1), None);
        assert_eq!(convert(&[1, 2, 3], g::RGBA, UB, g::RGB, UB, 1), None);
        // Identical DEPTH_STENCIL pairs pass through; other conversions of it do not.
        let ds = [1u8, 2, 3, 4, 5];
        assert_eq!(
            convert(
                &ds,
                g::DEPTH_STENCIL,
                g::UNSIGNED_INT_24_8,
                g::DEPTH_STENCIL,
                g::UNSIGNED_INT_24_8,
                1
            ),
            Some(vec![1, 2, 3, 4])
        );
        assert_eq!(
            convert(
                &ds,
                g::DEPTH_STENCIL,
                g::UNSIGNED_INT_24_8,
                g::DEPTH_COMPONENT,
                FL,
                1
            ),
            None
        );
        assert_eq!(convert(&[], g::RGBA, UB, g::RGB, UB, 0), Some(vec![]));
    }

    #[test]
    fn half_floats_round_trip() {
        for f in [0.0f32, 1.0, -2.5, 0.333, 65504.0, 1e-5] {
            let back = f16_to_f32(f32_to_f16(f));
            assert!((back - f).abs() <= f.abs() * 1e-3 + 1e-6, "{f} -> {back}");
        }
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(f32_to_f16(f32::NAN)).is_nan());
        assert_eq!(f32_to_f16(1e6), 0x7c00);
    }

    #[test]
    fn texture_image_reply_checks() {
        let max = 1u64 << 30;
        let r = texture_image_reply(g::RGB, UB, 3, 5, 0, max).unwrap();
        assert_eq!(
            r,
            TexImageReply {
                bpp: 3,
                width: 3,
                height: 5,
                depth: 1,
                slice_bytes: 45,
                len: 45
            }
        );
        let r = texture_image_reply(g::RGBA, FL, 7, 3, 2, max).unwrap();
        assert_eq!((r.slice_bytes, r.len), (336, 672));
        assert_eq!(
            texture_image_reply(g::RGBA, UB, 0, 9, 1, max).unwrap().len,
            0
        );
        assert_eq!(
            texture_image_reply(g::RGBA, 0xdead, 1, 1, 1, max),
            Err(TexImageReject::UnknownPair)
        );
        assert_eq!(
            texture_image_reply(g::RGBA, FL, 1 << 13, 1 << 13, 2, max),
            Err(TexImageReject::TooLarge)
        );
        assert_eq!(
            texture_image_reply(g::RGBA, UB, 1 << 14, 1 << 14, 1, max)
                .unwrap()
                .len,
            1 << 30
        );
        assert_eq!(
            texture_image_reply(g::RGBA, FL, u32::MAX, u32::MAX, u32::MAX, u64::MAX),
            Err(TexImageReject::TooLarge)
        );
        // A dimension beyond GLsizei, even of an empty image.
        assert_eq!(
            texture_image_reply(g::RGBA, UB, u32::MAX, 0, 1, max),
            Err(TexImageReject::TooLarge)
        );
        assert!(level_in_range(0) && level_in_range(31));
        assert!(!level_in_range(32) && !level_in_range(u32::MAX));
    }
}
