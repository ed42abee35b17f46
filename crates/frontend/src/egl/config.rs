//! The EGLConfigs we offer and `eglChooseConfig` matching and sorting
//! (EGL 1.5 §3.4.1, Table 3.4).

use super::consts::*;
use super::EglError;

/// The client APIs every config renders with: desktop OpenGL and OpenGL ES
/// 2.0 / 3.x (an ES context is the same GL core with ES strings and limits,
/// `context::create_context`). OpenGL ES 1.x is not offered.
pub const RENDERABLE_APIS: i32 = EGL_OPENGL_BIT | EGL_OPENGL_ES2_BIT | EGL_OPENGL_ES3_BIT;

/// GL sized formats handed to the platform as a surface's buffers.
const GL_RGBA8: u32 = 0x8058;
const GL_RGB8: u32 = 0x8051;
const GL_DEPTH24_STENCIL8: u32 = 0x88F0;

/// Largest pbuffer side we advertise.
pub const MAX_PBUFFER_SIDE: i32 = 16384;

/// One frame-buffer configuration. All are RGB colour buffers, renderable by
/// desktop OpenGL, pbuffer-only (no native windows or pixmaps yet).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub id: i32,
    pub red: i32,
    pub green: i32,
    pub blue: i32,
    pub alpha: i32,
    pub depth: i32,
    pub stencil: i32,
}

/// Config ids are 1-based indices into this list.
pub const CONFIGS: [Config; 4] = [
    Config {
        id: 1,
        red: 8,
        green: 8,
        blue: 8,
        alpha: 8,
        depth: 24,
        stencil: 8,
    },
    Config {
        id: 2,
        red: 8,
        green: 8,
        blue: 8,
        alpha: 8,
        depth: 0,
        stencil: 0,
    },
    Config {
        id: 3,
        red: 8,
        green: 8,
        blue: 8,
        alpha: 0,
        depth: 24,
        stencil: 8,
    },
    Config {
        id: 4,
        red: 8,
        green: 8,
        blue: 8,
        alpha: 0,
        depth: 0,
        stencil: 0,
    },
];

/// Opaque EGLConfig values: a base plus the config id.
const CONFIG_HANDLE_BASE: usize = 0x4d47_c000;

pub fn handle_of(c: &Config) -> usize {
    CONFIG_HANDLE_BASE + c.id as usize
}

/// The config behind an opaque EGLConfig value, if it is one of ours.
pub fn from_handle(h: usize) -> Option<&'static Config> {
    let id = h.checked_sub(CONFIG_HANDLE_BASE)?;
    CONFIGS.iter().find(|c| c.id as usize == id)
}

impl Config {
    pub fn buffer_size(&self) -> i32 {
        self.red + self.green + self.blue + self.alpha
    }

    pub fn surface_type(&self) -> i32 {
        EGL_PBUFFER_BIT
    }

    pub fn color_format(&self) -> u32 {
        if self.alpha > 0 {
            GL_RGBA8
        } else {
            GL_RGB8
        }
    }

    pub fn depth_stencil_format(&self) -> u32 {
        if self.depth > 0 || self.stencil > 0 {
            GL_DEPTH24_STENCIL8
        } else {
            0
        }
    }

    /// `eglGetConfigAttrib`; `None` for an attribute that is not a config
    /// attribute (EGL_BAD_ATTRIBUTE).
    pub fn attrib(&self, attribute: i32) -> Option<i32> {
        let v = match attribute {
            EGL_BUFFER_SIZE => self.buffer_size(),
            EGL_RED_SIZE => self.red,
            EGL_GREEN_SIZE => self.green,
            EGL_BLUE_SIZE => self.blue,
            EGL_ALPHA_SIZE => self.alpha,
            EGL_DEPTH_SIZE => self.depth,
            EGL_STENCIL_SIZE => self.stencil,
            EGL_LUMINANCE_SIZE | EGL_ALPHA_MASK_SIZE => 0,
            EGL_BIND_TO_TEXTURE_RGB | EGL_BIND_TO_TEXTURE_RGBA => EGL_FALSE,
            EGL_COLOR_BUFFER_TYPE => EGL_RGB_BUFFER,
            EGL_CONFIG_CAVEAT => EGL_NONE,
            EGL_CONFIG_ID => self.id,
            EGL_CONFORMANT | EGL_RENDERABLE_TYPE => RENDERABLE_APIS,
            EGL_LEVEL => 0,
            EGL_MAX_PBUFFER_WIDTH | EGL_MAX_PBUFFER_HEIGHT => MAX_PBUFFER_SIDE,
            EGL_MAX_PBUFFER_PIXELS => MAX_PBUFFER_SIDE * MAX_PBUFFER_SIDE,
            EGL_MIN_SWAP_INTERVAL => 0,
            EGL_MAX_SWAP_INTERVAL => 1,
            EGL_NATIVE_RENDERABLE => EGL_FALSE,
            EGL_NATIVE_VISUAL_ID => 0,
            EGL_NATIVE_VISUAL_TYPE => EGL_NONE,
            EGL_SAMPLE_BUFFERS | EGL_SAMPLES => 0,
            EGL_SURFACE_TYPE => self.surface_type(),
            EGL_TRANSPARENT_TYPE => EGL_NONE,
            EGL_TRANSPARENT_RED_VALUE
            | EGL_TRANSPARENT_GREEN_VALUE
            | EGL_TRANSPARENT_BLUE_VALUE => 0,
            _ => return None,
        };
        Some(v)
    }
}

