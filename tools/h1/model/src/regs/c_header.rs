//! The model's register constants checked against the C driver's register map,
//! `drivers/media/platform/verisilicon/hantro_h1_regs.h`: the header is parsed
//! and its defines evaluated (object-like and function-like macros, `BIT()` and
//! `GENMASK()` of `linux/bits.h`, integer arithmetic), never copied by hand.

use std::collections::HashMap;

use super::check::Check;
use super::C_HEADER;

/// A preprocessor token of the macro forms the header uses.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(u64),
    Ident(String),
    Punct(&'static str),
}

const PUNCTS: &[&str] = &[
    "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "(", ")", ",", "+", "-", "*", "/", "%", "&",
    "|", "^", "~", "!", "<", ">", "?", ":",
];

fn tokenize(s: &str) -> Result<Vec<Tok>, String> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let lit = s[start..i].trim_end_matches(['u', 'U', 'l', 'L']);
            let v = if let Some(hex) = lit.strip_prefix("0x").or(lit.strip_prefix("0X")) {
                u64::from_str_radix(hex, 16)
            } else if lit.len() > 1 && lit.starts_with('0') {
                u64::from_str_radix(&lit[1..], 8)
            } else {
                lit.parse()
            };
            out.push(Tok::Num(
                v.map_err(|_| format!("bad number {}", &s[start..i]))?,
            ));
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(s[start..i].to_string()));
        } else if let Some(p) = PUNCTS.iter().find(|p| s[i..].starts_with(**p)) {
            out.push(Tok::Punct(p));
            i += p.len();
        } else {
            return Err(format!("unexpected character {:?} in {s:?}", c as char));
        }
    }
    Ok(out)
}

/// A `#define`: its parameters if function-like, and its body.
#[derive(Clone, Debug)]
struct Macro {
    params: Option<Vec<String>>,
    body: Vec<Tok>,
}

/// The defines of a header, with `BIT()` and `GENMASK()` of `linux/bits.h`.
struct Defines(HashMap<String, Macro>);

impl Defines {
    fn parse(text: &str) -> Result<Self, String> {
        let mut d = Defines(HashMap::new());
        d.define("BIT(n)", "(1ULL << (n))")?;
        d.define("GENMASK(h, l)", "((~0ULL << (l)) & (~0ULL >> (63 - (h))))")?;
        for line in strip_comments(text).replace("\\\n", " ").lines() {
            let line = line.trim_start();
            let Some(rest) = line.strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if !rest.starts_with([' ', '\t']) {
                return Err(format!("bad define: {line}"));
            }
            let rest = rest.trim_start();
            let name_end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            // A function-like macro has its '(' right after the name.
            let (head, body) = if rest[name_end..].starts_with('(') {
                let close = rest.find(')').ok_or(format!("bad define: {line}"))?;
                rest.split_at(close + 1)
            } else {
                rest.split_at(name_end)
            };
            d.define(head, body)?;
        }
        Ok(d)
    }

    fn define(&mut self, head: &str, body: &str) -> Result<(), String> {
        let (name, params) = match head.split_once('(') {
            Some((name, params)) => (
                name,
                Some(
                    params
                        .trim_end_matches(')')
                        .split(',')
                        .map(|p| p.trim().to_string())
                        .collect(),
                ),
            ),
            None => (head, None),
        };
        let m = Macro {
            params,
            body: tokenize(body)?,
        };
        if self.0.insert(name.to_string(), m).is_some() {
            return Err(format!("{name} is defined twice"));
        }
        Ok(())
    }

