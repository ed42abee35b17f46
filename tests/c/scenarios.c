/* POSIX/BSD interfaces (kill, usleep, clock_gettime, dirent) for the
 * spawn-lane liveness scenarios. */
#define _DEFAULT_SOURCE 1
#include <dirent.h>
#include <signal.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
/*
 * MobileGL scenario client.
 *
 * An independent GL client: it links only libEGL (whatever libEGL.so.1 the
 * dynamic loader finds at run time) and obtains every GL entry point through
 * eglGetProcAddress.  It creates a surfaceless EGL display, a 3.3 core
 * context without a surface, renders into an FBO with an RGBA8 renderbuffer
 * and checks exact pixel values.
 *
 *   scenarios            run every scenario
 *   scenarios NAME...    run the named scenarios
 *   scenarios --list     print the scenario names
 *   scenarios demo [OUT.ppm]   render a picture, write it as PPM, print pixels
 *
 * Output: one `PASS <name>` or `FAIL <name>: <why>` line per scenario; the
 * exit status is non-zero if anything failed.
 *
 * Build: cc scenarios.c -o scenarios -lEGL
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- GL types and enums (declared here: no GL headers needed) ---------- */

typedef unsigned int GLenum;
typedef unsigned char GLboolean;
typedef unsigned int GLbitfield;
typedef int GLint;
typedef int GLsizei;
typedef unsigned int GLuint;
typedef float GLfloat;
typedef char GLchar;
typedef unsigned char GLubyte;
typedef ptrdiff_t GLintptr;
typedef ptrdiff_t GLsizeiptr;
typedef uint64_t GLuint64;
typedef int64_t GLint64;
typedef struct __GLsync *GLsync;

#define GL_NO_ERROR 0
#define GL_INVALID_ENUM 0x0500
#define GL_INVALID_VALUE 0x0501
#define GL_INVALID_OPERATION 0x0502
#define GL_OUT_OF_MEMORY 0x0505
#define GL_INVALID_FRAMEBUFFER_OPERATION 0x0506
#define GL_TRUE 1
#define GL_FALSE 0
#define GL_TRIANGLES 0x0004
#define GL_TRIANGLE_STRIP 0x0005
#define GL_UNSIGNED_BYTE 0x1401
#define GL_UNSIGNED_SHORT 0x1403
#define GL_FLOAT 0x1406
#define GL_RGBA 0x1908
#define GL_RGBA8 0x8058
#define GL_COLOR_BUFFER_BIT 0x00004000
#define GL_BLEND 0x0BE2
#define GL_SCISSOR_TEST 0x0C11
#define GL_ONE 1
#define GL_FUNC_ADD 0x8006
#define GL_VENDOR 0x1F00
#define GL_RENDERER 0x1F01
#define GL_VERSION 0x1F02
#define GL_SHADING_LANGUAGE_VERSION 0x8B8C
#define GL_UNPACK_ROW_LENGTH 0x0CF2
#define GL_UNPACK_ALIGNMENT 0x0CF5
#define GL_PACK_ROW_LENGTH 0x0D02
#define GL_PACK_ALIGNMENT 0x0D05
#define GL_TEXTURE_2D 0x0DE1
#define GL_TEXTURE0 0x84C0
#define GL_TEXTURE_MAG_FILTER 0x2800
#define GL_TEXTURE_MIN_FILTER 0x2801
#define GL_TEXTURE_WRAP_S 0x2802
#define GL_TEXTURE_WRAP_T 0x2803
#define GL_NEAREST 0x2600
#define GL_CLAMP_TO_EDGE 0x812F
#define GL_ARRAY_BUFFER 0x8892
#define GL_ELEMENT_ARRAY_BUFFER 0x8893
#define GL_UNIFORM_BUFFER 0x8A11
#define GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT 0x8A34
#define GL_COPY_READ_BUFFER 0x8F36
#define GL_STATIC_DRAW 0x88E4
#define GL_DYNAMIC_DRAW 0x88E8
#define GL_TEXTURE_2D_MULTISAMPLE 0x9100
#define GL_TEXTURE_SAMPLES 0x9106
#define GL_SAMPLE_MASK 0x8E51
#define GL_MAX_COLOR_TEXTURE_SAMPLES 0x910E
#define GL_TEXTURE_RECTANGLE 0x84F5
#define GL_DRAW_INDIRECT_BUFFER 0x8F3F
#define GL_UNSIGNED_INT 0x1405
#define GL_PRIMITIVE_RESTART 0x8F9D
#define GL_COMPUTE_SHADER 0x91B9
#define GL_SHADER_STORAGE_BUFFER 0x90D2
#define GL_WRITE_ONLY 0x88B9
#define GL_ALL_BARRIER_BITS 0xFFFFFFFFu
#define GL_READ_ONLY 0x88B8
#define GL_MAP_READ_BIT 0x0001
#define GL_MAP_WRITE_BIT 0x0002
#define GL_MAP_PERSISTENT_BIT 0x0040
#define GL_MAP_COHERENT_BIT 0x0080
#define GL_DYNAMIC_STORAGE_BIT 0x0100
#define GL_FRAGMENT_SHADER 0x8B30
#define GL_VERTEX_SHADER 0x8B31
#define GL_COMPILE_STATUS 0x8B81
#define GL_LINK_STATUS 0x8B82
#define GL_FRAMEBUFFER 0x8D40
#define GL_RENDERBUFFER 0x8D41
#define GL_COLOR_ATTACHMENT0 0x8CE0
#define GL_FRAMEBUFFER_COMPLETE 0x8CD5
#define GL_MAJOR_VERSION 0x821B
#define GL_MINOR_VERSION 0x821C
#define GL_CONTEXT_PROFILE_MASK 0x9126
#define GL_CONTEXT_CORE_PROFILE_BIT 0x00000001
#define GL_INVALID_INDEX 0xFFFFFFFFu
#define GL_SYNC_GPU_COMMANDS_COMPLETE 0x9117
#define GL_SYNC_FLUSH_COMMANDS_BIT 0x00000001
#define GL_SYNC_STATUS 0x9114
#define GL_SIGNALED 0x9119
#define GL_ALREADY_SIGNALED 0x911A
#define GL_TIMEOUT_EXPIRED 0x911B
#define GL_CONDITION_SATISFIED 0x911C
#define GL_WAIT_FAILED 0x911D

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif
#ifndef EGL_CONTEXT_MAJOR_VERSION_KHR
#define EGL_CONTEXT_MAJOR_VERSION_KHR 0x3098
#endif
#ifndef EGL_CONTEXT_MINOR_VERSION_KHR
#define EGL_CONTEXT_MINOR_VERSION_KHR 0x30FB
#endif
#ifndef EGL_CONTEXT_OPENGL_PROFILE_MASK_KHR
#define EGL_CONTEXT_OPENGL_PROFILE_MASK_KHR 0x30FD
#endif
#ifndef EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT_KHR
#define EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT_KHR 0x00000001
#endif

typedef EGLDisplay (*PFN_eglGetPlatformDisplayEXT)(EGLenum, void *, const EGLint *);

/* ---- GL entry points, all resolved with eglGetProcAddress -------------- */

#define GL_FUNCS(X)                                                                     \
    X(GLenum, glGetError, (void))                                                       \
    X(const GLubyte *, glGetString, (GLenum))                                           \
    X(void, glGetIntegerv, (GLenum, GLint *))                                           \
    X(void, glEnable, (GLenum))                                                         \
    X(void, glDisable, (GLenum))                                                        \
    X(void, glViewport, (GLint, GLint, GLsizei, GLsizei))                               \
    X(void, glScissor, (GLint, GLint, GLsizei, GLsizei))                                \
    X(void, glClearColor, (GLfloat, GLfloat, GLfloat, GLfloat))                         \
    X(void, glClear, (GLbitfield))                                                      \
    X(void, glBlendFunc, (GLenum, GLenum))                                              \
    X(void, glBlendEquation, (GLenum))                                                  \
    X(void, glPixelStorei, (GLenum, GLint))                                             \
    X(void, glReadPixels, (GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *))     \
    X(void, glFinish, (void))                                                           \
    X(void, glFlush, (void))                                                            \
    X(void, glGenFramebuffers, (GLsizei, GLuint *))                                     \
    X(void, glDeleteFramebuffers, (GLsizei, const GLuint *))                            \
    X(void, glBindFramebuffer, (GLenum, GLuint))                                        \
    X(void, glFramebufferRenderbuffer, (GLenum, GLenum, GLenum, GLuint))                \
    X(GLenum, glCheckFramebufferStatus, (GLenum))                                       \
    X(void, glGenRenderbuffers, (GLsizei, GLuint *))                                    \
    X(void, glDeleteRenderbuffers, (GLsizei, const GLuint *))                           \
    X(void, glBindRenderbuffer, (GLenum, GLuint))                                       \
    X(void, glRenderbufferStorage, (GLenum, GLenum, GLsizei, GLsizei))                  \
    X(void, glGenBuffers, (GLsizei, GLuint *))                                          \
    X(void, glDeleteBuffers, (GLsizei, const GLuint *))                                 \
    X(void, glBindBuffer, (GLenum, GLuint))                                             \
    X(void, glBindBufferBase, (GLenum, GLuint, GLuint))                                 \
    X(void, glBindBufferRange, (GLenum, GLuint, GLuint, GLintptr, GLsizeiptr))          \
    X(void, glDrawElementsBaseVertex, (GLenum, GLsizei, GLenum, const void *, GLint))   \
    X(void, glBufferData, (GLenum, GLsizeiptr, const void *, GLenum))                   \
    X(void, glBufferSubData, (GLenum, GLintptr, GLsizeiptr, const void *))              \
    X(void *, glMapBufferRange, (GLenum, GLintptr, GLsizeiptr, GLbitfield))             \
    X(GLboolean, glUnmapBuffer, (GLenum))                                               \
    X(void, glBufferStorage, (GLenum, GLsizeiptr, const void *, GLbitfield))            \
    X(void, glMultiDrawElementsBaseVertex, (GLenum, const GLsizei *, GLenum, const void *const *, GLsizei, const GLint *)) \
    X(void, glMultiDrawArrays, (GLenum, const GLint *, const GLsizei *, GLsizei))       \
    X(void, glCopyBufferSubData, (GLenum, GLenum, GLintptr, GLintptr, GLsizeiptr))      \
    X(void, glGenVertexArrays, (GLsizei, GLuint *))                                     \
    X(void, glDeleteVertexArrays, (GLsizei, const GLuint *))                            \
    X(void, glBindVertexArray, (GLuint))                                                \
    X(void, glEnableVertexAttribArray, (GLuint))                                        \
    X(void, glDisableVertexAttribArray, (GLuint))                                       \
    X(void, glVertexAttribPointer, (GLuint, GLint, GLenum, GLboolean, GLsizei, const void *)) \
    X(void, glVertexAttribDivisor, (GLuint, GLuint))                                    \
    X(void, glDrawArrays, (GLenum, GLint, GLsizei))                                     \
    X(void, glDrawElements, (GLenum, GLsizei, GLenum, const void *))                    \
    X(void, glDrawArraysInstanced, (GLenum, GLint, GLsizei, GLsizei))                   \
    X(GLuint, glCreateShader, (GLenum))                                                 \
    X(void, glDeleteShader, (GLuint))                                                   \
    X(void, glShaderSource, (GLuint, GLsizei, const GLchar *const *, const GLint *))    \
    X(void, glCompileShader, (GLuint))                                                  \
    X(void, glGetShaderiv, (GLuint, GLenum, GLint *))                                   \
    X(void, glGetShaderInfoLog, (GLuint, GLsizei, GLsizei *, GLchar *))                 \
    X(GLuint, glCreateProgram, (void))                                                  \
    X(void, glDeleteProgram, (GLuint))                                                  \
    X(void, glAttachShader, (GLuint, GLuint))                                           \
    X(void, glBindAttribLocation, (GLuint, GLuint, const GLchar *))                     \
    X(void, glLinkProgram, (GLuint))                                                    \
    X(void, glGetProgramiv, (GLuint, GLenum, GLint *))                                  \
    X(void, glGetProgramInfoLog, (GLuint, GLsizei, GLsizei *, GLchar *))                \
    X(void, glUseProgram, (GLuint))                                                     \
    X(GLint, glGetUniformLocation, (GLuint, const GLchar *))                            \
    X(void, glUniform4f, (GLint, GLfloat, GLfloat, GLfloat, GLfloat))                   \
    X(void, glUniform1i, (GLint, GLint))                                                \
    X(GLuint, glGetUniformBlockIndex, (GLuint, const GLchar *))                         \
    X(void, glUniformBlockBinding, (GLuint, GLuint, GLuint))                            \
    X(void, glGenTextures, (GLsizei, GLuint *))                                         \
    X(void, glDeleteTextures, (GLsizei, const GLuint *))                                \
    X(void, glBindTexture, (GLenum, GLuint))                                            \
    X(void, glActiveTexture, (GLenum))                                                  \
    X(void, glTexParameteri, (GLenum, GLenum, GLint))                                   \
    X(void, glTexImage2D, (GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum, const void *)) \
    X(void, glTexSubImage2D, (GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, const void *)) \
    X(void, glGenQueries, (GLsizei, GLuint *))                                          \
    X(void, glDeleteQueries, (GLsizei, const GLuint *))                                 \
    X(void, glBeginQuery, (GLenum, GLuint))                                             \
    X(void, glEndQuery, (GLenum))                                                       \
    X(void, glGetQueryObjectuiv, (GLuint, GLenum, GLuint *))                            \
    X(void, glGetTexImage, (GLenum, GLint, GLenum, GLenum, void *))                     \
    X(void, glQueryCounter, (GLuint, GLenum))                                           \
    X(void, glGetQueryObjectui64v, (GLuint, GLenum, GLuint64 *))                        \
    X(void, glGetInteger64v, (GLenum, GLint64 *))                                       \
    X(GLsync, glFenceSync, (GLenum, GLbitfield))                                        \
    X(GLenum, glClientWaitSync, (GLsync, GLbitfield, GLuint64))                         \
    X(void, glGetSynciv, (GLsync, GLenum, GLsizei, GLsizei *, GLint *))                 \
    X(GLboolean, glIsSync, (GLsync))                                                    \
    X(void, glDeleteSync, (GLsync))                                                     \
    X(void, glTexImage2DMultisample, (GLenum, GLsizei, GLenum, GLsizei, GLsizei, GLboolean)) \
    X(void, glFramebufferTexture2D, (GLenum, GLenum, GLenum, GLuint, GLint))            \
    X(void, glSampleMaski, (GLuint, GLbitfield))                                        \
    X(void, glGetTexLevelParameteriv, (GLenum, GLint, GLenum, GLint *))                 \
    X(void, glDrawArraysIndirect, (GLenum, const void *))                               \
    X(void, glDrawElementsIndirect, (GLenum, GLenum, const void *))                     \
    X(void, glDispatchCompute, (GLuint, GLuint, GLuint))                                \
    X(void, glBindImageTexture, (GLuint, GLuint, GLint, GLboolean, GLint, GLenum, GLenum)) \
    X(void, glMemoryBarrier, (GLbitfield))                                              \
    X(void, glPrimitiveRestartIndex, (GLuint))

