//! CLa programs: line families and per-role operation sequences, parameterized by a tree.
//!
//! A [`Program`] is what a `.cla` file says ([`crate::parse`]) and what the builder API below
//! constructs without the text format. It is not yet tied to a tree or a machine: expressions
//! such as `parent` or `children_on(s)` are evaluated when the program is instantiated for a
//! tree ([`crate::instance`]).
//!
//! ```
//! use modelopt_graph::program::*;
//! // Figure 1's many-to-one, written with the builder: every child adds 1 to its parent's line,
//! // the parent waits for as many adds as it has children.
//! let p = Program::builder("m2o")
//!     .line("ack", &["t"], Initial::MemoryOfThread(Expr::var("t")))
//!     .role(&[Role::Inner, Role::Leaf])
//!     .op(Op::add(LineRef::new("ack", [Expr::Parent]), Expr::Int(1)))
//!     .role(&[Role::Root, Role::Inner])
//!     .op(Op::wait(LineRef::new("ack", [Expr::Me]), Cmp::Eq, Expr::NChildren))
//!     .build()
//!     .unwrap();
//! assert_eq!(p.blocks.len(), 2);
//! ```

use crate::error::{clip, ParseError};
use std::fmt;

/// The role of a thread in the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// No parent.
    Root,
    /// A parent and children.
    Inner,
    /// A parent, no children.
    Leaf,
}

impl Role {
    /// The name used in `.cla` files.
    pub fn name(self) -> &'static str {
        match self {
            Role::Root => "root",
            Role::Inner => "inner",
            Role::Leaf => "leaf",
        }
    }
}

/// A built-in function of expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `children_on(s)`: how many of my children run on socket s.
    ChildrenOn,
    /// `socket_of(t)`: the socket of thread t.
    SocketOf,
    /// `children_in(d)`: how many of my children run in L3 domain d (numbered as `domain`).
    ChildrenIn,
    /// `domain_of(t)`: the L3 domain of thread t (numbered as `domain`).
    DomainOf,
    /// `children_in_group(g)`: how many of my children are in synchronization group g.
    ChildrenInGroup,
    /// `group_of(t)`: the synchronization group of thread t.
    GroupOf,
}

/// A binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division; division by zero is an error)
    Div,
    /// `%`
    Rem,
}

/// An integer expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    /// A literal.
    Int(i64),
    /// `me`: this thread's id.
    Me,
    /// `parent`: the parent's id (undefined for the root).
    Parent,
    /// `socket`: this thread's socket.
    Socket,
    /// `domain`: this thread's L3 domain, numbered across sockets (domain d of socket s is
    /// s·D + d, D = `topology.domains_per_socket`; the socket itself when D = 1).
    Domain,
    /// `group`: this thread's synchronization group, the machine's `topology.sync_line` level:
    /// its socket, or its L3 domain (numbered as `domain`).
    Group,
    /// `nchildren`: how many children this thread has.
    NChildren,
    /// `nthreads`: threads in the tree.
    NThreads,
    /// `rank`: this thread's position among its parent's children (0-based).
    Rank,
    /// A loop variable (in ops) or an index variable (in line declarations).
    Var(String),
    /// A function call.
    Call(Func, Box<Expr>),
    /// A binary operation.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// Unary minus.
    Neg(Box<Expr>),
}

impl Expr {
    /// A variable.
    pub fn var(name: &str) -> Expr {
        Expr::Var(name.to_string())
    }

    /// `children_on(e)`.
    pub fn children_on(e: Expr) -> Expr {
        Expr::Call(Func::ChildrenOn, Box::new(e))
    }

    /// The variables the expression uses, left to right (an explicit stack: no recursion).
    pub fn vars(&self) -> Vec<&str> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                Expr::Var(v) => out.push(v.as_str()),
                Expr::Call(_, a) | Expr::Neg(a) => stack.push(a),
                Expr::Bin(_, a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                _ => {}
            }
        }
        out
    }

    /// The height of the expression tree: 1 for a literal, a name or a variable; one more for
    /// every operator, unary minus or call above it. Computed with an explicit stack, so any
    /// height can be measured; [`Program::check`] refuses heights above [`MAX_EXPR_DEPTH`].
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((e, d)) = stack.pop() {
            deepest = deepest.max(d);
            match e {
                Expr::Call(_, a) | Expr::Neg(a) => stack.push((a, d + 1)),
                Expr::Bin(_, a, b) => {
                    stack.push((a, d + 1));
                    stack.push((b, d + 1));
                }
                _ => {}
            }
        }
        deepest
    }
}

