//! Puts cbindgen's C into kernel style (see the c_header test).

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The kernel's preferred line length; comments and prototypes are wrapped to it.
pub const WIDTH: usize = 80;

/// cbindgen's C integer types and those of <linux/types.h>, which the kernel
/// and userspace (the uAPI header) both have.
pub const TYPES: [(&str, &str); 8] = [
    ("uint8_t", "__u8"),
    ("uint16_t", "__u16"),
    ("uint32_t", "__u32"),
    ("uint64_t", "__u64"),
    ("int8_t", "__s8"),
    ("int16_t", "__s16"),
    ("int32_t", "__s32"),
    ("int64_t", "__s64"),
];

/// What the header declares: the names doc comments may refer to.
pub struct Names {
    /// Function name -> its parameters.
    functions: BTreeMap<String, Vec<String>>,
    constants: BTreeSet<String>,
    /// C struct name -> its members.
    structs: BTreeMap<String, Vec<String>>,
    /// Rust type name -> C name ([export.rename] of cbindgen.toml).
    rename: HashMap<String, String>,
}

impl Names {
    /// Collects the declarations of cbindgen's output; panics on a name
    /// without the C API's prefix.
    fn collect(lines: &[&str], rename: &HashMap<String, String>) -> Names {
        let mut names = Names {
            functions: BTreeMap::new(),
            constants: BTreeSet::new(),
            structs: BTreeMap::new(),
            rename: rename.clone(),
        };
        let mut current: Option<String> = None;
        let mut guard_seen = false;
        for line in lines {
            let t = line.trim_start();
            if t.starts_with("/**") || t.starts_with("* ") || t == "*" || t.starts_with("*/") {
                continue;
            }
            if let Some(def) = line.strip_prefix("#define ") {
                let mut w = def.split_whitespace();
                let name = w.next().unwrap().to_string();
                if w.next().is_none() && !guard_seen {
                    guard_seen = true; // the include guard
                    continue;
                }
                assert!(name.starts_with("H264ENC_"), "constant {name} lacks the H264ENC_ prefix: add it to [export] exclude in cbindgen.toml, or make it non-pub");
                names.constants.insert(name);
            } else if line.starts_with("struct ") && line.ends_with('{') {
                let name = struct_name(line).to_string();
                assert!(
                    name.starts_with("h264enc_"),
                    "struct {name} lacks the h264enc_ prefix: rename it in cbindgen.toml"
                );
                names.structs.insert(name.clone(), Vec::new());
                current = Some(name);
            } else if line.starts_with("};") {
                current = None;
            } else if let Some(s) = &current {
                if t.ends_with(';') {
                    let member = member_name(t).to_string();
                    names.structs.get_mut(s).unwrap().push(member);
                }
            } else if is_prototype(line) {
                let (name, params) = prototype(line);
                assert!(
                    name.starts_with("h264enc_"),
                    "function {name} lacks the h264enc_ prefix"
                );
                names.functions.insert(name, params);
            } else {
                for word in ["typedef", "enum", "union"] {
                    assert!(!line.starts_with(word), "unexpected declaration: {line}");
                }
            }
        }
        names
    }

    /// The C struct a Rust or C type name stands for.
    fn c_struct(&self, name: &str) -> Option<&str> {
        let c = self.rename.get(name).map(String::as_str).unwrap_or(name);
        self.structs.get_key_value(c).map(|(k, _)| k.as_str())
    }
}

/// `struct [__aligned(N) ]name {` -> name.
pub fn struct_name(line: &str) -> &str {
    line.trim_end_matches('{')
        .split_whitespace()
        .last()
        .unwrap()
}

/// `type name[N];` -> name.
pub fn member_name(decl: &str) -> &str {
    let d = decl.trim().trim_end_matches(';');
    let d = d.split('[').next().unwrap();
    d.rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap()
}

pub fn is_prototype(line: &str) -> bool {
    !line.starts_with(|c| "# /*}".contains(c)) && line.contains('(') && line.ends_with(");")
}

/// `ret name(type a, type b);` -> (name, [a, b]).
pub fn prototype(line: &str) -> (String, Vec<String>) {
    let open = line.find('(').unwrap();
    let name = line[..open].rsplit([' ', '*']).next().unwrap().to_string();
    let inner = &line[open + 1..line.rfind(')').unwrap()];
    assert!(
        !inner.contains('('),
        "function pointer parameters are not supported: {line}"
    );
    let params = if inner.trim() == "void" {
        Vec::new()
    } else {
        inner
            .split(',')
            .map(|p| member_name(p).to_string())
            .collect()
    };
    (name, params)
}