    /// Expands the macros of `toks` (arguments first, then the result again).
    fn expand(&self, toks: &[Tok], depth: usize) -> Result<Vec<Tok>, String> {
        if depth > 32 {
            return Err("macro expansion too deep".into());
        }
        let mut out = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let Tok::Ident(name) = &toks[i] else {
                out.push(toks[i].clone());
                i += 1;
                continue;
            };
            let Some(m) = self.0.get(name) else {
                out.push(toks[i].clone());
                i += 1;
                continue;
            };
            i += 1;
            let body = match &m.params {
                None => m.body.clone(),
                Some(params) => {
                    if toks.get(i) != Some(&Tok::Punct("(")) {
                        return Err(format!("{name} needs arguments"));
                    }
                    let (args, next) = split_args(toks, i + 1)?;
                    i = next;
                    if args.len() != params.len() {
                        return Err(format!("{name} takes {} arguments", params.len()));
                    }
                    let args = args
                        .iter()
                        .map(|a| self.expand(a, depth + 1))
                        .collect::<Result<Vec<_>, _>>()?;
                    let mut body = Vec::new();
                    for t in &m.body {
                        match t {
                            Tok::Ident(p) if params.contains(p) => {
                                let k = params.iter().position(|q| q == p).unwrap();
                                body.extend(args[k].iter().cloned());
                            }
                            t => body.push(t.clone()),
                        }
                    }
                    body
                }
            };
            out.extend(self.expand(&body, depth + 1)?);
        }
        Ok(out)
    }

    /// Evaluates the C expression `expr` (64-bit unsigned arithmetic).
    fn eval(&self, expr: &str) -> Result<u64, String> {
        let toks = self.expand(&tokenize(expr)?, 0)?;
        let mut p = Parser {
            toks: &toks,
            pos: 0,
        };
        let v = p.ternary().map_err(|e| format!("{expr}: {e}"))?;
        if p.pos != toks.len() {
            return Err(format!("{expr}: trailing {:?}", &toks[p.pos..]));
        }
        Ok(v)
    }
}