/// The deepest expression a program may hold (see [`Expr::depth`]), and the deepest nesting of
/// parentheses, unary minus and calls the parser follows.
///
/// Evaluation, comparison, cloning and `Debug` of an [`Expr`] recurse over its tree, so the
/// tree's height must be bounded for a hostile `.cla` file not to overflow the stack (printing,
/// [`Expr::depth`] and dropping use explicit stacks and work at any height). A
/// left-leaning chain `1 + 1 + … + 1` of n terms has height n, so it is refused from 257 terms
/// on, with the file, line and column of the operator that crosses the limit (docs/cla.md §8).
/// Real programs use a handful of levels.
pub const MAX_EXPR_DEPTH: usize = 256;

/// The most index variables a line family may have (`ack[t,s]` has 2). Lines are keyed by their
/// index tuples, so the bound keeps every key small; real programs use one or two.
pub const MAX_INDEX_VARS: usize = 16;

impl fmt::Display for Expr {
    /// `((me * 2) + 1)`: every binary operation in parentheses. Printed with an explicit stack,
    /// so an expression of any height prints without recursion.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        enum Piece<'a> {
            Expr(&'a Expr),
            Text(&'static str),
        }
        let mut stack = vec![Piece::Expr(self)];
        while let Some(piece) = stack.pop() {
            let e = match piece {
                Piece::Text(t) => {
                    f.write_str(t)?;
                    continue;
                }
                Piece::Expr(e) => e,
            };
            match e {
                Expr::Int(i) => write!(f, "{i}")?,
                Expr::Me => f.write_str("me")?,
                Expr::Parent => f.write_str("parent")?,
                Expr::Socket => f.write_str("socket")?,
                Expr::Domain => f.write_str("domain")?,
                Expr::Group => f.write_str("group")?,
                Expr::NChildren => f.write_str("nchildren")?,
                Expr::NThreads => f.write_str("nthreads")?,
                Expr::Rank => f.write_str("rank")?,
                Expr::Var(v) => f.write_str(v)?,
                Expr::Call(func, a) => {
                    f.write_str(match func {
                        Func::ChildrenOn => "children_on(",
                        Func::SocketOf => "socket_of(",
                        Func::ChildrenIn => "children_in(",
                        Func::DomainOf => "domain_of(",
                        Func::ChildrenInGroup => "children_in_group(",
                        Func::GroupOf => "group_of(",
                    })?;
                    stack.push(Piece::Text(")"));
                    stack.push(Piece::Expr(a));
                }
                Expr::Bin(op, a, b) => {
                    f.write_str("(")?;
                    stack.push(Piece::Text(")"));
                    stack.push(Piece::Expr(b));
                    stack.push(Piece::Text(match op {
                        BinOp::Add => " + ",
                        BinOp::Sub => " - ",
                        BinOp::Mul => " * ",
                        BinOp::Div => " / ",
                        BinOp::Rem => " % ",
                    }));
                    stack.push(Piece::Expr(a));
                }
                Expr::Neg(a) => {
                    f.write_str("-")?;
                    stack.push(Piece::Expr(a));
                }
            }
        }
        Ok(())
    }
}

impl Expr {
    fn has_children(&self) -> bool {
        matches!(self, Expr::Call(..) | Expr::Bin(..) | Expr::Neg(..))
    }

    /// Move the children that have children of their own onto `stack`, leaving literals.
    fn detach_children(&mut self, stack: &mut Vec<Expr>) {
        let mut detach = |child: &mut Box<Expr>| {
            if child.has_children() {
                stack.push(std::mem::replace(&mut **child, Expr::Int(0)));
            }
        };
        match self {
            Expr::Call(_, a) | Expr::Neg(a) => detach(a),
            Expr::Bin(_, a, b) => {
                detach(a);
                detach(b);
            }
            _ => {}
        }
    }
}