/// Replaces cbindgen's C integer types by those of <linux/types.h>.
pub fn kernel_types(decl: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let w = TYPES
            .iter()
            .find(|(c, _)| c == word)
            .map_or(word.as_str(), |(_, k)| k);
        out.push_str(w);
        word.clear();
    };
    for c in decl.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Columns of `s`, tabs expanded to 8.
pub fn width(s: &str) -> usize {
    s.chars().fold(
        0,
        |col, c| if c == '\t' { col / 8 * 8 + 8 } else { col + 1 },
    )
}

/// Tabs, then spaces, up to column `col`.
pub fn indent_to(col: usize) -> String {
    "\t".repeat(col / 8) + &" ".repeat(col % 8)
}

/// Wraps a prototype at [`WIDTH`], continuation lines aligned to the open
/// parenthesis (checkpatch's PARENTHESIS_ALIGNMENT).
pub fn wrap_prototype(line: &str) -> Vec<String> {
    if width(line) <= WIDTH {
        return vec![line.to_string()];
    }
    let open = line.find('(').unwrap();
    let close = line.rfind(')').unwrap();
    let args: Vec<&str> = line[open + 1..close].split(", ").collect();
    let tail = &line[close..];
    let indent = indent_to(open + 1);
    let mut out = Vec::new();
    let mut cur = format!("{}{}", &line[..=open], args[0]);
    for (k, arg) in args.iter().enumerate().skip(1) {
        let end = if k + 1 == args.len() { tail.len() } else { 1 };
        if width(&cur) + 2 + arg.len() + end <= WIDTH {
            cur = format!("{cur}, {arg}");
        } else {
            out.push(format!("{cur},"));
            cur = format!("{indent}{arg}");
        }
    }
    out.push(format!("{cur}{tail}"));
    out
}

/// What a doc comment documents.
pub enum Item<'a> {
    Constant(&'a str),
    Struct(&'a str),
    Member {
        name: &'a str,
        siblings: &'a [String],
    },
    Function {
        name: &'a str,
        params: &'a [String],
    },
}

/// A block of a Rust doc comment (Markdown).
pub enum Block {
    Para(String),
    /// `- `arg`: text`, the argument list of a function.
    Arg(String, String),
    Heading(String),
}

pub fn blocks(doc: &[String]) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::new();
    let mut open = false; // the last block takes continuation lines
    for line in doc {
        assert!(
            !line.starts_with("```") && !line.starts_with("* ") && !line.starts_with('|'),
            "Markdown the kernel-style pass does not translate: {line}"
        );
        if line.trim().is_empty() {
            open = false;
        } else if let Some(h) = line.strip_prefix("# ") {
            out.push(Block::Heading(h.trim().to_string()));
            open = false;
        } else if let Some(item) = line.strip_prefix("- ") {
            let (arg, text) = item
                .strip_prefix('`')
                .and_then(|r| r.split_once("`:"))
                .unwrap_or_else(|| {
                    panic!(
                        "a list in a doc comment must be an argument list (- `arg`: text): {line}"
                    )
                });
            out.push(Block::Arg(arg.to_string(), text.trim().to_string()));
            open = true;
        } else if open {
            let text = match out.last_mut().unwrap() {
                Block::Para(t) => t,
                Block::Arg(_, t) => {
                    assert!(
                        line.starts_with("  "),
                        "unindented continuation of a list item: {line}"
                    );
                    t
                }
                Block::Heading(_) => unreachable!(),
            };
            text.push(' ');
            text.push_str(line.trim());
        } else {
            out.push(Block::Para(line.trim().to_string()));
            open = true;
        }
    }
    out
}

/// Rewrites the code spans and intra-doc links of Rust docs as kernel-doc
/// references: func(), %CONST, @arg (an argument or a member of the item),
/// &struct name, &struct_name.member; other code spans become ``literals``.
/// A link to a Rust item with no C counterpart fails.
pub fn references(text: &str, local: &[String], names: &Names) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(p) = rest.find('`') {
        let link = rest[..p].ends_with('[');
        out.push_str(&rest[..if link { p - 1 } else { p }]);
        let after = &rest[p + 1..];
        let end = after
            .find('`')
            .unwrap_or_else(|| panic!("unclosed code span: {text}"));
        let x = &after[..end];
        rest = &after[end + 1..];
        if link {
            rest = rest
                .strip_prefix(']')
                .unwrap_or_else(|| panic!("bad link: {text}"));
            if rest.starts_with('(') {
                rest = &rest[rest.find(')').unwrap() + 1..];
            }
        }
        let x = x.strip_suffix("()").unwrap_or(x);
        let r = if let Some((ty, member)) = x.split_once("::") {
            let c = names
                .c_struct(ty)
                .unwrap_or_else(|| panic!("[`{x}`]: {ty} is not a struct of the C API"));
            assert!(
                names.structs[c].iter().any(|m| m == member),
                "[`{x}`]: no member {member}"
            );
            format!("&{c}.{member}")
        } else if names.functions.contains_key(x) {
            format!("{x}()")
        } else if names.constants.contains(x) {
            format!("%{x}")
        } else if local.iter().any(|l| l == x) {
            format!("@{x}")
        } else if let Some(c) = names.c_struct(x) {
            format!("&struct {c}")
        } else {
            assert!(
                !link,
                "[`{x}`] links to a Rust item the C API does not have"
            );
            format!("``{x}``")
        };
        out.push_str(&r);
    }
    out.push_str(rest);
    out
}