/// Removes `/* */` and `//` comments, keeping the line breaks.
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("/*") {
            let end = r.find("*/").map_or(r.len(), |e| e + 2);
            out.extend(r[..end].chars().filter(|&c| c == '\n'));
            rest = &r[end..];
        } else if let Some(r) = rest.strip_prefix("//") {
            rest = &r[r.find('\n').unwrap_or(r.len())..];
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The comma-separated arguments of a macro call from `toks[start]` (just
/// after its '('), and the index after its ')'.
fn split_args(toks: &[Tok], start: usize) -> Result<(Vec<Vec<Tok>>, usize), String> {
    let mut args = vec![Vec::new()];
    let mut depth = 0;
    for (i, t) in toks.iter().enumerate().skip(start) {
        match t {
            Tok::Punct("(") => depth += 1,
            Tok::Punct(")") if depth == 0 => return Ok((args, i + 1)),
            Tok::Punct(")") => depth -= 1,
            Tok::Punct(",") if depth == 0 => {
                args.push(Vec::new());
                continue;
            }
            _ => {}
        }
        args.last_mut().unwrap().push(t.clone());
    }
    Err("unclosed macro call".into())
}

/// Precedence climbing over the C operators the header can use.
struct Parser<'a> {
    toks: &'a [Tok],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Result<u64, String> {
        let c = self.binary(0)?;
        if !self.eat("?") {
            return Ok(c);
        }
        let a = self.ternary()?;
        if !self.eat(":") {
            return Err("expected ':'".into());
        }
        let b = self.ternary()?;
        Ok(if c != 0 { a } else { b })
    }

    fn binary(&mut self, min_prec: u8) -> Result<u64, String> {
        let mut lhs = self.unary()?;
        while let Some(&Tok::Punct(op)) = self.peek() {
            let prec = match op {
                "||" => 1,
                "&&" => 2,
                "|" => 3,
                "^" => 4,
                "&" => 5,
                "==" | "!=" => 6,
                "<" | ">" | "<=" | ">=" => 7,
                "<<" | ">>" => 8,
                "+" | "-" => 9,
                "*" | "/" | "%" => 10,
                _ => break,
            };
            if prec < min_prec {
                break;
            }
            self.pos += 1;
            let rhs = self.binary(prec + 1)?;
            lhs = match op {
                "||" => u64::from(lhs != 0 || rhs != 0),
                "&&" => u64::from(lhs != 0 && rhs != 0),
                "|" => lhs | rhs,
                "^" => lhs ^ rhs,
                "&" => lhs & rhs,
                "==" => u64::from(lhs == rhs),
                "!=" => u64::from(lhs != rhs),
                "<" => u64::from(lhs < rhs),
                ">" => u64::from(lhs > rhs),
                "<=" => u64::from(lhs <= rhs),
                ">=" => u64::from(lhs >= rhs),
                "<<" | ">>" if rhs >= 64 => return Err(format!("shift by {rhs}")),
                "<<" => lhs << rhs,
                ">>" => lhs >> rhs,
                "+" => lhs.wrapping_add(rhs),
                "-" => lhs.wrapping_sub(rhs),
                "*" => lhs.wrapping_mul(rhs),
                "/" | "%" if rhs == 0 => return Err("division by zero".into()),
                "/" => lhs / rhs,
                _ => lhs % rhs,
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<u64, String> {
        if self.eat("-") {
            return Ok(self.unary()?.wrapping_neg());
        }
        if self.eat("+") {
            return self.unary();
        }
        if self.eat("~") {
            return Ok(!self.unary()?);
        }
        if self.eat("!") {
            return Ok(u64::from(self.unary()? == 0));
        }
        match self.peek().cloned() {
            Some(Tok::Num(v)) => {
                self.pos += 1;
                Ok(v)
            }
            Some(Tok::Punct("(")) => {
                self.pos += 1;
                let v = self.ternary()?;
                if !self.eat(")") {
                    return Err("expected ')'".into());
                }
                Ok(v)
            }
            Some(Tok::Ident(name)) => Err(format!("{name} is not defined")),
            t => Err(format!("unexpected {t:?}")),
        }
    }
}

/// `Ok(())` if the C header says of a constant of value `v` what `check` asks
/// for, else what it says.
fn check(d: &Defines, v: u64, check: Check) -> Result<(), String> {
    // Register values: the C types are 32 bits wide where the model's are.
    let reg = |e: &str| d.eval(e).map(|x| x & 0xffff_ffff);
    let call = |f: &str, x: &str| reg(&format!("{f}({x})"));
    match check {
        Check::Is(e) => match d.eval(e)? {
            c if c == v => Ok(()),
            c => Err(format!("{e} is {c:#x}")),
        },
        Check::Shift(f) => match call(f, "1")? {
            c if v < 32 && c == 1 << v => Ok(()),
            c => Err(format!("{f}(1) is {c:#x}")),
        },
        Check::LowBit(e) => match reg(e)? {
            c if c != 0 && u64::from(c.trailing_zeros()) == v => Ok(()),
            c => Err(format!("{e} is {c:#x}")),
        },
        Check::ValueAt(e, shift) => match d.eval(e)? {
            c if c == v << shift => Ok(()),
            c => Err(format!("{e} is {c:#x}, not this value at bit {shift}")),
        },
        Check::Mask(f) => match call(f, "0xffffffff")? {
            c if c == v => Ok(()),
            c => Err(format!("{f}(0xffffffff) is {c:#x}")),
        },
        Check::Unmasked(f) => {
            let low = call(f, "1")?;
            let all = call(f, "0xffffffff")?;
            if v == 0 || low != 1 << v.trailing_zeros() {
                Err(format!("{f}(1) is {low:#x}"))
            } else if all != 0xffff_ffff & (0xffff_ffff << v.trailing_zeros()) {
                Err(format!("{f}(0xffffffff) is {all:#x}: it masks, check Mask"))
            } else {
                Ok(())
            }
        }
        Check::Model(why) if !why.is_empty() => Ok(()),
        Check::Model(_) => Err("not in the header, and no reason given".into()),
    }
}

/// The failures of the checks of `consts` against the header `text`.
fn failures(text: &str, consts: &[(&str, u64, &[Check])]) -> Vec<String> {
    let d = match Defines::parse(text) {
        Ok(d) => d,
        Err(e) => return vec![e],
    };
    let mut out = Vec::new();
    for &(name, v, checks) in consts {
        for &c in checks {
            if let Err(e) = check(&d, v, c) {
                let v = if v < 64 {
                    v.to_string()
                } else {
                    format!("{v:#x}")
                };
                out.push(format!("{name} = {v}: {e}"));
            }
        }
    }
    out
}

fn header() -> String {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../drivers/media/platform/verisilicon/hantro_h1_regs.h"
    );
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn model_registers_match_the_c_header() {
    let f = failures(&header(), C_HEADER);
    assert!(
        f.is_empty(),
        "regs.rs and hantro_h1_regs.h disagree:\n  {}",
        f.join("\n  ")
    );
}

#[test]
fn every_constant_is_checked_once() {
    let mut names: Vec<_> = C_HEADER.iter().map(|c| c.0).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), C_HEADER.len());
    let in_header = C_HEADER
        .iter()
        .filter(|c| !matches!(c.2, [Check::Model(_)]))
        .count();
    assert!(
        in_header > 90,
        "{in_header} constants checked against the header"
    );
}

/// Every define of the header evaluates (the function-like ones with
/// arguments 1), but H1_REG_CHECKPOINT_RESULT(), which reads its caller's `i`.
#[test]
fn every_define_of_the_header_evaluates() {
    let d = Defines::parse(&header()).unwrap();
    let mut n = 0;
    for (name, m) in &d.0 {
        if name == "HANTRO_H1_REGS_H_" || name == "H1_REG_CHECKPOINT_RESULT" {
            continue;
        }
        let expr = match &m.params {
            None => name.clone(),
            Some(p) => format!("{name}({})", vec!["1"; p.len()].join(", ")),
        };
        d.eval(&expr).unwrap();
        n += 1;
    }
    assert!(n > 150, "{n} defines");
    assert!(d.eval("H1_REG_CHECKPOINT_RESULT(0x12345678)").is_err());
}

/// The evaluator on the header's forms, and the checks on a header that
/// disagrees with the model.
#[test]
fn the_checks_catch_a_header_that_disagrees() {
    let text = "/* a comment\n * over lines */\n\
        #define A\t\t\t0x004 /* offset */\n\
        #define     A_BIT\t\tBIT(6)\n\
        #define    A_F(x)\t\t((x) << 13)\n\
        #define    A_M(x)\t\t(((x) & 0xf) << 4)\n\
        #define    A_MASK\t\tGENMASK(17, 13)\n\
        #define    A_V\t\t\t(0x3 << 1)\n\
        #define A_I(i)\t\t\t(0x070 + ((i) * 0x4))\n\
        #define A_SIZE\t\t\t(52 * 2 * \\\n\t\t\t\t A_STRIDE)\n\
        #define A_STRIDE\t\t464\n";
    let good: &[(&str, u64, &[Check])] = &[
        ("A", 4, &[Check::Is("A")]),
        ("BIT", 1 << 6, &[Check::Is("A_BIT")]),
        ("F", 13, &[Check::Shift("A_F"), Check::LowBit("A_MASK")]),
        ("M", 0xf0, &[Check::Mask("A_M")]),
        ("U", 0x3fe000, &[Check::Unmasked("A_F")]),
        ("V", 3, &[Check::ValueAt("A_V", 1)]),
        ("I", 0x07c, &[Check::Is("A_I(3)")]),
        ("SIZE", 48256, &[Check::Is("A_SIZE")]),
        ("MASK", 0x3e000, &[Check::Is("A_MASK")]),
    ];
    assert_eq!(failures(text, good), Vec::<String>::new());
    let bad: &[(&str, u64, &[Check])] = &[
        ("A", 8, &[Check::Is("A")]),
        ("F", 12, &[Check::Shift("A_F")]),
        ("F", 14, &[Check::LowBit("A_MASK")]),
        ("M", 0x70, &[Check::Mask("A_M")]),
        ("U", 0xf, &[Check::Unmasked("A_M")]),
        ("V", 3, &[Check::ValueAt("A_V", 2)]),
        ("MISSING", 1, &[Check::Is("A_MISSING")]),
        ("X", 1, &[Check::Model("")]),
    ];
    assert_eq!(failures(text, bad).len(), bad.len());
}