impl Drop for Expr {
    /// Dropping a boxed tree recurses once per level; a tree built in code (the parser refuses
    /// trees taller than [`MAX_EXPR_DEPTH`]) may be of any height, so its inner nodes are
    /// detached onto a heap stack first and dropped one by one.
    fn drop(&mut self) {
        if !self.has_children() {
            return;
        }
        let mut stack = Vec::new();
        self.detach_children(&mut stack);
        while let Some(mut e) = stack.pop() {
            e.detach_children(&mut stack);
        }
    }
}

/// One index of a line reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Index {
    /// A computed index.
    At(Expr),
    /// `*`: every instantiated line with the other indices (copy sources only).
    All,
}

/// A reference to a line of a family: `note[parent]`, `ack[me,s]`, `slot[me,*]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineRef {
    /// The family name.
    pub family: String,
    /// One index per variable of the family.
    pub indices: Vec<Index>,
}

impl LineRef {
    /// A reference with computed indices.
    pub fn new<const N: usize>(family: &str, indices: [Expr; N]) -> Self {
        LineRef {
            family: family.to_string(),
            indices: indices.into_iter().map(Index::At).collect(),
        }
    }

    /// A reference whose last index is `*`.
    pub fn all<const N: usize>(family: &str, first: [Expr; N]) -> Self {
        let mut r = LineRef::new(family, first);
        r.indices.push(Index::All);
        r
    }

    fn has_all(&self) -> bool {
        self.indices.iter().any(|i| matches!(i, Index::All))
    }
}

impl fmt::Display for LineRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.family)?;
        if !self.indices.is_empty() {
            let parts: Vec<String> = self
                .indices
                .iter()
                .map(|i| match i {
                    Index::At(e) => e.to_string(),
                    Index::All => "*".into(),
                })
                .collect();
            write!(f, "[{}]", parts.join(","))?;
        }
        Ok(())
    }
}

/// Comparison of `cl_wait`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `==` (the paper's default `eq`).
    Eq,
    /// `>=`.
    Ge,
}

/// The CLa operations of seed 001 §3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpKind {
    /// `cl_copy(src, dst, N)`.
    Copy {
        /// Source line(s).
        src: LineRef,
        /// Destination line.
        dst: LineRef,
        /// N, lines copied (default 1, or the number of lines `*` matches).
        lines: Option<Expr>,
    },
    /// `cl_wait(line, val, comp)`.
    Wait {
        /// Polled line.
        line: LineRef,
        /// Comparison.
        cmp: Cmp,
        /// Value waited for.
        value: Expr,
    },
    /// `cl_write(line, val)`.
    Write {
        /// Written line.
        line: LineRef,
        /// Value.
        value: Expr,
    },
    /// `cl_add(line, val)`.
    Add {
        /// Line.
        line: LineRef,
        /// Increment.
        value: Expr,
    },
}

/// What a loop iterates over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoopSet {
    /// My children, in tree order.
    Children,
    /// The sockets my children run on, ascending.
    ChildSockets,
    /// The L3 domains my children run in, ascending (numbered as `domain`).
    ChildDomains,
    /// The synchronization groups of my children, ascending (numbered as `group`).
    ChildGroups,
    /// `a..b`, half-open, ascending.
    Range(Expr, Expr),
}

/// Where an operation was written (1-based), for errors and output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Pos {
    /// Line.
    pub line: usize,
    /// Column.
    pub column: usize,
}

/// One operation line of a role block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Op {
    /// What it does.
    pub kind: OpKind,
    /// `for VAR in SET:` prefix.
    pub each: Option<(String, LoopSet)>,
    /// Where it was written (zero for built programs).
    pub pos: Pos,
}

impl Op {
    fn of(kind: OpKind) -> Op {
        Op {
            kind,
            each: None,
            pos: Pos::default(),
        }
    }

    /// `copy src -> dst` of one line (or of every line `*` matches).
    pub fn copy(src: LineRef, dst: LineRef) -> Op {
        Op::of(OpKind::Copy {
            src,
            dst,
            lines: None,
        })
    }

    /// `copy src -> dst N`.
    pub fn copy_lines(src: LineRef, dst: LineRef, lines: Expr) -> Op {
        Op::of(OpKind::Copy {
            src,
            dst,
            lines: Some(lines),
        })
    }

    /// `wait line == value` / `wait line >= value`.
    pub fn wait(line: LineRef, cmp: Cmp, value: Expr) -> Op {
        Op::of(OpKind::Wait { line, cmp, value })
    }