#define DECLARE_FN(ret, name, args) static ret(*name) args;
GL_FUNCS(DECLARE_FN)
#undef DECLARE_FN

static int load_gl(void) {
    int missing = 0;
#define LOAD_FN(ret, name, args)                                                 \
    *(void **)(&name) = (void *)eglGetProcAddress(#name);                        \
    if (!name) {                                                                 \
        fprintf(stderr, "eglGetProcAddress(\"%s\") returned NULL\n", #name);     \
        missing++;                                                               \
    }
    GL_FUNCS(LOAD_FN)
#undef LOAD_FN
    return missing;
}

/* ---- failure reporting ------------------------------------------------- */

static char g_why[1024];

static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_why, sizeof g_why, fmt, ap);
    va_end(ap);
    return 0;
}

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) return fail(__VA_ARGS__);                                  \
    } while (0)

static const char *err_name(GLenum e) {
    switch (e) {
    case GL_NO_ERROR: return "GL_NO_ERROR";
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default: return "unknown error";
    }
}

/* Expect a specific glGetError value (then no further error). */
static int expect_error(GLenum want, const char *what) {
    GLenum got = glGetError();
    CHECK(got == want, "%s: glGetError() = %s (0x%04x), expected %s", what, err_name(got), got,
          err_name(want));
    got = glGetError();
    CHECK(got == GL_NO_ERROR, "%s: a second error %s (0x%04x) was pending", what, err_name(got),
          got);
    return 1;
}

#define EXPECT_NO_ERROR(what)                                                   \
    do {                                                                        \
        if (!expect_error(GL_NO_ERROR, what)) return 0;                         \
    } while (0)

/* ---- render target ------------------------------------------------------ */

#define W 64
#define H 64

typedef struct {
    GLuint fbo, rb;
    int w, h;
} Target;

static int target_create(Target *t, int w, int h) {
    t->w = w;
    t->h = h;
    glGenRenderbuffers(1, &t->rb);
    glBindRenderbuffer(GL_RENDERBUFFER, t->rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    glGenFramebuffers(1, &t->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    CHECK(st == GL_FRAMEBUFFER_COMPLETE, "FBO incomplete: status 0x%04x", st);
    glViewport(0, 0, w, h);
    EXPECT_NO_ERROR("creating the RGBA8 FBO");
    return 1;
}

static void target_destroy(Target *t) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &t->fbo);
    glDeleteRenderbuffers(1, &t->rb);
}

/* Read the whole target (tightly packed RGBA8). Caller frees. */
static uint8_t *read_target(const Target *t) {
    uint8_t *px = malloc((size_t)t->w * t->h * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glReadPixels(0, 0, t->w, t->h, GL_RGBA, GL_UNSIGNED_BYTE, px);
    return px;
}

static int near(int a, int b, int tol) { return a - b <= tol && b - a <= tol; }

/* Check that every pixel in [x0,x1)x[y0,y1) equals rgba within tol. */
static int check_rect(const uint8_t *px, int stride_px, int x0, int y0, int x1, int y1,
                      const uint8_t rgba[4], int tol, const char *what) {
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = px + ((size_t)y * stride_px + x) * 4;
            for (int c = 0; c < 4; c++)
                if (!near(p[c], rgba[c], tol))
                    return fail("%s: pixel (%d,%d) = (%d,%d,%d,%d), expected (%d,%d,%d,%d)%s", what,
                                x, y, p[0], p[1], p[2], p[3], rgba[0], rgba[1], rgba[2], rgba[3],
                                tol ? " +-1" : "");
        }
    return 1;
}

/* ---- shaders ------------------------------------------------------------ */

