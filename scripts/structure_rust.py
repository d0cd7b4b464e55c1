# SPDX-License-Identifier: GPL-2.0-only
"""The file dependencies of Rust crates, for check-structure.py.

Each crate's module tree is read from its root file as rustc finds the
files (`mod x;` in x.rs or x/mod.rs, `#[path]`, inline modules), and each
path its files spell (`use` trees, `crate::`, `super::`, `self::`, names
of modules and imports) is resolved to the file that defines the item it
names, through re-exports. A call by name of a method implemented in an
impl block split off from its type's file depends on the impl's file.
Comments and strings are skipped; macro expansions are not seen.
"""

import os
import re
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rel(path):
    return os.path.relpath(path, ROOT)


TOKEN = re.compile(
    r"""(?P<ws>\s+)
  | (?P<lc>//[^\n]*)
  | (?P<bc>/\*)
  | (?P<raw>(?:br|cr|r)(?P<hashes>\#*)")
  | (?P<str>[bc]?"(?:\\.|[^"\\])*")
  | (?P<chr>b?'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F_]*\}|.)|[^\\'\n])')
  | (?P<life>'[A-Za-z_]\w*)
  | (?P<id>(?:r\#)?[A-Za-z_]\w*|\$crate)
  | (?P<num>\d\w*(?:\.\d\w*)?)
  | (?P<sep>::)
  | (?P<p>.)""",
    re.X | re.S,
)
ITEM_KEYWORDS = {"fn", "struct", "enum", "union", "trait", "type", "const", "static"}
# What an item's keyword follows (`)` ends `pub(crate)`, `]` an attribute,
# a string the ABI of `extern "C" fn`); `*const T` and `<const N>` are no items.
ITEM_PREFIXES = {";", "{", "}", "]", ")", "pub", "unsafe", "async", "const", "default", "extern"}
_tokens = {}


def tokens(path):
    """The tokens of a Rust file as (kind, text, line), comments dropped."""
    if path in _tokens:
        return _tokens[path]
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    out, pos, line = [], 0, 1
    while pos < len(text):
        m = TOKEN.match(text, pos)
        kind = m.lastgroup if m.lastgroup != "hashes" else "raw"
        end = m.end()
        if kind == "bc":
            depth, end = 1, pos + 2
            while depth and end < len(text):
                if text.startswith("/*", end):
                    depth, end = depth + 1, end + 2
                elif text.startswith("*/", end):
                    depth, end = depth - 1, end + 2
                else:
                    end += 1
        elif kind == "raw":
            close = text.find('"' + m.group("hashes"), end)
            end = len(text) if close < 0 else close + 1 + len(m.group("hashes"))
            out.append(("str", text[m.end() : max(close, m.end())], line))
        elif kind == "str":
            out.append(("str", m.group()[m.group().index('"') + 1 : -1], line))
        elif kind in ("id", "num", "sep", "p"):
            value = m.group()
            out.append((kind, value[2:] if value.startswith("r#") else value, line))
        line += text.count("\n", pos, end)
        pos = end
    _tokens[path] = out
    return out


class Module:
    """A module of a crate: its file (an inline module's is its parent's),
    what it defines and what it imports."""

    def __init__(self, name, parent, file):
        self.name, self.parent, self.file = name, parent, file
        self.root = parent.root if parent else self
        self.children = {}  # name -> Module
        self.items = {}  # name -> the file that defines it
        self.imports = {}  # alias -> (Module of the use, path segments)
        self.globs = []  # (Module of the use, path segments)