    /// `write line value`.
    pub fn write(line: LineRef, value: Expr) -> Op {
        Op::of(OpKind::Write { line, value })
    }

    /// `add line value`.
    pub fn add(line: LineRef, value: Expr) -> Op {
        Op::of(OpKind::Add { line, value })
    }

    /// The same op repeated for every `var` in `set`.
    pub fn for_each(mut self, var: &str, set: LoopSet) -> Op {
        self.each = Some((var.to_string(), set));
        self
    }

    /// The op's mnemonic.
    pub fn mnemonic(&self) -> &'static str {
        match self.kind {
            OpKind::Copy { .. } => "copy",
            OpKind::Wait { .. } => "wait",
            OpKind::Write { .. } => "write",
            OpKind::Add { .. } => "add",
        }
    }
}

impl fmt::Display for OpKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpKind::Copy { src, dst, lines } => {
                write!(f, "copy {src} -> {dst}")?;
                if let Some(n) = lines {
                    write!(f, " {n}")?;
                }
                Ok(())
            }
            OpKind::Wait { line, cmp, value } => {
                let c = match cmp {
                    Cmp::Eq => "==",
                    Cmp::Ge => ">=",
                };
                write!(f, "wait {line} {c} {value}")
            }
            OpKind::Write { line, value } => write!(f, "write {line} {value}"),
            OpKind::Add { line, value } => write!(f, "add {line} {value}"),
        }
    }
}

/// Where the lines of a family start (rule 1: flags start in memory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Initial {
    /// In memory, homed on the socket of the thread the expression names.
    MemoryOfThread(Expr),
    /// In memory of the socket the expression names.
    MemoryOfSocket(Expr),
    /// In memory of the socket of the L3 domain the expression names (numbered as `domain`).
    MemoryOfDomain(Expr),
    /// In memory of the socket of the synchronization group the expression names.
    MemoryOfGroup(Expr),
    /// In the cache of the thread the expression names, exclusive (a private buffer).
    CacheOfThread(Expr),
}

/// A family of lines: `line note[t] memory thread=t`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineFamily {
    /// Name.
    pub name: String,
    /// Index variables.
    pub vars: Vec<String>,
    /// Initial location, in terms of the index variables.
    pub initial: Initial,
    /// Where it was declared.
    pub pos: Pos,
}

/// Ops that run in threads of the given roles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// Roles the block applies to.
    pub roles: Vec<Role>,
    /// Its ops, in order.
    pub ops: Vec<Op>,
    /// Where the block starts.
    pub pos: Pos,
}

/// A CLa program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// Name from the `cla` header.
    pub name: String,
    /// Where it was read from (`models/x.cla`, or `builder`).
    pub origin: String,
    /// Line families.
    pub lines: Vec<LineFamily>,
    /// Role blocks, in order: a thread runs every block naming its role, in this order.
    pub blocks: Vec<Block>,
}

impl Program {
    /// Start building a program without the text format.
    pub fn builder(name: &str) -> ProgramBuilder {
        ProgramBuilder {
            program: Program {
                name: name.to_string(),
                origin: "builder".into(),
                lines: Vec::new(),
                blocks: Vec::new(),
            },
        }
    }

    /// The family named `name`.
    pub fn family(&self, name: &str) -> Option<&LineFamily> {
        self.lines.iter().find(|l| l.name == name)
    }

    /// The same program with every position cleared (to compare a parsed and a built program).
    pub fn without_positions(&self) -> Program {
        let mut p = self.clone();
        p.origin = String::new();
        for l in &mut p.lines {
            l.pos = Pos::default();
        }
        for b in &mut p.blocks {
            b.pos = Pos::default();
            for op in &mut b.ops {
                op.pos = Pos::default();
            }
        }
        p
    }

    /// The computed indices of a line reference.
    fn index_exprs(r: &LineRef) -> impl Iterator<Item = &Expr> {
        r.indices.iter().filter_map(|i| match i {
            Index::At(e) => Some(e),
            Index::All => None,
        })
    }