/// Words of a paragraph; a ``literal`` with spaces, and `&struct name`, stay
/// one word.
pub fn words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_literal = false;
    for w in text.split_whitespace() {
        if in_literal || out.last().is_some_and(|l| l == "&struct") {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(w);
        } else {
            out.push(w.to_string());
        }
        if w.matches("``").count() % 2 == 1 {
            in_literal = !in_literal;
        }
    }
    out
}

/// Whether a comment line starting with `line` starts a kernel-doc section
/// (`@name:`, `Context:`, `Return:` ..., in any case).
pub fn starts_section(line: &str) -> bool {
    const SECTIONS: [&str; 8] = [
        "description",
        "context",
        "return",
        "returns",
        "note",
        "notes",
        "example",
        "examples",
    ];
    line.split_once(":").is_some_and(|(head, _)| {
        let head = head.trim_end().to_ascii_lowercase();
        SECTIONS.contains(&head.as_str())
            || (head.starts_with('@') && !head.contains(char::is_whitespace))
    })
}

/// Fills a paragraph into lines of at most `room` columns. A line never
/// starts with a word kernel-doc would take for a section (`context:`): the
/// word before it moves down with it.
pub fn fill(text: &str, room: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let len = |ws: &[String]| ws.iter().map(|w| w.chars().count() + 1).sum::<usize>();
    for w in words(text) {
        if !cur.is_empty() && len(&cur) + w.chars().count() > room {
            let mut next = vec![w.clone()];
            if starts_section(&w) && cur.len() > 1 {
                next.insert(0, cur.pop().unwrap());
            }
            out.push(cur.join(" "));
            cur = next;
        } else {
            cur.push(w);
        }
    }
    out.push(cur.join(" "));
    for l in &out[1..] {
        assert!(
            !starts_section(l),
            "a wrapped comment line would start a kernel-doc section: {l}"
        );
    }
    out
}

/// Turns a Rust doc comment into the lines of a kernel-doc comment (without
/// the ` * ` in front); `room` is the width left for text.
///
/// The summary gets the kernel-doc name (`NAME - `, `struct NAME - `,
/// `@member: `, `NAME() - `). A function's argument list becomes its `@arg:`
/// lines, right after the name line, and must name every parameter once; the
/// headings `# Context` and `# Return`, each over one paragraph, become the
/// sections `Context:` and `Return:`, which every function must have; any
/// other heading (`# Safety`) becomes a paragraph `Heading: ...`.
pub fn kernel_doc(doc: &[String], item: &Item, names: &Names, room: usize) -> Vec<String> {
    let blocks = blocks(doc);
    let (prefix, local): (String, &[String]) = match item {
        Item::Constant(n) => (format!("{n} - "), &[]),
        Item::Struct(n) => (format!("struct {n} - "), &names.structs[*n]),
        Item::Member { name, siblings } => (format!("@{name}: "), siblings),
        Item::Function { name, params } => (format!("{name}() - "), params),
    };
    let what = &prefix;
    let mut it = blocks.into_iter().peekable();
    let summary = match it.next() {
        Some(Block::Para(s)) => s,
        _ => panic!("{what}: a doc comment must start with a one-sentence summary"),
    };
    let mut head = vec![format!("{prefix}{summary}")];
    let mut args = Vec::new();
    while let Some(Block::Arg(arg, text)) = it.next_if(|b| matches!(b, Block::Arg(..))) {
        head.push(format!("@{arg}: {text}"));
        args.push(arg);
    }
    let mut body = Vec::new();
    let mut sections = Vec::new();
    while let Some(b) = it.next() {
        match b {
            Block::Para(p) => body.push(p),
            Block::Arg(arg, _) => {
                panic!("{what}: the argument list (`{arg}`) must follow the summary")
            }
            Block::Heading(h) => {
                let p = match it.next() {
                    Some(Block::Para(p)) => p,
                    _ => panic!("{what}: heading # {h} without a paragraph"),
                };
                if h == "Context" || h == "Return" {
                    assert!(
                        !matches!(it.peek(), Some(Block::Para(_))),
                        "{what}: # {h} must be one paragraph (kernel-doc ends the section at a blank line)"
                    );
                    sections.push(h.clone());
                }
                body.push(format!("{h}: {p}"));
            }
        }
    }
    match item {
        Item::Function { params, .. } => {
            assert_eq!(
                &args, params,
                "{what}: the argument list must document each parameter, in order"
            );
            for s in ["Context", "Return"] {
                assert!(sections.iter().any(|h| h == s), "{what}: no # {s} section");
            }
        }
        _ => assert!(
            args.is_empty(),
            "{what}: only functions have an argument list"
        ),
    }
    let mut out = Vec::new();
    for p in &head {
        out.extend(fill(&references(p, local, names), room));
    }
    for p in &body {
        out.push(String::new());
        out.extend(fill(&references(p, local, names), room));
    }
    out
}