/// How a requested value is compared (Table 3.4 "selection criteria").
#[derive(Clone, Copy, PartialEq, Eq)]
enum Criterion {
    AtLeast,
    Exact,
    Mask,
    /// Accepted in the list, then not used for matching.
    Ignored,
}

/// (attribute, default, criterion) for every attribute `eglChooseConfig`
/// accepts. EGL_MATCH_NATIVE_PIXMAP is handled apart.
const CRITERIA: &[(i32, i32, Criterion)] = &[
    (EGL_BUFFER_SIZE, 0, Criterion::AtLeast),
    (EGL_RED_SIZE, 0, Criterion::AtLeast),
    (EGL_GREEN_SIZE, 0, Criterion::AtLeast),
    (EGL_BLUE_SIZE, 0, Criterion::AtLeast),
    (EGL_LUMINANCE_SIZE, 0, Criterion::AtLeast),
    (EGL_ALPHA_SIZE, 0, Criterion::AtLeast),
    (EGL_ALPHA_MASK_SIZE, 0, Criterion::AtLeast),
    (EGL_BIND_TO_TEXTURE_RGB, EGL_DONT_CARE, Criterion::Exact),
    (EGL_BIND_TO_TEXTURE_RGBA, EGL_DONT_CARE, Criterion::Exact),
    (EGL_COLOR_BUFFER_TYPE, EGL_RGB_BUFFER, Criterion::Exact),
    (EGL_CONFIG_CAVEAT, EGL_DONT_CARE, Criterion::Exact),
    (EGL_CONFIG_ID, EGL_DONT_CARE, Criterion::Exact),
    (EGL_CONFORMANT, 0, Criterion::Mask),
    (EGL_DEPTH_SIZE, 0, Criterion::AtLeast),
    (EGL_LEVEL, 0, Criterion::Exact),
    (EGL_MAX_SWAP_INTERVAL, EGL_DONT_CARE, Criterion::Exact),
    (EGL_MIN_SWAP_INTERVAL, EGL_DONT_CARE, Criterion::Exact),
    (EGL_NATIVE_RENDERABLE, EGL_DONT_CARE, Criterion::Exact),
    (EGL_NATIVE_VISUAL_TYPE, EGL_DONT_CARE, Criterion::Exact),
    (EGL_RENDERABLE_TYPE, EGL_OPENGL_ES_BIT, Criterion::Mask),
    (EGL_SAMPLE_BUFFERS, 0, Criterion::AtLeast),
    (EGL_SAMPLES, 0, Criterion::AtLeast),
    (EGL_STENCIL_SIZE, 0, Criterion::AtLeast),
    (EGL_SURFACE_TYPE, EGL_WINDOW_BIT, Criterion::Mask),
    (EGL_TRANSPARENT_TYPE, EGL_NONE, Criterion::Exact),
    (EGL_TRANSPARENT_RED_VALUE, EGL_DONT_CARE, Criterion::Exact),
    (EGL_TRANSPARENT_GREEN_VALUE, EGL_DONT_CARE, Criterion::Exact),
    (EGL_TRANSPARENT_BLUE_VALUE, EGL_DONT_CARE, Criterion::Exact),
    (EGL_MAX_PBUFFER_WIDTH, EGL_DONT_CARE, Criterion::Ignored),
    (EGL_MAX_PBUFFER_HEIGHT, EGL_DONT_CARE, Criterion::Ignored),
    (EGL_MAX_PBUFFER_PIXELS, EGL_DONT_CARE, Criterion::Ignored),
    (EGL_NATIVE_VISUAL_ID, EGL_DONT_CARE, Criterion::Ignored),
];

/// A parsed `eglChooseConfig` attribute list: the value for each row of
/// `CRITERIA`, defaults filled in.
pub struct Request {
    values: [i32; CRITERIA.len()],
}