    /// Every expression of the program with the position of its declaration or op.
    fn expressions(&self) -> Vec<(Pos, &Expr)> {
        let mut out = Vec::new();
        for l in &self.lines {
            match &l.initial {
                Initial::MemoryOfThread(e)
                | Initial::MemoryOfSocket(e)
                | Initial::MemoryOfDomain(e)
                | Initial::MemoryOfGroup(e)
                | Initial::CacheOfThread(e) => out.push((l.pos, e)),
            }
        }
        for op in self.blocks.iter().flat_map(|b| &b.ops) {
            if let Some((_, LoopSet::Range(a, b))) = &op.each {
                out.push((op.pos, a));
                out.push((op.pos, b));
            }
            let mut exprs = Vec::new();
            match &op.kind {
                OpKind::Copy { src, dst, lines } => {
                    exprs.extend(Self::index_exprs(src));
                    exprs.extend(Self::index_exprs(dst));
                    exprs.extend(lines);
                }
                OpKind::Wait { line, value, .. }
                | OpKind::Write { line, value }
                | OpKind::Add { line, value } => {
                    exprs.extend(Self::index_exprs(line));
                    exprs.push(value);
                }
            }
            out.extend(exprs.into_iter().map(|e| (op.pos, e)));
        }
        out
    }

