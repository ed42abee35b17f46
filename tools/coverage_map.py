import re,glob
src={}
for f in glob.glob('crates/frontend/src/gl/*.rs')+['crates/frontend/src/context.rs']:
    src[f]=open(f).read()
# split into functions: find "fn name(" positions, body until next "\nfn " / "\npub " at col 0 or "    pub fn"/"    fn" inside impl
funcs={}
for f,s in src.items():
    for m in re.finditer(r'\bfn (\w+)\s*[<(]', s):
        name=m.group(1)
        start=m.start()
        # body: from start to next top-level or impl-level fn
        nxt=re.search(r'\n(pub |    pub |    )?(unsafe )?(extern "C" )?fn \w+', s[m.end():])
        end=m.end()+nxt.start() if nxt else len(s)
        funcs.setdefault(name,'')
        funcs[name]+=s[start:end]
# macros for uniforms
uni=[]
for m in re.finditer(r'uniform_(scalars|vectors|matrices)!\((gl\w+)', src['crates/frontend/src/gl/shaders.rs']):
    uni.append(m.group(2))
calls_direct={n:set(re.findall(r'pipe\.(\w+)\(',b)) for n,b in funcs.items()}
def closure(n,seen):
    if n in seen: return set()
    seen.add(n)
    r=set(calls_direct.get(n,()))
    body=funcs.get(n,'')
    for callee in re.findall(r'\b(\w+)\(',body):
        if callee in funcs and callee!=n and not callee.startswith('gl'):
            r|=closure(callee,seen)
    # with_gl emits make_current
    if 'with_gl(' in body: r.add('make_current')
    return r
exported=[]
for f,s in src.items():
    exported+=re.findall(r'pub unsafe extern "C" fn (gl\w+)',s)
entries={}
for n in exported:
    entries[n]=sorted(c for c in closure(n,set()) if c not in ('flush',))
wc=closure('write_uniform',set())|{'make_current'}
for n in uni: entries[n]=sorted(wc)
print('# G6 coverage map: every hand-implemented GL entry point -> the MGPipe calls it may emit.')
print('# Empty list = answered locally. Regenerate the list with the script in docs/ARCHITECTURE.md;')
print('# the frontend build generates error-setting stubs for every registry entry point NOT listed here.')
print('[entry_points]')
for n in sorted(entries):
    print(f'{n} = [{", ".join(repr(c).replace(chr(39),chr(34)) for c in entries[n])}]')