static GLuint compile(GLenum kind, const char *src) {
    GLuint s = glCreateShader(kind);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = {0};
        glGetShaderInfoLog(s, sizeof log - 1, NULL, log);
        fail("%s shader did not compile: %s", kind == GL_VERTEX_SHADER ? "vertex" : "fragment",
             log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

/* attribs: NULL-terminated list of names bound to locations 0, 1, 2, ... */
static GLuint program(const char *vs_src, const char *fs_src, const char *const *attribs) {
    GLuint vs = compile(GL_VERTEX_SHADER, vs_src);
    if (!vs) return 0;
    GLuint fs = compile(GL_FRAGMENT_SHADER, fs_src);
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    for (GLuint i = 0; attribs && attribs[i]; i++) glBindAttribLocation(p, i, attribs[i]);
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[512] = {0};
        glGetProgramInfoLog(p, sizeof log - 1, NULL, log);
        fail("program did not link: %s", log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

/* A solid colour program: position from attribute 0 mapped by u_xform
 * (pos * xform.xy + xform.zw), colour from u_color. */
static const char *VS_XFORM =
    "#version 330 core\n"
    "in vec2 a_pos;\n"
    "uniform vec4 u_xform;\n"
    "void main() { gl_Position = vec4(a_pos * u_xform.xy + u_xform.zw, 0.0, 1.0); }\n";
static const char *FS_COLOR =
    "#version 330 core\n"
    "uniform vec4 u_color;\n"
    "out vec4 o_color;\n"
    "void main() { o_color = u_color; }\n";
static const char *const ATTR_POS[] = {"a_pos", NULL};

/* A program (attribute a_pos) whose uniform block `block` is assigned
 * binding point `binding`; 0 (after a FAIL line) when either fails. */
static GLuint block_program(const char *vs, const char *fs, const char *block, GLuint binding) {
    GLuint prog = program(vs, fs, ATTR_POS);
    if (!prog) return 0;
    GLuint index = glGetUniformBlockIndex(prog, block);
    if (index == GL_INVALID_INDEX) {
        glDeleteProgram(prog);
        return (GLuint)fail("glGetUniformBlockIndex(\"%s\") = GL_INVALID_INDEX", block);
    }
    glUniformBlockBinding(prog, index, binding);
    return prog;
}

/* A unit quad [0,1]^2 as a 4-vertex strip. */
static const float UNIT_QUAD[8] = {0, 0, 1, 0, 0, 1, 1, 1};

/* A vertex array (left bound) over a new buffer of tight vec2 positions at
 * attribute 0; the buffer's name goes to *vbo. */
static GLuint pos2_vao(const float *xy, GLsizeiptr bytes, GLuint *vbo) {
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, *vbo);
    glBufferData(GL_ARRAY_BUFFER, bytes, xy, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(0);
    return vao;
}

typedef struct {
    GLuint prog, vao, vbo;
    GLint u_xform, u_color;
} Solid;

static int solid_create(Solid *s) {
    memset(s, 0, sizeof *s);
    s->prog = program(VS_XFORM, FS_COLOR, ATTR_POS);
    if (!s->prog) return 0;
    s->u_xform = glGetUniformLocation(s->prog, "u_xform");
    s->u_color = glGetUniformLocation(s->prog, "u_color");
    CHECK(s->u_xform >= 0 && s->u_color >= 0, "uniform locations: u_xform=%d u_color=%d",
          s->u_xform, s->u_color);
    s->vao = pos2_vao(UNIT_QUAD, sizeof UNIT_QUAD, &s->vbo);
    EXPECT_NO_ERROR("creating the solid-colour program");
    return 1;
}

/* Fill the NDC rectangle [x0,x1]x[y0,y1] with colour c. */
static void solid_rect(const Solid *s, float x0, float y0, float x1, float y1, const float c[4]) {
    glUseProgram(s->prog);
    glBindVertexArray(s->vao);
    glUniform4f(s->u_xform, x1 - x0, y1 - y0, x0, y0);
    glUniform4f(s->u_color, c[0], c[1], c[2], c[3]);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

static void solid_destroy(Solid *s) {
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &s->vao);
    glDeleteBuffers(1, &s->vbo);
    glDeleteProgram(s->prog);
}

/* Colours that convert exactly to unorm8: k/5 -> 51*k. */
static const float C_BG[4] = {0.2f, 0.4f, 0.6f, 0.8f};
static const uint8_t U_BG[4] = {51, 102, 153, 204};
static const float C_A[4] = {1.0f, 0.2f, 0.0f, 1.0f};
static const uint8_t U_A[4] = {255, 51, 0, 255};
static const float C_B[4] = {0.0f, 0.6f, 1.0f, 0.4f};
static const uint8_t U_B[4] = {0, 153, 255, 102};
static const uint8_t U_ZERO[4] = {0, 0, 0, 0};

/* ---- scenarios ---------------------------------------------------------- */

static int sc_clear(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    glClearColor(C_BG[0], C_BG[1], C_BG[2], C_BG[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W, H, U_BG, 0, "clear");
    free(px);
    if (ok) EXPECT_NO_ERROR("clear");
    target_destroy(&t);
    return ok;
}

/* VBO + IBO + VAO, vec4 uniforms, the quad covers exactly the left half. */
static int sc_indexed_draw(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    GLuint prog = program(VS_XFORM, FS_COLOR, ATTR_POS);
    if (!prog) return 0;
    GLint u_xform = glGetUniformLocation(prog, "u_xform");
    GLint u_color = glGetUniformLocation(prog, "u_color");
    CHECK(u_xform >= 0 && u_color >= 0, "uniform locations: u_xform=%d u_color=%d", u_xform,
          u_color);

    static const float verts[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    static const uint16_t idx[6] = {0, 1, 2, 2, 1, 3};
    GLuint vao, vbo, ibo;
    vao = pos2_vao(verts, sizeof verts, &vbo);
    glGenBuffers(1, &ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof idx, idx, GL_STATIC_DRAW);
    /* Unbinding the VAO must keep the IBO binding inside it. */
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);

    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(prog);
    /* x: [0,1] * 1 - 1 = [-1,0]; y: [0,1] * 2 - 1 = [-1,1] */
    glUniform4f(u_xform, 1.0f, 2.0f, -1.0f, -1.0f);
    glUniform4f(u_color, C_A[0], C_A[1], C_A[2], C_A[3]);
    glBindVertexArray(vao);
    glDrawElements(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)0);
    EXPECT_NO_ERROR("indexed draw");

    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W / 2, H, U_A, 0, "left half (drawn)") &&
             check_rect(px, W, W / 2, 0, W, H, U_ZERO, 0, "right half (untouched)");
    free(px);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glDeleteBuffers(1, &ibo);
    glDeleteProgram(prog);
    target_destroy(&t);
    return ok;
}

static int sc_additive_blend(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    glClearColor(C_BG[0], C_BG[1], C_BG[2], C_BG[3]); /* 51,102,153,204 */
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFunc(GL_ONE, GL_ONE);
    static const float add[4] = {0.2f, 0.4f, 0.0f, 0.0f};
    /* Twice over the right half: 51+51+51, 102+102+102 -> clamps to 255. */
    solid_rect(&s, 0.0f, -1.0f, 1.0f, 1.0f, add);
    solid_rect(&s, 0.0f, -1.0f, 1.0f, 1.0f, add);
    glDisable(GL_BLEND);
    EXPECT_NO_ERROR("additive blending");
    uint8_t *px = read_target(&t);
    static const uint8_t want[4] = {153, 255, 153, 204};
    int ok = check_rect(px, W, W / 2, 0, W, H, want, 1, "blended half") &&
             check_rect(px, W, 0, 0, W / 2, H, U_BG, 0, "unblended half");
    free(px);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* 4x4 texture cut out of an 8-texel-wide client image with
 * GL_UNPACK_ROW_LENGTH, sampled with NEAREST over the whole target. */
static int sc_texture_unpack_row_length(void) {
    enum { TW = 4, TH = 4, ROW = 7 };
    uint8_t src[ROW * TH * 4];
    for (int y = 0; y < TH; y++)
        for (int x = 0; x < ROW; x++) {
            uint8_t *p = src + (y * ROW + x) * 4;
            if (x < TW) {
                p[0] = (uint8_t)(x * 60 + 10);
                p[1] = (uint8_t)(y * 60 + 20);
                p[2] = (uint8_t)(x * 16 + y * 4 + 1);
                p[3] = 255;
            } else { /* padding that must never be read */
                p[0] = 0xEE;
                p[1] = 0xEE;
                p[2] = 0xEE;
                p[3] = 0xEE;
            }
        }
    Target t;
    if (!target_create(&t, W, H)) return 0;
    GLuint tex;
    glGenTextures(1, &tex);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, ROW);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, TW, TH, 0, GL_RGBA, GL_UNSIGNED_BYTE, src);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    EXPECT_NO_ERROR("texture upload");

    static const char *fs =
        "#version 330 core\n"
        "uniform sampler2D u_tex;\n"
        "uniform vec4 u_color;\n" /* (1/W, 1/H, unused, unused) */
        "out vec4 o_color;\n"
        "void main() { o_color = texture(u_tex, gl_FragCoord.xy * u_color.xy); }\n";
    GLuint prog = program(VS_XFORM, fs, ATTR_POS);
    if (!prog) return 0;
    GLuint vao, vbo;
    vao = pos2_vao(UNIT_QUAD, sizeof UNIT_QUAD, &vbo);
    glUseProgram(prog);
    glUniform1i(glGetUniformLocation(prog, "u_tex"), 0);
    glUniform4f(glGetUniformLocation(prog, "u_xform"), 2.0f, 2.0f, -1.0f, -1.0f);
    glUniform4f(glGetUniformLocation(prog, "u_color"), 1.0f / W, 1.0f / H, 0.0f, 0.0f);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    EXPECT_NO_ERROR("textured draw");

    uint8_t *px = read_target(&t);
    int ok = 1;
    for (int ty = 0; ty < TH && ok; ty++)
        for (int tx = 0; tx < TW && ok; tx++) {
            char what[64];
            snprintf(what, sizeof what, "texel (%d,%d)", tx, ty);
            ok = check_rect(px, W, tx * (W / TW), ty * (H / TH), (tx + 1) * (W / TW),
                            (ty + 1) * (H / TH), src + (ty * ROW + tx) * 4, 0, what);
        }
    free(px);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glDeleteProgram(prog);
    glDeleteTextures(1, &tex);
    target_destroy(&t);
    return ok;
}

/* A std140 block bound to binding point 2 via glUniformBlockBinding and
 * glBindBufferBase; a decoy buffer sits at binding 0. The block layout
 * exercises std140 rules: vec3 alignment, a float packed after a vec3,
 * and a 16-byte array stride. */
static int sc_ubo_std140(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    static const char *fs =
        "#version 330 core\n"
        "layout(std140) uniform Params {\n"
        "  float a;      /* offset 0  */\n"
        "  vec3 b;       /* offset 16 */\n"
        "  float c;      /* offset 28 */\n"
        "  vec4 d;       /* offset 32 */\n"
        "  float e[2];   /* offsets 48, 64 */\n"
        "};\n"
        "out vec4 o_color;\n"
        "void main() { o_color = vec4(a, b.y, c, e[1]) * d.x; }\n";
    GLuint prog = block_program(VS_XFORM, fs, "Params", 2);
    if (!prog) return 0;

    float data[20];
    for (int i = 0; i < 20; i++) data[i] = 9.0f; /* poison in padding and unused members */
    data[0] = 0.2f;                              /* a */
    data[5] = 0.4f;                              /* b.y (offset 20) */
    data[7] = 0.6f;                              /* c (offset 28) */
    data[8] = 1.0f;                              /* d.x (offset 32) */
    data[12] = 0.0f;                             /* e[0] (offset 48) */
    data[16] = 0.8f;                             /* e[1] (offset 64) */
    float decoy[20];
    for (int i = 0; i < 20; i++) decoy[i] = 0.0f;

    GLuint ubo[2];
    glGenBuffers(2, ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo[0]);
    glBufferData(GL_UNIFORM_BUFFER, sizeof data, data, GL_STATIC_DRAW);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo[1]);
    glBufferData(GL_UNIFORM_BUFFER, sizeof decoy, decoy, GL_STATIC_DRAW);
    glBindBufferBase(GL_UNIFORM_BUFFER, 2, ubo[0]);
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, ubo[1]);

    GLuint vao, vbo;
    vao = pos2_vao(UNIT_QUAD, sizeof UNIT_QUAD, &vbo);
    glUseProgram(prog);
    glUniform4f(glGetUniformLocation(prog, "u_xform"), 2.0f, 2.0f, -1.0f, -1.0f);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    EXPECT_NO_ERROR("draw with a uniform block");

    uint8_t *px = read_target(&t);
    static const uint8_t want[4] = {51, 102, 153, 204};
    int ok = check_rect(px, W, 0, 0, W, H, want, 0, "std140 block values");
    free(px);
    glBindBufferBase(GL_UNIFORM_BUFFER, 0, 0);
    glBindBufferBase(GL_UNIFORM_BUFFER, 2, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glDeleteBuffers(2, ubo);
    glDeleteProgram(prog);
    target_destroy(&t);
    return ok;
}

/* Minecraft 1.21-style per-draw uniform ranges: each of 16 cells is one
 * glBindBufferRange into one buffer (offsets a multiple of
 * GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT) + a glBindBuffer of one of two
 * element buffers + glDrawElementsBaseVertex, nothing else between draws.
 * Every cell must show its own range's colour. */
static int sc_ubo_ranges(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    static const char *fs =
        "#version 330 core\n"
        "layout(std140) uniform Cell { vec4 color; };\n"
        "out vec4 o_color;\n"
        "void main() { o_color = color; }\n";
    static const char *vs =
        "#version 330 core\n"
        "in vec2 a_pos;\n"
        "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
    GLuint prog = block_program(vs, fs, "Cell", 1);
    if (!prog) return 0;
    GLint align = 0;
    glGetIntegerv(GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT, &align);
    CHECK(align > 0 && align <= 4096, "GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT = %d", align);
    enum { N = 4, CELLS = N * N };
    /* Four vertices per cell, in clip space. */
    float verts[CELLS * 8];
    for (int i = 0; i < CELLS; i++) {
        float x0 = -1.0f + 2.0f * (i % N) / N, y0 = -1.0f + 2.0f * (i / N) / N;
        float x1 = x0 + 2.0f / N, y1 = y0 + 2.0f / N;
        float q[8] = {x0, y0, x1, y0, x0, y1, x1, y1};
        memcpy(verts + i * 8, q, sizeof q);
    }
    static const unsigned short quad[6] = {0, 1, 2, 2, 1, 3};
    uint8_t *colors = calloc((size_t)CELLS, (size_t)align);
    uint8_t want[CELLS][4];
    for (int i = 0; i < CELLS; i++) {
        float c[4] = {(i % 4) / 3.0f, (i / 4) / 3.0f, (i % 3) / 2.0f, 1.0f};
        memcpy(colors + (size_t)i * align, c, sizeof c);
        for (int k = 0; k < 4; k++) want[i][k] = (uint8_t)(c[k] * 255.0f + 0.5f);
    }
    GLuint vao, vbo, ibo[2], ubo;
    vao = pos2_vao(verts, sizeof verts, &vbo);
    glGenBuffers(2, ibo);
    for (int k = 0; k < 2; k++) {
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo[k]);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    }
    glGenBuffers(1, &ubo);
    glBindBuffer(GL_UNIFORM_BUFFER, ubo);
    glBufferData(GL_UNIFORM_BUFFER, (GLsizeiptr)CELLS * align, colors, GL_STATIC_DRAW);
    free(colors);
    glUseProgram(prog);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    for (int i = 0; i < CELLS; i++) {
        glBindBufferRange(GL_UNIFORM_BUFFER, 1, ubo, (GLintptr)i * align, 16);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo[i % 2]);
        glDrawElementsBaseVertex(GL_TRIANGLES, 6, GL_UNSIGNED_SHORT, (const void *)0, i * 4);
    }
    EXPECT_NO_ERROR("per-draw uniform ranges");

    uint8_t *px = read_target(&t);
    int ok = 1;
    for (int i = 0; i < CELLS && ok; i++) {
        char what[48];
        snprintf(what, sizeof what, "cell %d", i);
        int cx = (i % N) * (W / N), cy = (i / N) * (H / N);
        ok = check_rect(px, W, cx + 1, cy + 1, cx + W / N - 1, cy + H / N - 1, want[i], 1, what);
    }
    free(px);
    glBindBufferBase(GL_UNIFORM_BUFFER, 1, 0);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glDeleteBuffers(2, ibo);
    glDeleteBuffers(1, &ubo);
    glDeleteProgram(prog);
    target_destroy(&t);
    return ok;
}

/* Back-to-back draws that switch between vertex arrays of one layout
 * (different buffers, different attribute offsets) and change a uniform
 * between draws, nothing else: the shape of a Minecraft chunk pass, which
 * a backend may take on a light path that re-binds only the vertex
 * buffers and the uniform range. Array k's buffer lists the cells rotated
 * by 5k and starts with 2k padding vertices (attribute offset 16k bytes),
 * so a stale buffer or offset puts a colour in the wrong cell. */