    /// Refuse expressions deeper than [`MAX_EXPR_DEPTH`] (a built program can hold any tree; a
    /// parsed one is refused by the parser already, at the exact column).
    fn check_depths(&self) -> Result<(), ParseError> {
        for (pos, e) in self.expressions() {
            let depth = e.depth();
            if depth > MAX_EXPR_DEPTH {
                return Err(ParseError {
                    origin: self.origin.clone(),
                    line: pos.line,
                    column: pos.column,
                    message: format!(
                        "expression {depth} levels deep; at most {MAX_EXPR_DEPTH} are allowed"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Check names, arities, variables and expression depths; positions in errors come from the
    /// ops.
    pub fn check(&self) -> Result<(), ParseError> {
        let err = |pos: Pos, message: String| ParseError {
            origin: self.origin.clone(),
            line: pos.line,
            column: pos.column,
            message,
        };
        self.check_depths()?;
        // Family name -> declaration, built once (a program may declare many families).
        let mut families: std::collections::HashMap<&str, &LineFamily> =
            std::collections::HashMap::with_capacity(self.lines.len());
        for l in &self.lines {
            if families.insert(l.name.as_str(), l).is_some() {
                return Err(err(
                    l.pos,
                    format!("line family `{}` is declared twice", clip(&l.name)),
                ));
            }
            if l.vars.len() > MAX_INDEX_VARS {
                return Err(err(
                    l.pos,
                    format!(
                        "line family `{}` has {} index variables; at most {MAX_INDEX_VARS} are allowed",
                        clip(&l.name),
                        l.vars.len()
                    ),
                ));
            }
            let expr = match &l.initial {
                Initial::MemoryOfThread(e)
                | Initial::MemoryOfSocket(e)
                | Initial::MemoryOfDomain(e)
                | Initial::MemoryOfGroup(e)
                | Initial::CacheOfThread(e) => e,
            };
            for v in expr.vars() {
                if !l.vars.iter().any(|x| x == v) {
                    return Err(err(
                        l.pos,
                        format!(
                            "`{}` is not an index variable of `{}` (it has: {})",
                            clip(v),
                            clip(&l.name),
                            clip(&l.vars.join(", "))
                        ),
                    ));
                }
            }
        }
        for b in &self.blocks {
            if b.roles.is_empty() {
                return Err(err(b.pos, "a role block names at least one role".into()));
            }
            for op in &b.ops {
                let bound: Vec<&str> = op.each.iter().map(|(v, _)| v.as_str()).collect();
                let check_expr = |e: &Expr| -> Result<(), ParseError> {
                    for v in e.vars() {
                        if !bound.contains(&v) {
                            return Err(err(
                                op.pos,
                                format!("unknown name `{}` (built-ins: me, parent, socket, nchildren, nthreads, rank; or a `for` variable)", clip(v)),
                            ));
                        }
                    }
                    Ok(())
                };
                if let Some((_, LoopSet::Range(a, b))) = &op.each {
                    for e in [a, b] {
                        if let Some(v) = e.vars().first() {
                            return Err(err(
                                op.pos,
                                format!("unknown name `{}` in a loop range", clip(v)),
                            ));
                        }
                    }
                }
                let check_ref = |r: &LineRef, all_ok: bool| -> Result<(), ParseError> {
                    let fam = families.get(r.family.as_str()).ok_or_else(|| {
                        let known: Vec<&str> = self.lines.iter().map(|l| l.name.as_str()).collect();
                        err(
                            op.pos,
                            format!(
                                "unknown line family `{}` (declared: {})",
                                clip(&r.family),
                                if known.is_empty() {
                                    "none".to_string()
                                } else {
                                    clip(&known.join(", "))
                                }
                            ),
                        )
                    })?;
                    if fam.vars.len() != r.indices.len() {
                        return Err(err(
                            op.pos,
                            format!(
                                "`{}` takes {} index(es), got {}",
                                clip(&r.family),
                                fam.vars.len(),
                                r.indices.len()
                            ),
                        ));
                    }
                    if r.has_all() && !all_ok {
                        return Err(err(
                            op.pos,
                            "`*` may only index the source of a copy".into(),
                        ));
                    }
                    for i in &r.indices {
                        if let Index::At(e) = i {
                            check_expr(e)?;
                        }
                    }
                    Ok(())
                };
                match &op.kind {
                    OpKind::Copy { src, dst, lines } => {
                        check_ref(src, true)?;
                        check_ref(dst, false)?;
                        if let Some(n) = lines {
                            check_expr(n)?;
                        }
                    }
                    OpKind::Wait { line, value, .. }
                    | OpKind::Write { line, value }
                    | OpKind::Add { line, value } => {
                        check_ref(line, false)?;
                        check_expr(value)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Builds a [`Program`] op by op; [`ProgramBuilder::build`] checks it like the parser does.
#[derive(Debug, Clone)]
pub struct ProgramBuilder {
    program: Program,
}

impl ProgramBuilder {
    /// Declare a line family.
    pub fn line(mut self, name: &str, vars: &[&str], initial: Initial) -> Self {
        self.program.lines.push(LineFamily {
            name: name.to_string(),
            vars: vars.iter().map(|v| v.to_string()).collect(),
            initial,
            pos: Pos::default(),
        });
        self
    }

    /// Start a block for these roles.
    pub fn role(mut self, roles: &[Role]) -> Self {
        self.program.blocks.push(Block {
            roles: roles.to_vec(),
            ops: Vec::new(),
            pos: Pos::default(),
        });
        self
    }

    /// Append an op to the current block (a block for every role is opened if none is).
    pub fn op(mut self, op: Op) -> Self {
        if self.program.blocks.is_empty() {
            self = self.role(&[Role::Root, Role::Inner, Role::Leaf]);
        }
        if let Some(b) = self.program.blocks.last_mut() {
            b.ops.push(op);
        }
        self
    }

    /// The checked program.
    pub fn build(self) -> Result<Program, ParseError> {
        self.program.check()?;
        Ok(self.program)
    }
}

/// The one-line broadcast of seed 001 Figure 1, built with the API (the same program as
/// `models/one-line-bcast.cla`).
pub fn one_line_broadcast() -> Result<Program, ParseError> {
    let note = |e: Expr| LineRef::new("note", [e]);
    let buf = |e: Expr| LineRef::new("buf", [e]);
    Program::builder("one-line-bcast")
        .line("note", &["t"], Initial::MemoryOfThread(Expr::var("t")))
        .line("ack", &["t", "g"], Initial::MemoryOfGroup(Expr::var("g")))
        .line("buf", &["t"], Initial::CacheOfThread(Expr::var("t")))
        .role(&[Role::Inner, Role::Leaf])
        .op(Op::wait(note(Expr::Parent), Cmp::Eq, Expr::Int(1)))
        .op(Op::copy(note(Expr::Parent), buf(Expr::Me)))
        .role(&[Role::Root, Role::Inner])
        .op(Op::copy(buf(Expr::Me), note(Expr::Me)))
        .op(Op::write(note(Expr::Me), Expr::Int(1)))
        .op(Op::wait(
            LineRef::new("ack", [Expr::Me, Expr::var("g")]),
            Cmp::Eq,
            Expr::Call(Func::ChildrenInGroup, Box::new(Expr::var("g"))),
        )
        .for_each("g", LoopSet::ChildGroups))
        .role(&[Role::Inner, Role::Leaf])
        .op(Op::add(
            LineRef::new("ack", [Expr::Parent, Expr::Group]),
            Expr::Int(1),
        ))
        .build()
}
