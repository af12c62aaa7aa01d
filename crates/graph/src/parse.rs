//! The `.cla` text format (see `models/README.md` and `docs/cla.md` §8).
//!
//! One statement per line, `#` comments:
//!
//! ```text
//! cla NAME
//! line FAMILY[VAR, ...] memory thread=EXPR | memory socket=EXPR | cache thread=EXPR
//! role ROLE...                      (root, inner, leaf)
//!   [for VAR in children|child_sockets|EXPR..EXPR:] OP
//! OP := copy REF -> REF [EXPR] | wait REF [==|>=] EXPR | write REF EXPR | add REF EXPR
//! ```
//!
//! Errors carry the origin, line and column of the offending token; user text quoted in them is
//! clipped ([`crate::error::clip`]).
//!
//! The parser is recursive descent over expressions, so its recursion is bounded: parentheses,
//! unary minus and calls nest at most [`MAX_EXPR_DEPTH`] levels, and no expression tree it builds
//! is taller than that (a chain `1 + 1 + …` of 257 terms is refused at its 256th operator). A line
//! family has at most [`MAX_INDEX_VARS`] index variables. See `docs/cla.md` §8, "Limits".

use crate::error::{clip, one_line, GraphError, ParseError};
use crate::input::{read_text, MAX_PROGRAM_BYTES};
use crate::program::*;
use std::path::Path;

/// Read and parse the `.cla` file at `path` (a regular file of at most
/// [`MAX_PROGRAM_BYTES`], UTF-8; see [`crate::input::read_text`]); errors name the path.
pub fn load(path: &Path) -> Result<Program, GraphError> {
    let text = read_text(path, MAX_PROGRAM_BYTES)?;
    Ok(parse(&one_line(&path.display().to_string()), &text)?)
}

/// Parse a `.cla` text; `origin` names it in errors.
pub fn parse(origin: &str, text: &str) -> Result<Program, ParseError> {
    let mut program = Program {
        name: String::new(),
        origin: origin.to_string(),
        lines: Vec::new(),
        blocks: Vec::new(),
    };
    let mut header = false;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let content = raw.split('#').next().unwrap_or("");
        let tokens = tokenize(origin, line_no, content)?;
        if tokens.is_empty() {
            continue;
        }
        let mut p = Cursor {
            origin,
            line: line_no,
            tokens: &tokens,
            at: 0,
            end_column: content.chars().count() + 1,
            nesting: 0,
        };
        let first = p.peek_word();
        if !header {
            if first.as_deref() != Some("cla") {
                return Err(p.error_here("a .cla file starts with `cla NAME`"));
            }
            // The name is one word of any characters but spaces (`one-line-bcast`).
            let rest = content.trim_start();
            let after = rest["cla".len()..].trim();
            if after.is_empty() || after.contains(char::is_whitespace) {
                let column = content.len() - rest.len() + 4;
                return Err(p.error_at(column, "expected one word naming the program after `cla`"));
            }
            program.name = after.to_string();
            header = true;
            continue;
        }
        match first.as_deref() {
            Some("cla") => return Err(p.error_here("`cla NAME` may appear only once, first")),
            Some("line") => {
                p.next();
                program.lines.push(p.line_decl()?);
            }
            Some("role") => {
                let pos = p.pos();
                p.next();
                let mut roles = Vec::new();
                while !p.at_end() {
                    let column = p.column();
                    let word = p.expect_ident("a role")?;
                    let role = match word.as_str() {
                        "root" => Role::Root,
                        "inner" => Role::Inner,
                        "leaf" => Role::Leaf,
                        other => {
                            return Err(p.error_at(
                                column,
                                &format!(
                                    "unknown role `{}` (expected root, inner or leaf)",
                                    clip(other)
                                ),
                            ))
                        }
                    };
                    if roles.contains(&role) {
                        return Err(p.error_at(column, &format!("role `{word}` listed twice")));
                    }
                    roles.push(role);
                }
                if roles.is_empty() {
                    return Err(p.error_here("`role` needs at least one of root, inner, leaf"));
                }
                program.blocks.push(Block {
                    roles,
                    ops: Vec::new(),
                    pos,
                });
            }
            _ => {
                if program.blocks.is_empty() {
                    return Err(p.error_here("an operation must follow a `role` line"));
                }
                let op = p.op()?;
                if let Some(block) = program.blocks.last_mut() {
                    block.ops.push(op);
                }
            }
        }
    }
    if !header {
        return Err(ParseError {
            origin: origin.to_string(),
            line: 1,
            column: 1,
            message: "empty program: a .cla file starts with `cla NAME`".into(),
        });
    }
    program.check()?;
    Ok(program)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    Sym(&'static str),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    column: usize,
}