static int sc_vao_switch(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    enum { N = 4, CELLS = N * N, ARRAYS = 3 };
    /* The solid-colour program; its own unit-quad array is not drawn. */
    Solid s;
    if (!solid_create(&s)) return 0;
    GLuint vao[ARRAYS], vbo[ARRAYS];
    glGenVertexArrays(ARRAYS, vao);
    glGenBuffers(ARRAYS, vbo);
    for (int k = 0; k < ARRAYS; k++) {
        float v[(CELLS + 2 * ARRAYS) * 8];
        memset(v, 0, sizeof v);
        for (int j = 0; j < CELLS; j++) {
            int cell = (j + 5 * k) % CELLS;
            float x0 = (float)(cell % N) / N, y0 = (float)(cell / N) / N, d = 1.0f / N;
            float q[8] = {x0, y0, x0 + d, y0, x0, y0 + d, x0 + d, y0 + d};
            memcpy(v + 4 * k + j * 8, q, sizeof q);
        }
        glBindVertexArray(vao[k]);
        glBindBuffer(GL_ARRAY_BUFFER, vbo[k]);
        glBufferData(GL_ARRAY_BUFFER, sizeof v, v, GL_STATIC_DRAW);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 8, (const void *)(uintptr_t)(16 * k));
        glEnableVertexAttribArray(0);
    }
    glUseProgram(s.prog);
    /* Unit square [0,1]^2 onto the whole target. */
    glUniform4f(s.u_xform, 2.0f, 2.0f, -1.0f, -1.0f);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    uint8_t want[CELLS][4];
    for (int i = 0; i < CELLS; i++) {
        int k = i % ARRAYS;
        float c[4] = {(i % 4) / 3.0f, (i / 4) / 3.0f, (i % 3) / 2.0f, 1.0f};
        for (int ch = 0; ch < 4; ch++) want[i][ch] = (uint8_t)(c[ch] * 255.0f + 0.5f);
        glBindVertexArray(vao[k]);
        glUniform4f(s.u_color, c[0], c[1], c[2], c[3]);
        glDrawArrays(GL_TRIANGLE_STRIP, 4 * ((i - 5 * k + 5 * CELLS) % CELLS), 4);
    }
    EXPECT_NO_ERROR("vertex-array switches");
    uint8_t *px = read_target(&t);
    int ok = 1;
    for (int i = 0; i < CELLS && ok; i++) {
        char what[48];
        snprintf(what, sizeof what, "cell %d (array %d)", i, i % ARRAYS);
        int cx = (i % N) * (W / N), cy = (i / N) * (H / N);
        ok = check_rect(px, W, cx + 1, cy + 1, cx + W / N - 1, cy + H / N - 1, want[i], 1, what);
    }
    free(px);
    glDeleteVertexArrays(ARRAYS, vao);
    glDeleteBuffers(ARRAYS, vbo);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* Draw, glBufferSubData the vertex buffer, draw again: the first draw must
 * see the old contents and the second the new ones. */
static int sc_buffer_subdata_order(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    static const char *vs =
        "#version 330 core\n"
        "in vec2 a_pos;\n"
        "in vec4 a_color;\n"
        "out vec4 v_color;\n"
        "void main() { v_color = a_color; gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
    static const char *fs =
        "#version 330 core\n"
        "in vec4 v_color;\n"
        "out vec4 o_color;\n"
        "void main() { o_color = v_color; }\n";
    static const char *const attrs[] = {"a_pos", "a_color", NULL};
    GLuint prog = program(vs, fs, attrs);
    if (!prog) return 0;

    /* 4 vertices x (pos2 + color4) */
    float left[24], right[24];
    for (int v = 0; v < 4; v++) {
        float x = (float)(v & 1), y = (float)(v >> 1);
        left[v * 6 + 0] = x - 1.0f; /* [-1,0] */
        left[v * 6 + 1] = y * 2.0f - 1.0f;
        right[v * 6 + 0] = x; /* [0,1] */
        right[v * 6 + 1] = y * 2.0f - 1.0f;
        memcpy(&left[v * 6 + 2], C_A, sizeof C_A);
        memcpy(&right[v * 6 + 2], C_B, sizeof C_B);
    }
    GLuint vao, vbo;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof left, left, GL_DYNAMIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void *)0);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                          (const void *)(2 * sizeof(float)));
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glUseProgram(prog);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof right, right);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    EXPECT_NO_ERROR("draw / glBufferSubData / draw");

    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W / 2, H, U_A, 0, "left half (first draw, old data)") &&
             check_rect(px, W, W / 2, 0, W, H, U_B, 0, "right half (second draw, new data)");
    free(px);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(1, &vbo);
    glDeleteProgram(prog);
    target_destroy(&t);
    return ok;
}

/* Scissor limits both a clear and a draw. */
static int sc_scissor(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    glScissor(8, 4, 16, 20); /* clear [8,24)x[4,24) */
    glClearColor(C_A[0], C_A[1], C_A[2], C_A[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    glScissor(40, 36, 12, 20); /* draw [40,52)x[36,56) */
    solid_rect(&s, -1.0f, -1.0f, 1.0f, 1.0f, C_B);
    glDisable(GL_SCISSOR_TEST);
    EXPECT_NO_ERROR("scissored clear and draw");
    uint8_t *px = read_target(&t);
    int ok = 1;
    for (int y = 0; y < H && ok; y++)
        for (int x = 0; x < W && ok; x++) {
            const uint8_t *want = U_ZERO;
            if (x >= 8 && x < 24 && y >= 4 && y < 24) want = U_A;
            if (x >= 40 && x < 52 && y >= 36 && y < 56) want = U_B;
            ok = check_rect(px, W, x, y, x + 1, y + 1, want, 0, "scissor");
        }
    free(px);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* Four instances of a quarter-size quad; offset and colour come from
 * per-instance attributes (divisor 1). */
static int sc_instanced_divisor(void) {
    Target t;
    if (!target_create(&t, W, H)) return 0;
    static const char *vs =
        "#version 330 core\n"
        "in vec2 a_pos;\n"
        "in vec2 a_offset;\n"
        "in vec4 a_color;\n"
        "out vec4 v_color;\n"
        "void main() { v_color = a_color; gl_Position = vec4(a_pos + a_offset, 0.0, 1.0); }\n";
    static const char *fs =
        "#version 330 core\n"
        "in vec4 v_color;\n"
        "out vec4 o_color;\n"
        "void main() { o_color = v_color; }\n";
    static const char *const attrs[] = {"a_pos", "a_offset", "a_color", NULL};
    GLuint prog = program(vs, fs, attrs);
    if (!prog) return 0;
    /* base quad: [-1,0]^2 (bottom-left quadrant) */
    static const float quad[8] = {-1, -1, 0, -1, -1, 0, 0, 0};
    /* per instance: offset2 + color4 */
    static const float inst[4 * 6] = {
        0, 0, 1.0f, 0.0f, 0.0f, 1.0f, /* bottom-left: red */
        1, 0, 0.0f, 1.0f, 0.0f, 1.0f, /* bottom-right: green */
        0, 1, 0.0f, 0.0f, 1.0f, 1.0f, /* top-left: blue */
        1, 1, 0.2f, 0.4f, 0.6f, 0.8f, /* top-right */
    };
    GLuint vao, vbo[2];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(2, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, vbo[1]);
    glBufferData(GL_ARRAY_BUFFER, sizeof inst, inst, GL_STATIC_DRAW);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (const void *)0);
    glVertexAttribPointer(2, 4, GL_FLOAT, GL_FALSE, 6 * sizeof(float),
                          (const void *)(2 * sizeof(float)));
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(2);
    glVertexAttribDivisor(1, 1);
    glVertexAttribDivisor(2, 1);
    glUseProgram(prog);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 4);
    EXPECT_NO_ERROR("instanced draw");
    uint8_t *px = read_target(&t);
    static const uint8_t red[4] = {255, 0, 0, 255}, green[4] = {0, 255, 0, 255},
                         blue[4] = {0, 0, 255, 255};
    int ok = check_rect(px, W, 0, 0, W / 2, H / 2, red, 0, "instance 0") &&
             check_rect(px, W, W / 2, 0, W, H / 2, green, 0, "instance 1") &&
             check_rect(px, W, 0, H / 2, W / 2, H, blue, 0, "instance 2") &&
             check_rect(px, W, W / 2, H / 2, W, H, U_BG, 0, "instance 3");
    free(px);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(2, vbo);
    glDeleteProgram(prog);
    target_destroy(&t);
    return ok;
}

/* glReadPixels of a 5x3 region into rows of 9 pixels (GL_PACK_ROW_LENGTH):
 * the region lands at the right place and the row gaps stay untouched. */
static int sc_readpixels_pack_row_length(void) {
    enum { RW = 5, RH = 3, ROW = 9, X0 = 10, Y0 = 20 };
    Target t;
    if (!target_create(&t, W, H)) return 0;
    /* A per-pixel pattern made of 1x1 scissored clears around the region. */
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_SCISSOR_TEST);
    for (int y = 0; y < RH; y++)
        for (int x = 0; x < RW; x++) {
            glScissor(X0 + x, Y0 + y, 1, 1);
            glClearColor((float)(x + 1) / 5.0f, (float)(y + 1) / 5.0f, 0.2f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
        }
    glDisable(GL_SCISSOR_TEST);
    EXPECT_NO_ERROR("pattern clears");

    size_t size = (size_t)ROW * RH * 4 + 64;
    uint8_t *buf = malloc(size);
    memset(buf, 0xAB, size);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glPixelStorei(GL_PACK_ROW_LENGTH, ROW);
    glReadPixels(X0, Y0, RW, RH, GL_RGBA, GL_UNSIGNED_BYTE, buf);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    EXPECT_NO_ERROR("glReadPixels with GL_PACK_ROW_LENGTH");
    int ok = 1;
    for (int y = 0; y < RH && ok; y++)
        for (int x = 0; x < ROW && ok; x++) {
            const uint8_t *p = buf + ((size_t)y * ROW + x) * 4;
            if (x < RW) {
                uint8_t want[4] = {(uint8_t)(51 * (x + 1)), (uint8_t)(51 * (y + 1)), 51, 255};
                ok = check_rect(buf, ROW, x, y, x + 1, y + 1, want, 0, "read region");
            } else {
                for (int c = 0; c < 4 && ok; c++)
                    if (p[c] != 0xAB)
                        ok = fail("row gap byte at row %d pixel %d component %d was written "
                                  "(0x%02x, expected 0xAB)",
                                  y, x, c, p[c]);
            }
        }
    /* Nothing past the last row's pixels may be written either. */
    size_t end = ((size_t)(RH - 1) * ROW + RW) * 4;
    for (size_t i = end; i < size && ok; i++)
        if (buf[i] != 0xAB) ok = fail("byte %zu past the last read pixel was written", i);
    free(buf);
    target_destroy(&t);
    return ok;
}

/* glMapBufferRange(GL_MAP_READ_BIT) sees an earlier glBufferSubData. */
static int sc_map_buffer_range_read(void) {
    uint8_t init[256], patch[40];
    for (int i = 0; i < 256; i++) init[i] = (uint8_t)i;
    for (int i = 0; i < 40; i++) patch[i] = (uint8_t)(200 - i);
    GLuint buf;
    glGenBuffers(1, &buf);
    glBindBuffer(GL_COPY_READ_BUFFER, buf);
    glBufferData(GL_COPY_READ_BUFFER, sizeof init, init, GL_DYNAMIC_DRAW);
    glBufferSubData(GL_COPY_READ_BUFFER, 100, sizeof patch, patch);
    const uint8_t *m = glMapBufferRange(GL_COPY_READ_BUFFER, 64, 128, GL_MAP_READ_BIT);
    if (!m) {
        GLenum e = glGetError();
        glDeleteBuffers(1, &buf);
        return fail("glMapBufferRange returned NULL (%s)", err_name(e));
    }
    int ok = 1;
    for (int i = 0; i < 128 && ok; i++) {
        int off = 64 + i;
        uint8_t want = (off >= 100 && off < 140) ? patch[off - 100] : init[off];
        if (m[i] != want)
            ok = fail("mapped byte at buffer offset %d = %d, expected %d", off, m[i], want);
    }
    GLboolean unmapped = glUnmapBuffer(GL_COPY_READ_BUFFER);
    if (ok && unmapped != GL_TRUE) ok = fail("glUnmapBuffer returned GL_FALSE");
    if (ok) ok = expect_error(GL_NO_ERROR, "map/unmap");
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glDeleteBuffers(1, &buf);
    return ok;
}

/* A persistent coherent map (ARB_buffer_storage): vertices written through
 * the map between two draws, with no GL call in between, reach each draw;
 * then a GPU copy into the mapped buffer is seen through the map once a
 * fence has signalled. */
static int sc_persistent_map(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    GLuint buf, src;
    glGenBuffers(1, &buf);
    glBindVertexArray(s.vao);
    glBindBuffer(GL_ARRAY_BUFFER, buf);
    const GLbitfield access = GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT;
    glBufferStorage(GL_ARRAY_BUFFER, 256, NULL, access | GL_DYNAMIC_STORAGE_BIT);
    float *m = glMapBufferRange(GL_ARRAY_BUFFER, 0, 256, access);
    if (!m) return fail("persistent glMapBufferRange returned NULL (%s)", err_name(glGetError()));
    EXPECT_NO_ERROR("glBufferStorage + persistent glMapBufferRange");
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glUseProgram(s.prog);
    glUniform4f(s.u_xform, 2, 2, -1, -1);
    /* Left half from vertices 0..3, right half from vertices 8..11. */
    const float left[8] = {0, 0, 0.5f, 0, 0, 1, 0.5f, 1};
    const float right[8] = {0.5f, 0, 1, 0, 0.5f, 1, 1, 1};
    memcpy(m, left, sizeof left);
    glUniform4f(s.u_color, C_A[0], C_A[1], C_A[2], C_A[3]);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
    memcpy(m + 16, right, sizeof right);
    glUniform4f(s.u_color, C_B[0], C_B[1], C_B[2], C_B[3]);
    glDrawArrays(GL_TRIANGLE_STRIP, 8, 4);
    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W / 2, H, U_A, 0, "left half, drawn from the first write");
    if (ok) ok = check_rect(px, W, W / 2, 0, W, H, U_B, 0, "right half, drawn from the second write");
    free(px);
    /* GPU write into the mapped range, read back through the pointer. */
    const float pattern[4] = {1.5f, -2.25f, 3.0f, 4.125f};
    glGenBuffers(1, &src);
    glBindBuffer(GL_COPY_READ_BUFFER, src);
    glBufferData(GL_COPY_READ_BUFFER, sizeof pattern, pattern, GL_STATIC_DRAW);
    glCopyBufferSubData(GL_COPY_READ_BUFFER, GL_ARRAY_BUFFER, 0, 192, sizeof pattern);
    GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 5000000000ull);
    glDeleteSync(sync);
    for (int i = 0; i < 4 && ok; i++)
        if (m[48 + i] != pattern[i])
            ok = fail("mapped float %d after a GPU copy = %g, expected %g", 48 + i, m[48 + i], pattern[i]);
    if (ok && m[0] != left[0]) ok = fail("the copy disturbed bytes outside its range");
    GLboolean unmapped = glUnmapBuffer(GL_ARRAY_BUFFER);
    if (ok && unmapped != GL_TRUE) ok = fail("glUnmapBuffer of a persistent map returned GL_FALSE");
    if (ok) ok = expect_error(GL_NO_ERROR, "persistent map");
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    glDeleteBuffers(1, &src);
    glDeleteBuffers(1, &buf);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* Multi-draws: glMultiDrawElementsBaseVertex over three quads of one
 * buffer (the middle sub-draw has count 0), then glMultiDrawArrays for the
 * middle one. Each third of the target shows which sub-draws ran. */