/// Puts cbindgen's output in kernel style (see cbindgen.toml for the rules).
pub fn kernel_style(raw: &str, rename: &HashMap<String, String>) -> String {
    let lines: Vec<&str> = raw.lines().collect();
    let names = Names::collect(&lines, rename);
    let mut out: Vec<String> = Vec::new();
    // The struct being written, and whether its first member takes its alignment.
    let mut current: Option<&str> = None;
    let mut align_first = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start();
        let depth = (line.len() - t.len()) / 8;
        i += 1;
        if t == "/**" {
            let mut doc = Vec::new();
            while lines[i].trim() != "*/" {
                let d = lines[i]
                    .trim_start()
                    .strip_prefix('*')
                    .expect("doc comment line");
                doc.push(d.strip_prefix(' ').unwrap_or(d).to_string());
                i += 1;
            }
            i += 1;
            let decl = lines[i];
            let item = if let Some(s) = current {
                Item::Member {
                    name: member_name(decl),
                    siblings: &names.structs[s],
                }
            } else if let Some(d) = decl.strip_prefix("#define ") {
                Item::Constant(d.split_whitespace().next().unwrap())
            } else if decl.starts_with("struct ") && decl.ends_with('{') {
                Item::Struct(struct_name(decl))
            } else {
                assert!(is_prototype(decl), "doc comment before {decl}");
                let open = decl.find('(').unwrap();
                let name = decl[..open].rsplit([' ', '*']).next().unwrap();
                Item::Function {
                    name,
                    params: &names.functions[name],
                }
            };
            let tabs = "\t".repeat(depth);
            out.push(format!("{tabs}/**"));
            for l in kernel_doc(&doc, &item, &names, WIDTH - width(&tabs) - 3) {
                out.push(if l.is_empty() {
                    format!("{tabs} *")
                } else {
                    format!("{tabs} * {l}")
                });
            }
            out.push(format!("{tabs} */"));
        } else if line.starts_with("struct ") && line.ends_with('{') {
            let name = struct_name(line);
            if let Some(attr) = line.strip_prefix("struct __aligned(") {
                // kernel-doc cannot parse `struct __aligned(8) name`, and
                // userspace has no __aligned: a first member __aligned_u64
                // aligns the struct to 8 on every ABI, as Rust's align(8).
                assert!(
                    attr.starts_with("8) "),
                    "only align(8) is supported: {line}"
                );
                align_first = true;
            }
            out.push(format!("struct {name} {{"));
            current = names.structs.get_key_value(name).map(|(k, _)| k.as_str());
        } else if line.starts_with("};") {
            current = None;
            out.push(line.to_string());
        } else if current.is_some() && !t.is_empty() {
            let mut decl = kernel_types(t);
            if align_first {
                decl = decl
                    .strip_prefix("__u64 ")
                    .map(|m| format!("__aligned_u64 {m}"))
                    .unwrap_or_else(|| panic!("an align(8) struct must start with a u64: {t}"));
                align_first = false;
            }
            out.push(format!("{}{decl}", "\t".repeat(depth)));
        } else if is_prototype(line) {
            // The errno convention: functions return int (i32 on every Linux ABI).
            let decl = match line.strip_prefix("int32_t ") {
                Some(rest) => format!("int {}", kernel_types(rest)),
                None => kernel_types(line),
            };
            out.extend(wrap_prototype(&decl));
        } else {
            out.push(line.trim_end().to_string());
        }
    }
    // One blank line at most between blocks, none at the end.
    let mut text = String::new();
    let mut blank = false;
    for l in out {
        if l.is_empty() {
            blank = true;
            continue;
        }
        if blank && !text.is_empty() {
            text.push('\n');
        }
        blank = false;
        text.push_str(&l);
        text.push('\n');
    }
    text
}