const SYMBOLS: [&str; 16] = [
    "->", "==", ">=", "..", "[", "]", "(", ")", ",", ":", "=", "+", "-", "*", "/", "%",
];

fn tokenize(origin: &str, line: usize, text: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                column,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let v = s.parse().map_err(|_| ParseError {
                origin: origin.into(),
                line,
                column,
                message: format!("number `{}` is too large (at most {})", clip(&s), i64::MAX),
            })?;
            out.push(Token {
                tok: Tok::Int(v),
                column,
            });
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let sym = SYMBOLS
                .iter()
                .find(|s| rest.starts_with(**s))
                .ok_or_else(|| ParseError {
                    origin: origin.into(),
                    line,
                    column,
                    message: format!("unexpected character `{}`", clip(&c.to_string())),
                })?;
            out.push(Token {
                tok: Tok::Sym(sym),
                column,
            });
            i += sym.len();
        }
    }
    Ok(out)
}

struct Cursor<'a> {
    origin: &'a str,
    line: usize,
    tokens: &'a [Token],
    at: usize,
    end_column: usize,
    /// Open parentheses, unary minus and calls around the token being parsed.
    nesting: usize,
}

impl Cursor<'_> {
    fn column(&self) -> usize {
        self.tokens
            .get(self.at)
            .map_or(self.end_column, |t| t.column)
    }

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column(),
        }
    }

    fn error_at(&self, column: usize, message: &str) -> ParseError {
        ParseError {
            origin: self.origin.to_string(),
            line: self.line,
            column,
            message: message.to_string(),
        }
    }

    fn error_here(&self, message: &str) -> ParseError {
        self.error_at(self.column(), message)
    }

    fn at_end(&self) -> bool {
        self.at >= self.tokens.len()
    }

    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|t| &t.tok)
    }

    fn peek_word(&self) -> Option<String> {
        match self.peek() {
            Some(Tok::Ident(w)) => Some(w.clone()),
            _ => None,
        }
    }

    fn next(&mut self) {
        self.at += 1;
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "the end of the line".into(),
            Some(Tok::Ident(w)) => format!("`{}`", clip(w)),
            Some(Tok::Int(i)) => format!("`{i}`"),
            Some(Tok::Sym(s)) => format!("`{s}`"),
        }
    }

    fn expect_end(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self.error_here(&format!(
                "unexpected {} at the end of the statement",
                self.describe()
            )))
        }
    }

    fn expect_ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Ident(w)) => {
                let w = w.clone();
                self.next();
                Ok(w)
            }
            _ => Err(self.error_here(&format!("expected {what}, found {}", self.describe()))),
        }
    }

    fn eat(&mut self, sym: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(s)) if *s == sym) {
            self.next();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, sym: &str) -> Result<(), ParseError> {
        if self.eat(sym) {
            Ok(())
        } else {
            Err(self.error_here(&format!("expected `{sym}`, found {}", self.describe())))
        }
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if self.peek_word().as_deref() == Some(word) {
            self.next();
            true
        } else {
            false
        }
    }

    /// `FAMILY[VAR, ...] memory thread=EXPR | memory socket=EXPR | cache thread=EXPR`
    fn line_decl(&mut self) -> Result<LineFamily, ParseError> {
        let pos = self.pos();
        let name = self.expect_ident("a line family name")?;
        let mut vars = Vec::new();
        if self.eat("[") {
            loop {
                let column = self.column();
                let v = self.expect_ident("an index variable")?;
                if vars.len() == MAX_INDEX_VARS {
                    return Err(self.error_at(
                        column,
                        &format!("a line family has at most {MAX_INDEX_VARS} index variables"),
                    ));
                }
                if vars.contains(&v) {
                    return Err(
                        self.error_at(column, &format!("index variable `{}` repeated", clip(&v)))
                    );
                }
                vars.push(v);
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        let column = self.column();
        let place = self.expect_ident("`memory` or `cache`")?;
        let key_column = self.column();
        let key = self.expect_ident("`thread=`, `socket=`, `domain=` or `group=`")?;
        self.expect("=")?;
        let expr = self.expr()?;
        self.expect_end()?;
        let initial = match (place.as_str(), key.as_str()) {
            ("memory", "thread") => Initial::MemoryOfThread(expr),
            ("memory", "socket") => Initial::MemoryOfSocket(expr),
            ("memory", "domain") => Initial::MemoryOfDomain(expr),
            ("memory", "group") => Initial::MemoryOfGroup(expr),
            ("cache", "thread") => Initial::CacheOfThread(expr),
            ("memory" | "cache", _) => {
                return Err(self.error_at(
                    key_column,
                    &format!(
                        "expected `thread=`, `socket=`, `domain=` or `group=`, found `{}`",
                        clip(&key)
                    ),
                ))
            }
            _ => {
                return Err(self.error_at(
                    column,
                    &format!("expected `memory` or `cache`, found `{}`", clip(&place)),
                ))
            }
        };
        if matches!(initial, Initial::CacheOfThread(_)) && key != "thread" {
            return Err(self.error_at(key_column, "a cached line belongs to a thread"));
        }
        Ok(LineFamily {
            name,
            vars,
            initial,
            pos,
        })
    }

    fn op(&mut self) -> Result<Op, ParseError> {
        let pos = self.pos();
        let mut each = None;
        if self.eat_word("for") {
            let var = self.expect_ident("a loop variable")?;
            if !self.eat_word("in") {
                return Err(self.error_here(&format!("expected `in`, found {}", self.describe())));
            }
            let set = if self.eat_word("children") {
                LoopSet::Children
            } else if self.eat_word("child_sockets") {
                LoopSet::ChildSockets
            } else if self.eat_word("child_domains") {
                LoopSet::ChildDomains
            } else if self.eat_word("child_groups") {
                LoopSet::ChildGroups
            } else {
                let a = self.expr()?;
                self.expect("..")?;
                let b = self.expr()?;
                LoopSet::Range(a, b)
            };
            self.expect(":")?;
            each = Some((var, set));
        }
        let column = self.column();
        let word = self.expect_ident("an operation (copy, wait, write, add)")?;
        let kind = match word.as_str() {
            "copy" => {
                let src = self.line_ref()?;
                self.expect("->")?;
                let dst = self.line_ref()?;
                let lines = if self.at_end() {
                    None
                } else {
                    Some(self.expr()?)
                };
                OpKind::Copy { src, dst, lines }
            }
            "wait" => {
                let line = self.line_ref()?;
                let cmp = if self.eat("==") {
                    Cmp::Eq
                } else if self.eat(">=") {
                    Cmp::Ge
                } else {
                    Cmp::Eq
                };
                let value = self.expr()?;
                OpKind::Wait { line, cmp, value }
            }
            "write" | "add" => {
                let line = self.line_ref()?;
                let value = self.expr()?;
                if word == "write" {
                    OpKind::Write { line, value }
                } else {
                    OpKind::Add { line, value }
                }
            }
            other => {
                return Err(self.error_at(
                    column,
                    &format!(
                        "unknown operation `{}` (expected copy, wait, write or add)",
                        clip(other)
                    ),
                ))
            }
        };
        self.expect_end()?;
        Ok(Op { kind, each, pos })
    }

    fn line_ref(&mut self) -> Result<LineRef, ParseError> {
        let family = self.expect_ident("a line (FAMILY[INDEX, ...])")?;
        let mut indices = Vec::new();
        if self.eat("[") {
            loop {
                if self.eat("*") {
                    indices.push(Index::All);
                } else {
                    indices.push(Index::At(self.expr()?));
                }
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        Ok(LineRef { family, indices })
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        Ok(self.sum()?.0)
    }

    /// Enter one more level of parentheses, unary minus or call, refusing the
    /// [`MAX_EXPR_DEPTH`]+1-th: the parser's recursion is bounded by this count.
    fn enter(&mut self, column: usize) -> Result<(), ParseError> {
        self.nesting += 1;
        if self.nesting > MAX_EXPR_DEPTH {
            return Err(self.error_at(
                column,
                &format!(
                    "expression nested more than {MAX_EXPR_DEPTH} levels deep (parentheses, \
                     unary minus and calls each open a level)"
                ),
            ));
        }
        Ok(())
    }

    /// Refuse an expression tree taller than [`MAX_EXPR_DEPTH`] (see [`Expr::depth`]), at the
    /// operator that makes it so.
    fn check_height(&self, height: usize, column: usize) -> Result<(), ParseError> {
        if height > MAX_EXPR_DEPTH {
            return Err(self.error_at(
                column,
                &format!(
                    "expression more than {MAX_EXPR_DEPTH} operations deep (a chain \
                     `a + b + c ...` nests one level per operator)"
                ),
            ));
        }
        Ok(())
    }

    /// sum := product (('+' | '-') product)*, with the height of the tree built.
    fn sum(&mut self) -> Result<(Expr, usize), ParseError> {
        let (mut left, mut height) = self.product()?;
        loop {
            let column = self.column();
            let op = if self.eat("+") {
                BinOp::Add
            } else if self.eat("-") {
                BinOp::Sub
            } else {
                return Ok((left, height));
            };
            let (right, h) = self.product()?;
            height = 1 + height.max(h);
            self.check_height(height, column)?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    /// product := factor (('*' | '/' | '%') factor)*
    fn product(&mut self) -> Result<(Expr, usize), ParseError> {
        let (mut left, mut height) = self.factor()?;
        loop {
            let column = self.column();
            let op = if self.eat("*") {
                BinOp::Mul
            } else if self.eat("/") {
                BinOp::Div
            } else if self.eat("%") {
                BinOp::Rem
            } else {
                return Ok((left, height));
            };
            let (right, h) = self.factor()?;
            height = 1 + height.max(h);
            self.check_height(height, column)?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    /// factor := '-' factor | '(' sum ')' | INT | NAME | FUNC '(' sum ')'
    fn factor(&mut self) -> Result<(Expr, usize), ParseError> {
        let column = self.column();
        if self.eat("-") {
            self.enter(column)?;
            let (e, h) = self.factor()?;
            self.nesting -= 1;
            self.check_height(h + 1, column)?;
            return Ok((Expr::Neg(Box::new(e)), h + 1));
        }
        if self.eat("(") {
            self.enter(column)?;
            let inner = self.sum()?;
            self.expect(")")?;
            self.nesting -= 1;
            return Ok(inner);
        }
        match self.peek().cloned() {
            Some(Tok::Int(i)) => {
                self.next();
                Ok((Expr::Int(i), 1))
            }
            Some(Tok::Ident(w)) => {
                self.next();
                let leaf = match w.as_str() {
                    "me" => Expr::Me,
                    "parent" => Expr::Parent,
                    "socket" => Expr::Socket,
                    "domain" => Expr::Domain,
                    "group" => Expr::Group,
                    "nchildren" => Expr::NChildren,
                    "nthreads" => Expr::NThreads,
                    "rank" => Expr::Rank,
                    "children_on" | "socket_of" | "children_in" | "domain_of"
                    | "children_in_group" | "group_of" => {
                        let f = match w.as_str() {
                            "children_on" => Func::ChildrenOn,
                            "socket_of" => Func::SocketOf,
                            "children_in" => Func::ChildrenIn,
                            "domain_of" => Func::DomainOf,
                            "children_in_group" => Func::ChildrenInGroup,
                            _ => Func::GroupOf,
                        };
                        self.enter(column)?;
                        self.expect("(")?;
                        let (arg, h) = self.sum()?;
                        self.expect(")")?;
                        self.nesting -= 1;
                        self.check_height(h + 1, column)?;
                        return Ok((Expr::Call(f, Box::new(arg)), h + 1));
                    }
                    _ => {
                        if matches!(self.peek(), Some(Tok::Sym("("))) {
                            return Err(self.error_at(
                                column,
                                &format!(
                                    "unknown function `{}` (expected children_on, socket_of, children_in, domain_of, children_in_group or group_of)",
                                    clip(&w)
                                ),
                            ));
                        }
                        Expr::Var(w)
                    }
                };
                Ok((leaf, 1))
            }
            _ => Err(self.error_here(&format!(
                "expected an expression, found {}",
                self.describe()
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BCAST: &str = include_str!("../../../models/one-line-bcast.cla");

    #[test]
    fn bundled_broadcast_equals_the_built_one() {
        let parsed = parse("models/one-line-bcast.cla", BCAST).unwrap();
        let built = one_line_broadcast().unwrap();
        assert_eq!(parsed.without_positions(), built.without_positions());
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = |text: &str| parse("x.cla", text).unwrap_err().to_string();
        assert_eq!(
            e("line a[t] memory thread=t"),
            "x.cla:1:1: a .cla file starts with `cla NAME`"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole root\n  wait b[me] == 1"),
            "x.cla:4:3: unknown line family `b` (declared: a)"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole root\n  wait a[me,1] == 1"),
            "x.cla:4:3: `a` takes 1 index(es), got 2"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole root\n  wait a[me] == foo"),
            "x.cla:4:3: unknown name `foo` (built-ins: me, parent, socket, nchildren, nthreads, rank; or a `for` variable)"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole boss"),
            "x.cla:3:6: unknown role `boss` (expected root, inner or leaf)"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\n  wait a[me] == 1"),
            "x.cla:3:3: an operation must follow a `role` line"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole root\n  poll a[me]"),
            "x.cla:4:3: unknown operation `poll` (expected copy, wait, write or add)"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole root\n  write a[me] 1 2"),
            "x.cla:4:17: unexpected `2` at the end of the statement"
        );
        assert_eq!(
            e("cla x\nline a[t] disk thread=t"),
            "x.cla:2:11: expected `memory` or `cache`, found `disk`"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=u"),
            "x.cla:2:6: `u` is not an index variable of `a` (it has: t)"
        );
        assert_eq!(
            e("cla x\nline a[t] memory thread=t\nrole root\n  write a[*] 1"),
            "x.cla:4:3: `*` may only index the source of a copy"
        );
        assert_eq!(
            e("cla x\nrole root\n  wait a[me] ! 1"),
            "x.cla:3:14: unexpected character `!`"
        );
        assert_eq!(
            e(""),
            "x.cla:1:1: empty program: a .cla file starts with `cla NAME`"
        );
    }

    #[test]
    fn expressions_and_loops_parse() {
        let p = parse(
            "t",
            "cla x # comment\nline a[t,s] memory socket=s\nrole root inner\n  for c in 0..nchildren+1: add a[(me*2+1)%3, socket_of(c)] -1\n",
        )
        .unwrap();
        let op = &p.blocks[0].ops[0];
        assert!(matches!(op.each, Some((ref v, LoopSet::Range(_, _))) if v == "c"));
        assert_eq!(
            op.kind.to_string(),
            "add a[(((me * 2) + 1) % 3),socket_of(c)] -1"
        );
    }
}