static int sc_multi_draw(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    float quads[3 * 8];
    for (int k = 0; k < 3; k++) {
        float x0 = k / 3.0f, x1 = (k + 1) / 3.0f;
        const float v[8] = {x0, 0, x1, 0, x0, 1, x1, 1};
        memcpy(quads + 8 * k, v, sizeof v);
    }
    const uint16_t strip[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    GLuint vbo, ibo;
    glBindVertexArray(s.vao);
    glGenBuffers(1, &vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo);
    glBufferData(GL_ARRAY_BUFFER, sizeof quads, quads, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glGenBuffers(1, &ibo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, ibo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof strip, strip, GL_STATIC_DRAW);
    glClearColor(C_BG[0], C_BG[1], C_BG[2], C_BG[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(s.prog);
    glUniform4f(s.u_xform, 2, 2, -1, -1);
    glUniform4f(s.u_color, C_A[0], C_A[1], C_A[2], C_A[3]);
    const GLsizei counts[3] = {4, 0, 4};
    const void *const offsets[3] = {(const void *)0, (const void *)0, (const void *)8};
    const GLint bases[3] = {0, 4, 8};
    glMultiDrawElementsBaseVertex(GL_TRIANGLE_STRIP, counts, GL_UNSIGNED_SHORT, offsets, 3, bases);
    glUniform4f(s.u_color, C_B[0], C_B[1], C_B[2], C_B[3]);
    const GLint firsts[1] = {4};
    const GLsizei acounts[1] = {4};
    glMultiDrawArrays(GL_TRIANGLE_STRIP, firsts, acounts, 1);
    EXPECT_NO_ERROR("multi-draws");
    uint8_t *px = read_target(&t);
    int third = W / 3;
    int ok = check_rect(px, W, 1, 0, third - 1, H, U_A, 0, "left third (sub-draw 0, base vertex 0)");
    if (ok) ok = check_rect(px, W, third + 2, 0, 2 * third - 1, H, U_B, 0, "middle third (glMultiDrawArrays)");
    if (ok) ok = check_rect(px, W, 2 * third + 2, 0, W, H, U_A, 0, "right third (sub-draw 2, offset 8, base vertex 8)");
    free(px);
    glDeleteBuffers(1, &vbo);
    glDeleteBuffers(1, &ibo);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

static int sc_error_bad_enable(void) {
    expect_error(GL_NO_ERROR, "before");
    glEnable(0x1234);
    return expect_error(GL_INVALID_ENUM, "glEnable(0x1234)");
}

static int sc_error_bind_ungenerated_buffer(void) {
    expect_error(GL_NO_ERROR, "before");
    glBindBuffer(GL_ARRAY_BUFFER, 0x7EADBEEF);
    if (!expect_error(GL_INVALID_OPERATION, "glBindBuffer(GL_ARRAY_BUFFER, never-generated name)"))
        return 0;
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    return expect_error(GL_NO_ERROR, "glBindBuffer(GL_ARRAY_BUFFER, 0)");
}

static int sc_error_bad_draw_mode(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    glUseProgram(s.prog);
    glBindVertexArray(s.vao);
    glDrawArrays(0x1234, 0, 4);
    int ok = expect_error(GL_INVALID_ENUM, "glDrawArrays(0x1234, ...)");
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

static int sc_version(void) {
    GLint major = -1, minor = -1, mask = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
    EXPECT_NO_ERROR("glGetIntegerv(version queries)");
    CHECK(major > 3 || (major == 3 && minor >= 3), "GL_MAJOR/MINOR_VERSION = %d.%d, want >= 3.3",
          major, minor);
    CHECK(mask & GL_CONTEXT_CORE_PROFILE_BIT, "GL_CONTEXT_PROFILE_MASK = 0x%x, want the core bit",
          mask);
    const char *v = (const char *)glGetString(GL_VERSION);
    CHECK(v != NULL, "glGetString(GL_VERSION) = NULL");
    int smaj = 0, smin = 0;
    CHECK(sscanf(v, "%d.%d", &smaj, &smin) == 2 && smaj == major && smin == minor,
          "glGetString(GL_VERSION) = \"%s\" disagrees with %d.%d", v, major, minor);
    return 1;
}

static int sc_fence(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    solid_rect(&s, -1, -1, 1, 1, C_A);
    GLsync sync = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    CHECK(sync != NULL, "glFenceSync returned NULL");
    CHECK(glIsSync(sync), "glIsSync(fence) = GL_FALSE");
    GLenum r = glClientWaitSync(sync, GL_SYNC_FLUSH_COMMANDS_BIT, 5000000000ull);
    CHECK(r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED,
          "glClientWaitSync = 0x%04x, expected ALREADY_SIGNALED or CONDITION_SATISFIED", r);
    GLint status = 0;
    GLsizei len = 0;
    glGetSynciv(sync, GL_SYNC_STATUS, 1, &len, &status);
    CHECK(len == 1 && status == GL_SIGNALED, "GL_SYNC_STATUS = 0x%04x (len %d), expected GL_SIGNALED",
          status, len);
    glDeleteSync(sync);
    EXPECT_NO_ERROR("fence");
    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W, H, U_A, 0, "draw before the fence");
    free(px);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* EGL 1.5 fence syncs: errors, attributes, and a wait from a thread that
 * has no current context (any thread may wait on an EGLSync). */
typedef struct {
    EGLDisplay dpy;
    EGLSync sync;
    EGLint result;
} SyncWait;

static void *egl_sync_waiter(void *arg) {
    SyncWait *w = arg;
    w->result = eglClientWaitSync(w->dpy, w->sync, 0, EGL_FOREVER);
    return NULL;
}

static int sc_egl_fence_sync(void) {
    EGLDisplay dpy = eglGetCurrentDisplay();
    CHECK(dpy != EGL_NO_DISPLAY, "no current display");
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    CHECK(eglCreateSync(dpy, 0x1234, NULL) == EGL_NO_SYNC && eglGetError() == EGL_BAD_PARAMETER,
          "eglCreateSync(bad type) must fail with EGL_BAD_PARAMETER");
    const EGLAttrib bad[] = {EGL_SYNC_STATUS, EGL_SIGNALED, EGL_NONE};
    CHECK(eglCreateSync(dpy, EGL_SYNC_FENCE, bad) == EGL_NO_SYNC && eglGetError() == EGL_BAD_ATTRIBUTE,
          "eglCreateSync(EGL_SYNC_FENCE, attribs) must fail with EGL_BAD_ATTRIBUTE");
    solid_rect(&s, -1, -1, 1, 1, C_B);
    EGLSync sync = eglCreateSync(dpy, EGL_SYNC_FENCE, NULL);
    CHECK(sync != EGL_NO_SYNC, "eglCreateSync(EGL_SYNC_FENCE) failed: 0x%04x", eglGetError());
    EGLAttrib v = 0;
    CHECK(eglGetSyncAttrib(dpy, sync, EGL_SYNC_TYPE, &v) && v == EGL_SYNC_FENCE, "EGL_SYNC_TYPE");
    CHECK(eglGetSyncAttrib(dpy, sync, EGL_SYNC_CONDITION, &v) &&
              v == EGL_SYNC_PRIOR_COMMANDS_COMPLETE,
          "EGL_SYNC_CONDITION");
    CHECK(!eglGetSyncAttrib(dpy, sync, 0x7777, &v) && eglGetError() == EGL_BAD_ATTRIBUTE,
          "unknown sync attribute must fail with EGL_BAD_ATTRIBUTE");
    glFlush();
    SyncWait w = {dpy, sync, 0};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, egl_sync_waiter, &w) == 0, "pthread_create");
    pthread_join(th, NULL);
    CHECK(w.result == EGL_CONDITION_SATISFIED, "wait from a context-less thread = 0x%04x", w.result);
    CHECK(eglGetSyncAttrib(dpy, sync, EGL_SYNC_STATUS, &v) && v == EGL_SIGNALED,
          "EGL_SYNC_STATUS after the wait = 0x%04x", (unsigned)v);
    CHECK(eglWaitSync(dpy, sync, 0), "eglWaitSync failed: 0x%04x", eglGetError());
    CHECK(eglDestroySync(dpy, sync), "eglDestroySync failed");
    CHECK(eglClientWaitSync(dpy, sync, 0, 0) == EGL_FALSE && eglGetError() == EGL_BAD_PARAMETER,
          "a destroyed sync must be EGL_BAD_PARAMETER");
    EXPECT_NO_ERROR("egl fence sync");
    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W, H, U_B, 0, "draw before the EGL fence");
    free(px);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* An OpenGL ES 3 context beside the desktop one: EGL_OPENGL_ES_API, an
 * ES3-renderable config, "OpenGL ES 3.x" strings, a `#version 300 es`
 * program drawing from a client-side vertex array (legal in ES with the
 * default vertex array), ES's one-shader-per-stage attach rule. */
static const char *VS_ES3 = "#version 300 es\n"
                            "in vec2 a_pos;\n"
                            "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
static const char *FS_ES3 = "#version 300 es\n"
                            "precision mediump float;\n"
                            "uniform vec4 u_color;\n"
                            "out vec4 o_color;\n"
                            "void main() { o_color = u_color; }\n";

static int sc_egl_es3_context(void) {
    EGLDisplay dpy = eglGetCurrentDisplay();
    EGLContext desktop = eglGetCurrentContext();
    CHECK(dpy != EGL_NO_DISPLAY && desktop != EGL_NO_CONTEXT, "no current desktop context");
    const char *apis = eglQueryString(dpy, EGL_CLIENT_APIS);
    CHECK(apis && strstr(apis, "OpenGL_ES"), "EGL_CLIENT_APIS lacks OpenGL_ES: %s",
          apis ? apis : "(null)");
    CHECK(eglBindAPI(EGL_OPENGL_ES_API), "eglBindAPI(EGL_OPENGL_ES_API) failed: 0x%04x",
          eglGetError());
    const EGLint cfg_attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_ES3_BIT, EGL_SURFACE_TYPE,
                                EGL_PBUFFER_BIT, EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    CHECK(eglChooseConfig(dpy, cfg_attrs, &cfg, 1, &n) && n == 1,
          "no EGL_OPENGL_ES3_BIT config: 0x%04x", eglGetError());
    const EGLint es3[] = {EGL_CONTEXT_CLIENT_VERSION, 3, EGL_NONE};
    EGLContext es = eglCreateContext(dpy, cfg, EGL_NO_CONTEXT, es3);
    CHECK(es != EGL_NO_CONTEXT, "eglCreateContext(ES 3) failed: 0x%04x", eglGetError());
    EGLint type = 0;
    CHECK(eglQueryContext(dpy, es, EGL_CONTEXT_CLIENT_TYPE, &type) && type == EGL_OPENGL_ES_API,
          "EGL_CONTEXT_CLIENT_TYPE = 0x%04x", type);
    CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, es), "eglMakeCurrent(ES) failed");
    const char *version = (const char *)glGetString(GL_VERSION);
    const char *glsl = (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION);
    int ok = version && strncmp(version, "OpenGL ES 3.", 12) == 0 && glsl &&
             strncmp(glsl, "OpenGL ES GLSL ES 3.", 20) == 0;
    Target t = {0};
    if (!ok) fail("ES strings: GL_VERSION \"%s\", GLSL \"%s\"", version ? version : "(null)",
                  glsl ? glsl : "(null)");
    GLint major = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    if (ok && major != 3) ok = fail("GL_MAJOR_VERSION = %d in an ES 3 context", major);
    if (ok && !target_create(&t, W, H)) ok = 0;
    GLuint prog = 0;
    if (ok) {
        static const char *const attrs[] = {"a_pos", NULL};
        prog = program(VS_ES3, FS_ES3, attrs);
        if (!prog) ok = 0;
    }
    if (ok) {
        GLuint extra = compile(GL_VERTEX_SHADER, VS_ES3);
        glAttachShader(prog, extra);
        GLenum e = glGetError();
        if (e != GL_INVALID_OPERATION)
            ok = fail("a second vertex shader attached in ES: 0x%04x, not GL_INVALID_OPERATION", e);
        glDeleteShader(extra);
    }
    if (ok) {
        static const float quad[] = {-1, -1, 1, -1, -1, 1, 1, 1};
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        glBindVertexArray(0);
        glClearColor(0, 0, 0, 0);
        glClear(GL_COLOR_BUFFER_BIT);
        glUseProgram(prog);
        glUniform4f(glGetUniformLocation(prog, "u_color"), C_A[0], C_A[1], C_A[2], C_A[3]);
        glEnableVertexAttribArray(0);
        glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, quad);
        glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
        glDisableVertexAttribArray(0);
        GLenum e = glGetError();
        if (e != GL_NO_ERROR) ok = fail("ES client-array draw raised 0x%04x", e);
    }
    if (ok) {
        uint8_t *px = read_target(&t);
        ok = check_rect(px, W, 0, 0, W, H, U_A, 0, "ES 3 client-array draw");
        free(px);
    }
    if (prog) glDeleteProgram(prog);
    if (t.fbo) target_destroy(&t);
    eglBindAPI(EGL_OPENGL_API);
    CHECK(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, desktop),
          "making the desktop context current again failed");
    CHECK(eglDestroyContext(dpy, es), "eglDestroyContext(ES) failed");
    return ok;
}