def matching(toks, i):
    """Index after the group that opens at toks[i]."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    opener, closer, depth = toks[i][1], pairs[toks[i][1]], 0
    for j in range(i, len(toks)):
        if toks[j][1] == opener:
            depth += 1
        elif toks[j][1] == closer:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(toks)


def use_tree(toks, i, prefix):
    """Flattens the use tree at toks[i]: ([(segments, alias)], index after);
    alias "*" for a glob."""
    segs, out = list(prefix), []
    while i < len(toks):
        kind, text, _ = toks[i]
        if text == "::":
            if not segs:
                segs.append("")  # ::extern_crate
            i += 1
        elif text == "{":
            i += 1
            while i < len(toks) and toks[i][1] != "}":
                sub, i = use_tree(toks, i, segs)
                out += sub
                if i < len(toks) and toks[i][1] == ",":
                    i += 1
            return out, i + 1
        elif text == "*":
            return out + [(segs, "*")], i + 1
        elif kind == "id":
            if text == "self" and segs:
                i += 1
            else:
                segs.append(text)
                i += 1
            if i + 1 < len(toks) and toks[i][1] == "as":
                return out + [(segs, toks[i + 1][1])], i + 2
            if i < len(toks) and toks[i][1] == "::":
                continue
            return out + [(segs, segs[-1] if segs else None)], i
        else:
            return out, i
    return out, i


class Crate:
    """One crate's module tree and the paths its files spell."""

    def __init__(self, root_file):
        self.root = Module("crate", None, root_file)
        self.loaded = set()
        self.refs = []  # (file, Module, segments, line, text)
        self.missing = []  # (file, line, module name)
        self.impls = []  # (file, Module, type path, {method: line}) of inherent impls
        self.calls = defaultdict(list)  # file -> [(name, line, `.name(` or `Type::name`)]
        self.load(root_file, self.root, mod_rs=True)

    def module_dir(self, path, mod_rs, inline):
        base = os.path.dirname(path)
        if not mod_rs:
            base = os.path.join(base, os.path.splitext(os.path.basename(path))[0])
        return os.path.join(base, *inline)

    def load(self, path, module, mod_rs):
        if path in self.loaded:
            return
        self.loaded.add(path)
        toks = tokens(path)
        frames = [(module, 0, [])]  # (module, depth of its items, inline module names)
        impls = []  # (depth of its items, methods) of the inherent impl blocks open
        opening = None  # the methods of the impl block whose header is being read
        depth, i, attrs = 0, 0, []
        while i < len(toks):
            kind, text, line = toks[i]
            here, item_depth, inline = frames[-1]
            at_item = depth == item_depth
            nkind, nxt = toks[i + 1][:2] if i + 1 < len(toks) else ("", "")
            if text == "#" and nxt in ("[", "!"):
                j = i + 1 if nxt == "[" else i + 2
                end = matching(toks, j) if j < len(toks) and toks[j][1] == "[" else j
                if nxt == "[":
                    attrs.append(toks[j + 1 : end - 1])
                i = end
                continue
            if text == "pub":  # keeps the attributes for the item
                i = matching(toks, i + 1) if nxt == "(" else i + 1
                continue
            prev = toks[i - 1][1] if i else ";"
            starts_item = at_item and (prev in ITEM_PREFIXES or toks[i - 1][0] == "str")
            pending, attrs = attrs, []
            if text == "{":
                depth += 1
                if opening is not None:
                    impls.append((depth, opening))
                    opening = None
            elif text == "}":
                depth -= 1
                while len(frames) > 1 and depth < frames[-1][1]:
                    frames.pop()
                while impls and depth < impls[-1][0]:
                    impls.pop()
            elif text == "use":
                leaves, end = use_tree(toks, i + 1, [])
                for segs, alias in leaves:
                    if alias == "*":
                        here.globs.append((here, segs))
                    elif alias and alias != "_":
                        here.imports[alias] = (here, segs)
                    shown = "::".join(segs) + ("::*" if alias == "*" else "")
                    self.refs.append((path, here, segs, line, "use " + shown))
                i = end
                continue
            elif text == "include" and nxt == "!" and i + 3 < len(toks) and toks[i + 3][0] == "str":
                name = toks[i + 3][1]
                target = os.path.normpath(os.path.join(os.path.dirname(path), name))
                if os.path.isfile(target):
                    self.refs.append((path, None, target, line, f'include!("{name}")'))
                    self.load(target, here, mod_rs=True)
            elif at_item and text == "mod" and nkind == "id":
                name, after = nxt, toks[i + 2][1] if i + 2 < len(toks) else ""
                child = here.children.get(name) or Module(name, here, path)
                here.children[name] = child
                if after == "{":
                    frames.append((child, depth + 1, inline + [name]))
                elif after == ";":
                    self.declare(path, mod_rs, inline, child, pending, line)
                i += 2
                continue
            elif at_item and text == "extern" and "{" in (nxt, nkind == "str" and toks[i + 2][1]):
                i += 1 if nxt == "{" else 2
                frames.append((here, depth + 1, inline))
                depth += 1
            elif at_item and text == "macro_rules" and nxt == "!":
                name = toks[i + 2][1]
                here.items[name] = path
                if any(a and a[0][1] == "macro_export" for a in pending):
                    here.root.items[name] = path
                i += 3
                continue
            elif starts_item and text == "impl":
                segs = self.impl_type(toks, i + 1)
                if segs:
                    opening = {}
                    self.impls.append((path, here, segs, opening))
            elif impls and depth == impls[-1][0] and text in ("fn", "const") and nkind == "id":
                impls[-1][1].setdefault(nxt, line)
            elif starts_item and text in ITEM_KEYWORDS and nkind == "id":
                if nxt not in ("fn", "unsafe", "extern", "async") and (
                    text != "union" or toks[i + 2][1] in ("{", "<")
                ):
                    here.items[nxt] = path
            elif kind == "id" and i and toks[i - 1][1] == "." and nxt in ("(", "::"):
                self.calls[path].append((text, line, f".{text}("))
            elif kind == "id" and nxt == "::" and (i == 0 or toks[i - 1][1] != "::"):
                segs, j = [text], i + 1
                while j + 1 < len(toks) and toks[j][1] == "::" and toks[j + 1][0] == "id":
                    segs.append(toks[j + 1][1])
                    j += 2
                if len(segs) > 1:
                    self.refs.append((path, here, segs, line, "::".join(segs)))
                    self.calls[path].append((segs[-1], line, "::".join(segs[-2:])))
                i = j
                continue
            i += 1

    @staticmethod
    def impl_type(toks, i):
        """The self type of an inherent impl block whose header starts at
        toks[i], as path segments; [] for a trait impl."""
        angle, header = 0, []
        while i < len(toks) and not (angle == 0 and toks[i][1] in ("{", ";", "where")):
            t = toks[i][1]
            if t == "<":
                angle += 1
            elif t == ">" and toks[i - 1][1] != "-":
                angle -= 1
            elif angle == 0:
                header.append(toks[i])
            i += 1
        if any(t[1] == "for" for t in header):
            return []
        segs = []
        for kind, text, _ in header:
            if kind != "id" and text != "::":
                break
            if kind == "id":
                segs.append(text)
        return segs

    def declare(self, path, mod_rs, inline, child, attrs, line):
        """Loads the file of `mod name;` declared in `path`."""
        for a in attrs:
            if len(a) == 3 and a[0][1] == "path" and a[1][1] == "=" and a[2][0] == "str":
                base = self.module_dir(path, True, inline)
                target = os.path.normpath(os.path.join(base, a[2][1]))
                if os.path.isfile(target):
                    child.file = target
                    self.load(target, child, mod_rs=True)
                else:
                    self.missing.append((path, line, child.name))
                return
        base = self.module_dir(path, mod_rs, inline)
        for target, is_mod_rs in (
            (os.path.join(base, child.name + ".rs"), False),
            (os.path.join(base, child.name, "mod.rs"), True),
        ):
            if os.path.isfile(target):
                child.file = target
                self.load(target, child, is_mod_rs)
                return
        self.missing.append((path, line, child.name))

    def lookup(self, module, name, seen):
        """What `name` is in `module`: ("module", Module), ("file", path) or None."""
        if name in module.children:
            return ("module", module.children[name])
        if name in module.items:
            return ("file", module.items[name])
        key = (id(module), name)
        if key in seen:
            return None
        seen = seen | {key}
        if name in module.imports:
            origin, segs = module.imports[name]
            return self.resolve(origin, segs, seen)
        for origin, segs in module.globs:
            source = self.resolve(origin, segs, seen)
            if source and source[0] == "module":
                found = self.lookup(source[1], name, seen)
                if found:
                    return found
        return None

    def resolve(self, module, segs, seen=frozenset()):
        """Where the path `segs`, spelled in `module`, leads; None outside the crate."""
        if not segs or segs[0] == "":
            return None
        i, m = 0, module
        if segs[0] in ("crate", "$crate"):
            i, m = 1, module.root
        elif segs[0] == "self":
            i = 1
        elif segs[0] == "super":
            while i < len(segs) and segs[i] == "super":
                m, i = m.parent, i + 1
                if m is None:
                    return None
        while i < len(segs):
            found = self.lookup(m, segs[i], seen)
            if found is None:
                return None if i == 0 else ("file", m.file)
            if found[0] == "file":
                return found
            m, i = found[1], i + 1
        return ("module", m)

    def edges(self, graph):
        """Adds the crate's file dependencies to `graph`."""
        named = set()
        for path, module, segs, line, text in self.refs:
            if module is None:
                target = segs
            else:
                found = self.resolve(module, segs)
                if found is None:
                    continue
                target = found[1] if found[0] == "file" else found[1].file
            if target != path:
                named.add((path, target))
                add(graph, path, target, line, f"`{text}`")
        # A method of a type defined in file A but implemented in file B (an
        # impl block split off from the type) is named by no path: a call of
        # it by name, from A or from a file that names A, depends on B.
        split = defaultdict(list)
        for path, module, segs, methods in self.impls:
            found = self.resolve(module, segs)
            if found and found[0] == "file" and found[1] != path:
                for name in methods:
                    split[name].append((found[1], path, segs[-1]))
        for path, calls in self.calls.items():
            for name, line, text in calls:
                for home, impl, ty in split.get(name, ()):
                    if impl == path or (path != home and (path, home) not in named):
                        continue
                    if "::" in text and text.split("::")[0] not in (ty, "Self"):
                        continue
                    add(graph, path, impl, line, f"`{text}` (a method of {ty} there)")


def add(graph, path, target, line, why):
    """Records that `path` depends on `target` at `line`; one example a line."""
    examples = graph[(rel(path), rel(target))]
    where = f"{rel(path)}:{line}"
    if not any(e.startswith(where + " ") for e in examples):
        examples.append(f"{where} {why}")


def rust_graph(roots):
    """The file dependencies of the crates rooted at `roots` (absolute
    paths): {(from, to): [example, ...]}, the files and missing modules."""
    graph, files, missing = defaultdict(list), set(), []
    for root in roots:
        crate = Crate(root)
        crate.edges(graph)
        files |= {rel(f) for f in crate.loaded}
        missing += [f"{rel(f)}:{n}: mod {name}" for f, n, name in crate.missing]
    return graph, files, missing