impl Request {
    /// Parse (attribute, value) pairs up to EGL_NONE.
    pub fn parse(pairs: &[(i32, i32)]) -> Result<Request, EglError> {
        let mut values = [0i32; CRITERIA.len()];
        for (v, (_, default, _)) in values.iter_mut().zip(CRITERIA) {
            *v = *default;
        }
        for &(attr, value) in pairs {
            if attr == EGL_MATCH_NATIVE_PIXMAP {
                // We have no pixmap configs: only "no pixmap" can match.
                if value != EGL_NONE {
                    return Err(EglError::new(
                        EGL_BAD_NATIVE_PIXMAP,
                        "no native pixmaps on this platform",
                    ));
                }
                continue;
            }
            let i = CRITERIA
                .iter()
                .position(|(a, _, _)| *a == attr)
                .ok_or_else(|| {
                    EglError::new(EGL_BAD_ATTRIBUTE, "unknown eglChooseConfig attribute")
                })?;
            if let Some(slot) = values.get_mut(i) {
                *slot = value;
            }
        }
        Ok(Request { values })
    }

    fn get(&self, attr: i32) -> i32 {
        CRITERIA
            .iter()
            .position(|(a, _, _)| *a == attr)
            .and_then(|i| self.values.get(i).copied())
            .unwrap_or(0)
    }

    fn matches(&self, c: &Config) -> bool {
        // When EGL_CONFIG_ID is given, every other attribute is ignored.
        let id = self.get(EGL_CONFIG_ID);
        if id != EGL_DONT_CARE {
            return c.id == id;
        }
        CRITERIA
            .iter()
            .zip(self.values.iter())
            .all(|(&(attr, _, crit), &want)| {
                if want == EGL_DONT_CARE || crit == Criterion::Ignored {
                    return true;
                }
                let have = c.attrib(attr).unwrap_or(0);
                match crit {
                    Criterion::AtLeast => have >= want,
                    Criterion::Exact => have == want,
                    Criterion::Mask => have & want == want,
                    Criterion::Ignored => true,
                }
            })
    }

    /// Sort key (Table 3.4 sort priorities; caveat and buffer type are the
    /// same for all our configs).
    fn sort_key(&self, c: &Config) -> (i32, i32, i32, i32, i32, i32, i32) {
        // Larger total of the colour components that were asked for with a
        // non-zero, non-DONT_CARE size sorts first.
        let counted = |attr: i32, bits: i32| {
            let want = self.get(attr);
            if want != 0 && want != EGL_DONT_CARE {
                bits
            } else {
                0
            }
        };
        let colour = counted(EGL_RED_SIZE, c.red)
            + counted(EGL_GREEN_SIZE, c.green)
            + counted(EGL_BLUE_SIZE, c.blue)
            + counted(EGL_ALPHA_SIZE, c.alpha);
        (-colour, c.buffer_size(), 0, 0, c.depth, c.stencil, c.id)
    }

    /// Matching configs, best first.
    pub fn choose(&self) -> Vec<&'static Config> {
        let mut v: Vec<&'static Config> = CONFIGS.iter().filter(|c| self.matches(c)).collect();
        v.sort_by_key(|c| self.sort_key(c));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_match_nothing_without_opengl_and_pbuffer() {
        // The EGL defaults ask for OpenGL ES and windows: none of ours.
        assert!(Request::parse(&[])
            .map(|r| r.choose())
            .map(|v| v.is_empty())
            .unwrap_or(false));
    }

    #[test]
    fn waffle_like_request() {
        let r = Request::parse(&[
            (EGL_BUFFER_SIZE, EGL_DONT_CARE),
            (EGL_RED_SIZE, 1),
            (EGL_GREEN_SIZE, 1),
            (EGL_BLUE_SIZE, 1),
            (EGL_ALPHA_SIZE, 1),
            (EGL_DEPTH_SIZE, 1),
            (EGL_STENCIL_SIZE, EGL_DONT_CARE),
            (EGL_SAMPLE_BUFFERS, EGL_DONT_CARE),
            (EGL_SAMPLES, EGL_DONT_CARE),
            (EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT),
            (EGL_SURFACE_TYPE, EGL_PBUFFER_BIT),
        ])
        .ok()
        .map(|r| r.choose());
        let ids: Vec<i32> = r.unwrap_or_default().iter().map(|c| c.id).collect();
        assert_eq!(ids, vec![1]);
    }

    #[test]
    fn smallest_depth_first_when_not_asked() {
        let r = Request::parse(&[
            (EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT),
            (EGL_SURFACE_TYPE, EGL_PBUFFER_BIT),
        ]);
        let ids: Vec<i32> = r
            .map(|r| r.choose())
            .unwrap_or_default()
            .iter()
            .map(|c| c.id)
            .collect();
        // No colour asked: smaller buffer size first, then smaller depth.
        assert_eq!(ids, vec![4, 3, 2, 1]);
    }

    #[test]
    fn config_id_overrides_everything() {
        let r = Request::parse(&[
            (EGL_CONFIG_ID, 2),
            (EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT),
        ]);
        let ids: Vec<i32> = r
            .map(|r| r.choose())
            .unwrap_or_default()
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, vec![2]);
    }

    #[test]
    fn unknown_attribute_is_bad_attribute() {
        assert_eq!(
            Request::parse(&[(0x7777, 1)]).err().map(|e| e.code),
            Some(EGL_BAD_ATTRIBUTE)
        );
    }
}