/* ---- liveness (spawn lane only; run by name, not in the default list) -- */

typedef GLenum (*PFN_RESET_STATUS)(void);

/* The pid of our mobilegl-server child, found in /proc (0 if none). */
static pid_t server_child(void) {
    DIR *d = opendir("/proc");
    if (!d) return 0;
    pid_t me = getpid(), found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        char path[300], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        /* pid (comm) state ppid ... ; comm may hold spaces: parse after ')' */
        char *rp = strrchr(buf, ')');
        char *lp = strchr(buf, '(');
        if (!rp || !lp) continue;
        int ppid = 0;
        char st = 0;
        if (sscanf(rp + 1, " %c %d", &st, &ppid) != 2) continue;
        if (ppid == me && strstr(lp, "mobilegl-serv")) found = (pid_t)atoi(e->d_name);
    }
    closedir(d);
    return found;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* SIGKILL the server mid-frame: we must survive, keep calling GL, and see a
 * reset promptly. */
static int sc_server_killed(void) {
    PFN_RESET_STATUS reset = (PFN_RESET_STATUS)eglGetProcAddress("glGetGraphicsResetStatus");
    CHECK(reset != NULL, "glGetGraphicsResetStatus not resolvable");
    pid_t srv = server_child();
    CHECK(srv > 0, "no mobilegl-server child found (run with MOBILEGL_TRANSPORT=spawn)");
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    CHECK(reset() == GL_NO_ERROR, "reset status before the kill is not GL_NO_ERROR");
    for (int i = 0; i < 50; i++) solid_rect(&s, -1, -1, 1, 1, C_A);
    kill(srv, SIGKILL);
    /* Mid-frame: keep drawing, reading and finishing; none may block forever. */
    double t0 = now_s();
    GLenum status = GL_NO_ERROR;
    for (int i = 0; i < 2000 && status == GL_NO_ERROR; i++) {
        solid_rect(&s, -1, -1, 1, 1, C_B);
        if (i % 100 == 0) {
            glFinish();
            uint8_t *px = read_target(&t);
            free(px);
        }
        status = reset();
        if (status == GL_NO_ERROR) usleep(1000);
    }
    double waited = now_s() - t0;
    CHECK(status != GL_NO_ERROR, "no reset reported %.2f s after SIGKILL", waited);
    CHECK(waited < 2.0, "reset reported only after %.2f s", waited);
    /* The lost context keeps answering. */
    for (int i = 0; i < 100; i++) solid_rect(&s, -1, -1, 1, 1, C_A);
    glFinish();
    while (glGetError() != GL_NO_ERROR) {
    }
    printf("reset status 0x%04x %.3f s after SIGKILL\n", status, waited);
    return 1;
}

/* SIGSTOP the server for 2 s: slow, not dead; afterwards nothing is lost. */
static int sc_server_stopped(void) {
    PFN_RESET_STATUS reset = (PFN_RESET_STATUS)eglGetProcAddress("glGetGraphicsResetStatus");
    CHECK(reset != NULL, "glGetGraphicsResetStatus not resolvable");
    pid_t srv = server_child();
    CHECK(srv > 0, "no mobilegl-server child found (run with MOBILEGL_TRANSPORT=spawn)");
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    glClearColor(C_BG[0], C_BG[1], C_BG[2], C_BG[3]);
    glClear(GL_COLOR_BUFFER_BIT);
    glFinish();
    kill(srv, SIGSTOP);
    double t0 = now_s();
    /* Record work while it is stopped (it queues in the rings). */
    while (now_s() - t0 < 2.0) {
        solid_rect(&s, -1, -1, 0, 1, C_A);
        glFlush();
        usleep(20000);
    }
    CHECK(reset() == GL_NO_ERROR, "a stopped server was reported as a reset");
    kill(srv, SIGCONT);
    solid_rect(&s, 0, -1, 1, 1, C_B);
    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W / 2, H, U_A, 0, "left half drawn while stopped") &&
             check_rect(px, W, W / 2, 0, W, H, U_B, 0, "right half drawn after SIGCONT");
    free(px);
    CHECK(reset() == GL_NO_ERROR, "reset status after SIGCONT is not GL_NO_ERROR");
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* Minecraft-shaped steady frames ended by glFinish: per frame a vertex
 * buffer update, a small texture update, uniform changes and a burst of
 * draws. Run with MOBILEGL_STATS=1, the log shows each frame's blocking
 * round trips (the test checks only the frame-ending glFinish blocks). */
static int sc_steady_frames(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 16, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    uint8_t texels[16 * 16 * 4];
    memset(texels, 0x7f, sizeof texels);
    GLsync prev = NULL;
    for (int frame = 0; frame < 12; frame++) {
        /* Frames-in-flight tracking, as games do: poll last frame's fence
         * without waiting. It signalled before that frame's glFinish returned. */
        if (prev) {
            GLenum r = glClientWaitSync(prev, 0, 0);
            CHECK(r == GL_ALREADY_SIGNALED || r == GL_CONDITION_SATISFIED,
                  "frame %d: last frame's fence polls 0x%04x after its glFinish", frame, r);
            glDeleteSync(prev);
        }
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 16, 16, GL_RGBA, GL_UNSIGNED_BYTE, texels);
        for (int i = 0; i < 40; i++) {
            float f = (float)i / 40.0f;
            float c[4] = {f, 1.0f - f, 0.5f, 1.0f};
            solid_rect(&s, -1 + f, -1, -1 + f + 0.05f, 1, c);
        }
        solid_rect(&s, -1, -1, 1, 1, C_A);
        prev = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
        glFinish();
    }
    glDeleteSync(prev);
    uint8_t *px = read_target(&t);
    int ok = check_rect(px, W, 0, 0, W, H, U_A, 0, "last full-screen draw of the last frame");
    free(px);
    glDeleteTextures(1, &tex);
    solid_destroy(&s);
    target_destroy(&t);
    return ok;
}

/* ---- reply-slot calls through their GL entry points ------------------ */

#define GL_ANY_SAMPLES_PASSED 0x8C2F
#define GL_QUERY_RESULT 0x8866
#define GL_QUERY_RESULT_AVAILABLE 0x8867

/* An occlusion query over a visible and an invisible (scissored-out) draw. */
static int sc_occlusion_query(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    GLuint q[2];
    glGenQueries(2, q);
    glBeginQuery(GL_ANY_SAMPLES_PASSED, q[0]);
    solid_rect(&s, -1, -1, 1, 1, C_A);
    glEndQuery(GL_ANY_SAMPLES_PASSED);
    glEnable(GL_SCISSOR_TEST);
    glScissor(0, 0, 0, 0);
    glBeginQuery(GL_ANY_SAMPLES_PASSED, q[1]);
    solid_rect(&s, -1, -1, 1, 1, C_B);
    glEndQuery(GL_ANY_SAMPLES_PASSED);
    glDisable(GL_SCISSOR_TEST);
    GLuint visible = 7, hidden = 7, avail = 0;
    glGetQueryObjectuiv(q[0], GL_QUERY_RESULT, &visible);
    glGetQueryObjectuiv(q[1], GL_QUERY_RESULT, &hidden);
    glGetQueryObjectuiv(q[1], GL_QUERY_RESULT_AVAILABLE, &avail);
    glDeleteQueries(2, q);
    EXPECT_NO_ERROR("occlusion queries");
    CHECK(visible == 1, "ANY_SAMPLES_PASSED of a full-screen draw = %u, expected 1", visible);
    CHECK(hidden == 0, "ANY_SAMPLES_PASSED of a scissored-out draw = %u, expected 0", hidden);
    CHECK(avail == 1, "QUERY_RESULT_AVAILABLE after QUERY_RESULT = %u", avail);
    solid_destroy(&s);
    target_destroy(&t);
    return 1;
}

#define GL_TIMESTAMP 0x8E28
#define GL_TIME_ELAPSED 0x88BF

/* GPU time: glQueryCounter timestamps bracket a GL_TIME_ELAPSED query over
 * real work; glGetInteger64v(GL_TIMESTAMP) reads the same clock. */
static int sc_timer_query(void) {
    Target t;
    Solid s;
    if (!target_create(&t, W, H) || !solid_create(&s)) return 0;
    GLuint q[3];
    glGenQueries(3, q);
    GLint64 before = 0, after = 0;
    glGetInteger64v(GL_TIMESTAMP, &before);
    glQueryCounter(q[0], GL_TIMESTAMP);
    glBeginQuery(GL_TIME_ELAPSED, q[1]);
    for (int i = 0; i < 50; i++) solid_rect(&s, -1, -1, 1, 1, (i & 1) ? C_A : C_B);
    glEndQuery(GL_TIME_ELAPSED);
    glQueryCounter(q[2], GL_TIMESTAMP);
    GLuint64 t0 = 0, elapsed = 0, t1 = 0;
    glGetQueryObjectui64v(q[0], GL_QUERY_RESULT, &t0);
    glGetQueryObjectui64v(q[1], GL_QUERY_RESULT, &elapsed);
    glGetQueryObjectui64v(q[2], GL_QUERY_RESULT, &t1);
    glGetInteger64v(GL_TIMESTAMP, &after);
    glDeleteQueries(3, q);
    EXPECT_NO_ERROR("timer queries");
    CHECK(t0 > 0 && t1 >= t0, "glQueryCounter timestamps %llu then %llu", (unsigned long long)t0,
          (unsigned long long)t1);
    /* Not compared with t1 - t0: llvmpipe's own TIME_ELAPSED is not on the
     * timestamp clock (it reports ~1e13 ns natively). */
    CHECK(elapsed > 0, "TIME_ELAPSED over 50 draws = 0");
    CHECK(before > 0 && after >= before, "GL_TIMESTAMP %lld then %lld", (long long)before, (long long)after);
    solid_destroy(&s);
    target_destroy(&t);
    return 1;
}

/* glGetTexImage of an uploaded level, with a pack row length. */
static int sc_get_tex_image(void) {
    uint8_t texels[4 * 4 * 4];
    for (int i = 0; i < (int)sizeof texels; i++) texels[i] = (uint8_t)(i * 7 + 3);
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    /* Rows of 6 pixels in the destination: the gap of 2 pixels is untouched. */
    uint8_t out[6 * 4 * 4];
    memset(out, 0xEE, sizeof out);
    glPixelStorei(GL_PACK_ROW_LENGTH, 6);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, out);
    glPixelStorei(GL_PACK_ROW_LENGTH, 0);
    glDeleteTextures(1, &tex);
    EXPECT_NO_ERROR("glGetTexImage");
    for (int y = 0; y < 4; y++) {
        CHECK(memcmp(out + y * 6 * 4, texels + y * 4 * 4, 16) == 0, "row %d of the image differs", y);
        for (int b = 16; b < 24; b++)
            CHECK(out[y * 24 + b] == 0xEE, "row %d: the pack row gap was written", y);
    }
    return 1;
}

/* ---- scenarios of GL 3.1/3.2/4.x features, run when named -------------- */

static const char *FULL_VS =
    "#version 330 core\n"
    "void main() {\n"
    "  vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));\n"
    "  gl_Position = vec4(p, 0.0, 1.0);\n"
    "}\n";

/* A 4-sample texture rendered under GL_SAMPLE_MASK (samples 0-1 red, 2-3
 * green), each sample read back with texelFetch(sampler2DMS). */
static int sc_multisample_mask(void) {
    GLint max = 0;
    glGetIntegerv(GL_MAX_COLOR_TEXTURE_SAMPLES, &max);
    CHECK(max >= 4, "GL_MAX_COLOR_TEXTURE_SAMPLES %d", max);
    GLuint tex, fbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, tex);
    glTexImage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, 4, GL_RGBA8, 8, 8, GL_TRUE);
    GLint samples = 0;
    glGetTexLevelParameteriv(GL_TEXTURE_2D_MULTISAMPLE, 0, GL_TEXTURE_SAMPLES, &samples);
    CHECK(samples == 4, "GL_TEXTURE_SAMPLES %d", samples);
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D_MULTISAMPLE, tex, 0);
    GLenum st = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    CHECK(st == GL_FRAMEBUFFER_COMPLETE, "multisample FBO status 0x%04x", st);
    static const char *color_fs =
        "#version 330 core\nuniform vec4 u_color;\nout vec4 o;\nvoid main() { o = u_color; }\n";
    static const char *fetch_fs =
        "#version 330 core\nuniform sampler2DMS u_tex;\nuniform int u_sample;\nout vec4 o;\n"
        "void main() { o = texelFetch(u_tex, ivec2(gl_FragCoord.xy), u_sample); }\n";
    static const char *const none[] = {NULL};
    GLuint paint = program(FULL_VS, color_fs, none), fetch = program(FULL_VS, fetch_fs, none);
    if (!paint || !fetch) return 0;
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glViewport(0, 0, 8, 8);
    glUseProgram(paint);
    GLint color = glGetUniformLocation(paint, "u_color");
    glEnable(GL_SAMPLE_MASK);
    glSampleMaski(0, 0x3);
    glUniform4f(color, 1, 0, 0, 1);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glSampleMaski(0, 0xC);
    glUniform4f(color, 0, 1, 0, 1);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glDisable(GL_SAMPLE_MASK);
    EXPECT_NO_ERROR("drawing under the sample mask");
    Target t;
    if (!target_create(&t, 8, 8)) return 0;
    glUseProgram(fetch);
    glUniform1i(glGetUniformLocation(fetch, "u_tex"), 0);
    GLint which = glGetUniformLocation(fetch, "u_sample");
    static const uint8_t red[4] = {255, 0, 0, 255}, green[4] = {0, 255, 0, 255};
    int ok = 1;
    for (int s = 0; s < 4 && ok; s++) {
        glUniform1i(which, s);
        glDrawArrays(GL_TRIANGLES, 0, 3);
        uint8_t *px = read_target(&t);
        ok = check_rect(px, 8, 0, 0, 8, 8, s < 2 ? red : green, 0, s < 2 ? "samples 0-1" : "samples 2-3");
        free(px);
    }
    EXPECT_NO_ERROR("reading the samples");
    target_destroy(&t);
    glDeleteFramebuffers(1, &fbo);
    glDeleteTextures(1, &tex);
    glDeleteVertexArrays(1, &vao);
    glDeleteProgram(paint);
    glDeleteProgram(fetch);
    return ok;
}

/* A rectangle texture sampled with texel coordinates (texture), fetched
 * (texelFetch) and sized (textureSize). */
static int sc_rect_texture(void) {
    uint8_t texels[4 * 4 * 4];
    for (int i = 0; i < 16; i++) {
        texels[i * 4 + 0] = (uint8_t)(i % 4 * 40);
        texels[i * 4 + 1] = (uint8_t)(i / 4 * 40 + 1);
        texels[i * 4 + 2] = 200;
        texels[i * 4 + 3] = 255;
    }
    GLuint tex;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_RECTANGLE, tex);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glTexImage2D(GL_TEXTURE_RECTANGLE, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
    glTexParameteri(GL_TEXTURE_RECTANGLE, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_RECTANGLE, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    static const char *fs =
        "#version 330 core\nuniform sampler2DRect u_rect;\nout vec4 o;\n"
        "void main() {\n"
        "  ivec2 p = ivec2(gl_FragCoord.xy);\n"
        "  if (textureSize(u_rect) != ivec2(4, 4)) { o = vec4(1.0, 0.0, 1.0, 1.0); return; }\n"
        "  o = p.x < 2 ? texture(u_rect, gl_FragCoord.xy) : texelFetch(u_rect, p);\n"
        "}\n";
    static const char *const none[] = {NULL};
    GLuint prog = program(FULL_VS, fs, none);
    if (!prog) return 0;
    Target t;
    if (!target_create(&t, 4, 4)) return 0;
    GLuint vao;
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glUseProgram(prog);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    EXPECT_NO_ERROR("rectangle texture draw");
    uint8_t *px = read_target(&t);
    int ok = memcmp(px, texels, sizeof texels) == 0;
    if (!ok) fail("pixel (0,0) = %u %u %u %u, want the texel", px[0], px[1], px[2], px[3]);
    free(px);
    target_destroy(&t);
    glDeleteVertexArrays(1, &vao);
    glDeleteTextures(1, &tex);
    glDeleteProgram(prog);
    return ok;
}

/* glDrawElementsIndirect with a restart index (42) in a triangle list:
 * the commands come from a buffer, the cut triangle is dropped. */
static int sc_draw_indirect_restart(void) {
    static const char *vs =
        "#version 330 core\nlayout(location = 0) in vec2 a_pos;\n"
        "void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }\n";
    static const char *fs =
        "#version 330 core\nout vec4 o;\nvoid main() { o = vec4(1.0, 0.0, 0.0, 1.0); }\n";
    static const char *const none[] = {NULL};
    GLuint prog = program(vs, fs, none);
    if (!prog) return 0;
    Target t;
    if (!target_create(&t, W, H)) return 0;
    /* Corners 0..3; vertex 4 at the centre (what index 42 would be without
     * restart: vertex 42 does not exist, so restart must cut it). */
    static const float pos[10] = {-1, -1, 1, -1, -1, 1, 1, 1, 0, 0};
    static const GLuint idx[7] = {0, 1, 2, 42, 1, 3, 2};
    static const GLuint cmd[5] = {7, 1, 0, 0, 0};
    GLuint vao, buf[3];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(3, buf);
    glBindBuffer(GL_ARRAY_BUFFER, buf[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof pos, pos, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(0);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buf[1]);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof idx, idx, GL_STATIC_DRAW);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, buf[2]);
    glBufferData(GL_DRAW_INDIRECT_BUFFER, sizeof cmd, cmd, GL_STATIC_DRAW);
    glUseProgram(prog);
    glClearColor(0, 0, 0, 0);
    glClear(GL_COLOR_BUFFER_BIT);
    glEnable(GL_PRIMITIVE_RESTART);
    glPrimitiveRestartIndex(42);
    glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, (const void *)0);
    glDisable(GL_PRIMITIVE_RESTART);
    EXPECT_NO_ERROR("indirect draw with restart");
    uint8_t *px = read_target(&t);
    static const uint8_t red[4] = {255, 0, 0, 255};
    /* Both triangles of the quad: every pixel red. */
    int ok = check_rect(px, W, 0, 0, W, H, red, 0, "the quad (two triangles around the cut)");
    free(px);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, 0);
    target_destroy(&t);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(3, buf);
    glDeleteProgram(prog);
    return ok;
}

/* A compute shader (GL_ARB_compute_shader in the 3.3 context) writes an
 * image (a texture made with glTexImage2D) and a storage buffer; both
 * read back after glMemoryBarrier. */
static int sc_compute_image_ssbo(void) {
    static const char *cs =
        "#version 330\n#extension GL_ARB_compute_shader : require\n"
        "#extension GL_ARB_shader_image_load_store : require\n"
        "#extension GL_ARB_shader_storage_buffer_object : require\n"
        "layout(local_size_x = 4, local_size_y = 4) in;\n"
        "layout(rgba8) writeonly uniform image2D u_img;\n"
        "layout(std430) buffer Out { uint v[]; };\n"
        "void main() {\n"
        "  uvec2 g = gl_GlobalInvocationID.xy;\n"
        "  imageStore(u_img, ivec2(g), vec4(float(g.x) / 8.0, float(g.y) / 8.0, 1.0, 1.0));\n"
        "  v[g.y * 8u + g.x] = g.x * 100u + g.y;\n"
        "}\n";
    GLuint s = glCreateShader(GL_COMPUTE_SHADER);
    glShaderSource(s, 1, &cs, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[512] = {0};
        glGetShaderInfoLog(s, sizeof log - 1, NULL, log);
        return fail("compute shader did not compile: %s", log);
    }
    GLuint prog = glCreateProgram();
    glAttachShader(prog, s);
    glLinkProgram(prog);
    glDeleteShader(s);
    glGetProgramiv(prog, GL_LINK_STATUS, &ok);
    if (!ok) return fail("compute program did not link");
    GLuint tex, buf, fbo;
    glGenTextures(1, &tex);
    glBindTexture(GL_TEXTURE_2D, tex);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    /* Complete without mipmaps: an image unit ignores stores to an
     * incomplete texture (GL 4.6 8.26; NVIDIA's driver does). */
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glBindImageTexture(0, tex, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
    glGenBuffers(1, &buf);
    glBindBuffer(GL_SHADER_STORAGE_BUFFER, buf);
    glBufferData(GL_SHADER_STORAGE_BUFFER, 64 * 4, NULL, GL_DYNAMIC_DRAW);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buf);
    glUseProgram(prog);
    glUniform1i(glGetUniformLocation(prog, "u_img"), 0);
    glDispatchCompute(2, 2, 1);
    glMemoryBarrier(GL_ALL_BARRIER_BITS);
    EXPECT_NO_ERROR("dispatch");
    glGenFramebuffers(1, &fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
    uint8_t px[8 * 8 * 4];
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, 8, 8, GL_RGBA, GL_UNSIGNED_BYTE, px);
    const GLuint *v = glMapBufferRange(GL_SHADER_STORAGE_BUFFER, 0, 64 * 4, GL_MAP_READ_BIT);
    int good = v != NULL;
    for (int y = 0; y < 8 && good; y++)
        for (int x = 0; x < 8 && good; x++) {
            const uint8_t *p = px + (y * 8 + x) * 4;
            int want_r = x * 255 / 8, want_g = y * 255 / 8;
            if (abs(p[0] - want_r) > 1 || abs(p[1] - want_g) > 1 || p[2] != 255 || p[3] != 255)
                good = fail("image texel (%d,%d) = %u %u %u %u", x, y, p[0], p[1], p[2], p[3]);
            else if (v[y * 8 + x] != (GLuint)(x * 100 + y))
                good = fail("storage value %d = %u, want %d", y * 8 + x, v[y * 8 + x], x * 100 + y);
        }
    if (v) glUnmapBuffer(GL_SHADER_STORAGE_BUFFER);
    else fail("glMapBufferRange of the storage buffer failed");
    EXPECT_NO_ERROR("reading back");
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &fbo);
    glDeleteBuffers(1, &buf);
    glDeleteTextures(1, &tex);
    glDeleteProgram(prog);
    return good;
}

typedef struct {
    const char *name;
    int (*fn)(void);
} Scenario;

/* Run only when named (the spawn transport, reply calls, GL 3.1+ features). */
static const Scenario SPAWN_ONLY[] = {
    {"server_killed", sc_server_killed},
    {"server_stopped", sc_server_stopped},
    {"steady_frames", sc_steady_frames},
    {"occlusion_query", sc_occlusion_query},
    {"get_tex_image", sc_get_tex_image},
    {"timer_query", sc_timer_query},
    {"multisample_mask", sc_multisample_mask},
    {"rect_texture", sc_rect_texture},
    {"draw_indirect_restart", sc_draw_indirect_restart},
    {"compute_image_ssbo", sc_compute_image_ssbo},
};

static const Scenario SCENARIOS[] = {
    {"clear", sc_clear},
    {"indexed_draw", sc_indexed_draw},
    {"additive_blend", sc_additive_blend},
    {"texture_unpack_row_length", sc_texture_unpack_row_length},
    {"ubo_std140", sc_ubo_std140},
    {"buffer_subdata_order", sc_buffer_subdata_order},
    {"scissor", sc_scissor},
    {"instanced_divisor", sc_instanced_divisor},
    {"readpixels_pack_row_length", sc_readpixels_pack_row_length},
    {"map_buffer_range_read", sc_map_buffer_range_read},
    {"error_bad_enable", sc_error_bad_enable},
    {"error_bind_ungenerated_buffer", sc_error_bind_ungenerated_buffer},
    {"error_bad_draw_mode", sc_error_bad_draw_mode},
    {"version", sc_version},
    {"fence", sc_fence},
    {"persistent_map", sc_persistent_map},
    {"multi_draw", sc_multi_draw},
    {"ubo_ranges", sc_ubo_ranges},
    {"vao_switch", sc_vao_switch},
    {"egl_fence_sync", sc_egl_fence_sync},
    {"egl_es3_context", sc_egl_es3_context},
};
#define N_SCENARIOS (sizeof SCENARIOS / sizeof SCENARIOS[0])

/* ---- demo: render a picture and write it as PPM ------------------------ */

static int demo(const char *out_path) {
    enum { DW = 256, DH = 256 };
    Target t;
    if (!target_create(&t, DW, DH)) return 0;
    static const char *vs =
        "#version 330 core\n"
        "in vec2 a_pos;\n"
        "in vec2 a_offset;\n"
        "out vec2 v_uv;\n"
        "flat out int v_inst;\n"
        "void main() {\n"
        "  v_uv = a_pos;\n"
        "  v_inst = gl_InstanceID;\n"
        "  gl_Position = vec4(a_pos * 0.45 + a_offset, 0.0, 1.0);\n"
        "}\n";
    static const char *fs =
        "#version 330 core\n"
        "in vec2 v_uv;\n"
        "flat in int v_inst;\n"
        "out vec4 o_color;\n"
        "void main() {\n"
        "  float r = length(v_uv);\n"
        "  vec3 base = vec3(float(v_inst & 1), float((v_inst >> 1) & 1), 0.5);\n"
        "  float ring = 0.5 + 0.5 * cos(r * 12.0);\n"
        "  o_color = vec4(mix(base, vec3(v_uv * 0.5 + 0.5, 1.0 - r), ring), 1.0);\n"
        "}\n";
    static const char *const attrs[] = {"a_pos", "a_offset", NULL};
    GLuint prog = program(vs, fs, attrs);
    if (!prog) return 0;
    static const float quad[8] = {-1, -1, 1, -1, -1, 1, 1, 1};
    static const float offs[8] = {-0.5f, -0.5f, 0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f};
    GLuint vao, vbo[2];
    glGenVertexArrays(1, &vao);
    glBindVertexArray(vao);
    glGenBuffers(2, vbo);
    glBindBuffer(GL_ARRAY_BUFFER, vbo[0]);
    glBufferData(GL_ARRAY_BUFFER, sizeof quad, quad, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, vbo[1]);
    glBufferData(GL_ARRAY_BUFFER, sizeof offs, offs, GL_STATIC_DRAW);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 0, (const void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribDivisor(1, 1);
    glClearColor(0.1f, 0.1f, 0.15f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    glUseProgram(prog);
    glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, 4);
    EXPECT_NO_ERROR("demo draw");
    uint8_t *px = read_target(&t);
    FILE *f = fopen(out_path, "wb");
    CHECK(f != NULL, "cannot open %s for writing", out_path);
    fprintf(f, "P6\n%d %d\n255\n", DW, DH);
    for (int y = DH - 1; y >= 0; y--) /* GL rows are bottom-up, PPM top-down */
        for (int x = 0; x < DW; x++) fwrite(px + ((size_t)y * DW + x) * 4, 1, 3, f);
    fclose(f);
    printf("wrote %s (%dx%d)\n", out_path, DW, DH);
    static const int probes[][2] = {{0, 0}, {40, 40}, {216, 40}, {40, 216}, {216, 216}, {128, 128}};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        const uint8_t *p = px + ((size_t)probes[i][1] * DW + probes[i][0]) * 4;
        printf("pixel (%3d,%3d) = %3d %3d %3d %3d\n", probes[i][0], probes[i][1], p[0], p[1], p[2],
               p[3]);
    }
    free(px);
    glBindVertexArray(0);
    glUseProgram(0);
    glDeleteVertexArrays(1, &vao);
    glDeleteBuffers(2, vbo);
    glDeleteProgram(prog);
    target_destroy(&t);
    return 1;
}

/* ---- EGL setup ---------------------------------------------------------- */

static EGLDisplay g_dpy = EGL_NO_DISPLAY;
static EGLContext g_ctx = EGL_NO_CONTEXT;

static int egl_setup(void) {
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!cext || !strstr(cext, "EGL_MESA_platform_surfaceless")) {
        fprintf(stderr, "EGL client extensions lack EGL_MESA_platform_surfaceless: %s\n",
                cext ? cext : "(null)");
        return 0;
    }
    PFN_eglGetPlatformDisplayEXT get_platform_display =
        (PFN_eglGetPlatformDisplayEXT)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!get_platform_display) {
        fprintf(stderr, "eglGetProcAddress(\"eglGetPlatformDisplayEXT\") returned NULL\n");
        return 0;
    }
    g_dpy = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (g_dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "eglGetPlatformDisplayEXT(SURFACELESS) failed: 0x%x\n", eglGetError());
        return 0;
    }
    EGLint maj = 0, min = 0;
    if (!eglInitialize(g_dpy, &maj, &min)) {
        fprintf(stderr, "eglInitialize failed: 0x%x\n", eglGetError());
        return 0;
    }
    const char *dext = eglQueryString(g_dpy, EGL_EXTENSIONS);
    if (!dext || !strstr(dext, "EGL_KHR_create_context") ||
        !strstr(dext, "EGL_KHR_surfaceless_context")) {
        fprintf(stderr, "display extensions lack create_context/surfaceless_context: %s\n",
                dext ? dext : "(null)");
        return 0;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        fprintf(stderr, "eglBindAPI(EGL_OPENGL_API) failed: 0x%x\n", eglGetError());
        return 0;
    }
    const EGLint cfg_attrs[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE,
                                EGL_PBUFFER_BIT,     EGL_RED_SIZE,   8,
                                EGL_GREEN_SIZE,      8,              EGL_BLUE_SIZE,
                                8,                   EGL_ALPHA_SIZE, 8,
                                EGL_NONE};
    EGLConfig cfg;
    EGLint n = 0;
    if (!eglChooseConfig(g_dpy, cfg_attrs, &cfg, 1, &n) || n < 1) {
        fprintf(stderr, "eglChooseConfig(EGL_OPENGL_BIT, RGBA8) found no config: 0x%x\n",
                eglGetError());
        return 0;
    }
    const EGLint ctx_attrs[] = {EGL_CONTEXT_MAJOR_VERSION_KHR,
                                3,
                                EGL_CONTEXT_MINOR_VERSION_KHR,
                                3,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK_KHR,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT_KHR,
                                EGL_NONE};
    g_ctx = eglCreateContext(g_dpy, cfg, EGL_NO_CONTEXT, ctx_attrs);
    if (g_ctx == EGL_NO_CONTEXT) {
        fprintf(stderr, "eglCreateContext(3.3 core) failed: 0x%x\n", eglGetError());
        return 0;
    }
    if (!eglMakeCurrent(g_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, g_ctx)) {
        fprintf(stderr, "eglMakeCurrent(no surface) failed: 0x%x\n", eglGetError());
        return 0;
    }
    if (load_gl() != 0) return 0;
    return 1;
}

static void egl_teardown(void) {
    eglMakeCurrent(g_dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(g_dpy, g_ctx);
    eglTerminate(g_dpy);
}

static const Scenario *find(const char *name) {
    for (size_t i = 0; i < N_SCENARIOS; i++)
        if (strcmp(SCENARIOS[i].name, name) == 0) return &SCENARIOS[i];
    for (size_t i = 0; i < sizeof SPAWN_ONLY / sizeof SPAWN_ONLY[0]; i++)
        if (strcmp(SPAWN_ONLY[i].name, name) == 0) return &SPAWN_ONLY[i];
    return NULL;
}

static int run_one(const Scenario *s) {
    g_why[0] = 0;
    /* Start each scenario with a clean error state. */
    while (glGetError() != GL_NO_ERROR) {
    }
    int ok = s->fn();
    if (ok) {
        GLenum e = glGetError();
        if (e != GL_NO_ERROR && strncmp(s->name, "error_", 6) != 0)
            ok = fail("left a pending error %s (0x%04x)", err_name(e), e);
    }
    if (ok)
        printf("PASS %s\n", s->name);
    else
        printf("FAIL %s: %s\n", s->name, g_why[0] ? g_why : "(no reason recorded)");
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < N_SCENARIOS; i++) printf("%s\n", SCENARIOS[i].name);
        return 0;
    }
    int is_demo = argc > 1 && strcmp(argv[1], "demo") == 0;
    if (!is_demo)
        for (int i = 1; i < argc; i++)
            if (!find(argv[i])) {
                fprintf(stderr, "unknown scenario '%s' (try --list)\n", argv[i]);
                return 2;
            }
    if (!egl_setup()) {
        printf("FAIL setup: EGL/GL initialisation failed (see stderr)\n");
        return 1;
    }
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    const char *version = (const char *)glGetString(GL_VERSION);
    fprintf(stderr, "GL_RENDERER=%s GL_VERSION=%s\n", renderer ? renderer : "(null)",
            version ? version : "(null)");
    int failed = 0;
    if (is_demo) {
        g_why[0] = 0;
        if (!demo(argc > 2 ? argv[2] : "demo.ppm")) {
            printf("FAIL demo: %s\n", g_why);
            failed = 1;
        } else {
            printf("PASS demo\n");
        }
    } else if (argc > 1) {
        for (int i = 1; i < argc; i++) failed += !run_one(find(argv[i]));
    } else {
        for (size_t i = 0; i < N_SCENARIOS; i++) failed += !run_one(&SCENARIOS[i]);
    }
    egl_teardown();
    if (!is_demo) printf("%d of %d scenarios failed\n", failed, argc > 1 ? argc - 1 : (int)N_SCENARIOS);
    return failed ? 1 : 0;
}
