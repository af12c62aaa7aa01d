//! A program instantiated for one tree on one machine: concrete threads, concrete lines, and the
//! operation sequence of every thread.

use crate::error::{clip, GraphError};
use crate::program::*;
use modelopt_model::ccnuma::tree::RootedTree;
use modelopt_model::ccnuma::{Ccnuma, Place, SyncLine};
use std::collections::{BTreeMap, HashMap};

/// The most concrete operations an instance may have, over all threads. Loops multiply a
/// program's ops (`for i in 0..1000000: ...` in every thread), and the graph's analyses are
/// polynomial in its size, so a bound keeps memory and time in check; the bundled programs on
/// the largest bundled machine need a few hundred.
pub const MAX_INSTANCE_OPS: usize = 100_000;

/// The most lines all `*` copy sources of an instance may look at together (each scans the
/// lines of its family).
pub const MAX_STAR_SCAN: usize = 1_000_000;

/// Index of a concrete line.
pub type LineId = usize;

/// Where a concrete line starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineStart {
    /// In memory homed on this socket.
    Memory {
        /// Home socket.
        home: u32,
    },
    /// Exclusive in this thread's cache.
    Cache {
        /// Owner thread.
        thread: u32,
    },
}

/// A concrete line.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LineInfo {
    /// Its name, e.g. `ack[0,1]`.
    pub name: String,
    /// Initial location.
    pub start: LineStart,
}

/// A thread of the instance.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ThreadInfo {
    /// Thread id (tree node).
    pub id: u32,
    /// Role in the tree.
    pub role: Role,
    /// Where it runs.
    #[serde(serialize_with = "ser_place")]
    pub place: Place,
    /// Parent thread.
    pub parent: Option<u32>,
    /// Children threads.
    pub children: Vec<u32>,
}

fn ser_place<S: serde::Serializer>(p: &Place, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut m = s.serialize_map(Some(3))?;
    m.serialize_entry("socket", &p.socket)?;
    m.serialize_entry("core", &p.core)?;
    m.serialize_entry("hw", &p.hw)?;
    m.end()
}

/// A concrete operation.
#[derive(Debug, Clone, PartialEq)]
pub enum InstKind {
    /// Copy `lines` lines from `src` (one block, or one line each when several) into `dst`.
    Copy {
        /// Source lines.
        src: Vec<LineId>,
        /// Destination line (block).
        dst: LineId,
        /// N.
        lines: u32,
    },
    /// Poll until the comparison holds.
    Wait {
        /// Line.
        line: LineId,
        /// Comparison.
        cmp: Cmp,
        /// Value.
        value: i64,
    },
    /// Set the flag word.
    Write {
        /// Line.
        line: LineId,
        /// Value.
        value: i64,
    },
    /// Add to the flag word.
    Add {
        /// Line.
        line: LineId,
        /// Increment.
        value: i64,
    },
}

impl InstKind {
    /// Lines read (copy sources, polled and added lines).
    pub fn reads(&self) -> Vec<LineId> {
        match self {
            InstKind::Copy { src, .. } => src.clone(),
            InstKind::Wait { line, .. } | InstKind::Add { line, .. } => vec![*line],
            InstKind::Write { .. } => vec![],
        }
    }

    /// The line written, if any.
    pub fn writes(&self) -> Option<LineId> {
        match self {
            InstKind::Copy { dst, .. } => Some(*dst),
            InstKind::Write { line, .. } | InstKind::Add { line, .. } => Some(*line),
            InstKind::Wait { .. } => None,
        }
    }

    /// Every line touched.
    pub fn touches(&self, line: LineId) -> bool {
        self.reads().contains(&line) || self.writes() == Some(line)
    }
}

/// One operation of one thread.
#[derive(Debug, Clone, PartialEq)]
pub struct InstOp {
    /// What it does.
    pub kind: InstKind,
    /// The op with concrete line names, e.g. `wait note[0] == 1`.
    pub text: String,
    /// Where it is written in the program.
    pub pos: Pos,
}

/// A program instantiated for a tree and a placement.
#[derive(Debug, Clone)]
pub struct Instance {
    /// Program name.
    pub program: String,
    /// Program origin (file).
    pub origin: String,
    /// Threads, by id.
    pub threads: Vec<ThreadInfo>,
    /// Concrete lines.
    pub lines: Vec<LineInfo>,
    /// Operations of every thread.
    pub ops: Vec<Vec<InstOp>>,
}

struct Ctx<'a> {
    tree: &'a RootedTree,
    places: &'a [Place],
    /// L3 domains per socket, for `domain` and its functions.
    domains_per_socket: u32,
    /// Whether a synchronization group is an L3 domain (else a socket).
    sync_domains: bool,
    me: u32,
    vars: Vec<(String, i64)>,
}

impl Ctx<'_> {
    /// The synchronization group of thread `t`: its socket or its L3 domain.
    fn group(&self, t: u32) -> i64 {
        if self.sync_domains {
            self.domain(t)
        } else {
            self.places[t as usize].socket.into()
        }
    }

    /// The L3 domain of thread `t`, numbered across sockets.
    fn domain(&self, t: u32) -> i64 {
        let p = self.places[t as usize];
        i64::from(p.socket) * i64::from(self.domains_per_socket) + i64::from(p.domain)
    }

    fn eval(&self, e: &Expr) -> Result<i64, String> {
        let n = self.tree.len() as i64;
        Ok(match e {
            Expr::Int(i) => *i,
            Expr::Me => self.me.into(),
            Expr::Parent => {
                self.tree.parent(self.me).map(i64::from).ok_or_else(|| {
                    format!("`parent` is undefined: thread {} is the root", self.me)
                })?
            }
            Expr::Socket => self.places[self.me as usize].socket.into(),
            Expr::Domain => self.domain(self.me),
            Expr::Group => self.group(self.me),
            Expr::NChildren => self.tree.children(self.me).len() as i64,
            Expr::NThreads => n,
            Expr::Rank => {
                let p = self.tree.parent(self.me).ok_or_else(|| {
                    format!("`rank` is undefined: thread {} is the root", self.me)
                })?;
                self.tree
                    .children(p)
                    .iter()
                    .position(|&c| c == self.me)
                    .unwrap_or(0) as i64
            }
            Expr::Var(v) => self
                .vars
                .iter()
                .rev()
                .find(|(name, _)| name == v)
                .map(|(_, value)| *value)
                .ok_or_else(|| format!("unbound name `{v}`"))?,
            Expr::Call(Func::ChildrenOn, arg) => {
                let s = self.eval(arg)?;
                self.tree
                    .children(self.me)
                    .iter()
                    .filter(|&&c| i64::from(self.places[c as usize].socket) == s)
                    .count() as i64
            }
            Expr::Call(Func::ChildrenIn, arg) => {
                let d = self.eval(arg)?;
                self.tree
                    .children(self.me)
                    .iter()
                    .filter(|&&c| self.domain(c) == d)
                    .count() as i64
            }
            Expr::Call(Func::ChildrenInGroup, arg) => {
                let g = self.eval(arg)?;
                self.tree
                    .children(self.me)
                    .iter()
                    .filter(|&&c| self.group(c) == g)
                    .count() as i64
            }
            Expr::Call(Func::GroupOf, arg) => {
                let t = self.eval(arg)?;
                if t < 0 || t >= n {
                    return Err(format!("group_of({t}): no such thread (0..{n})"));
                }
                self.group(t as u32)
            }
            Expr::Call(Func::DomainOf, arg) => {
                let t = self.eval(arg)?;
                if t < 0 || t >= n {
                    return Err(format!("domain_of({t}): no such thread (0..{n})"));
                }
                self.domain(t as u32)
            }
            Expr::Call(Func::SocketOf, arg) => {
                let t = self.eval(arg)?;
                if t < 0 || t >= n {
                    return Err(format!("socket_of({t}): no such thread (0..{n})"));
                }
                self.places[t as usize].socket.into()
            }
            Expr::Neg(a) => self
                .eval(a)?
                .checked_neg()
                .ok_or_else(|| "integer overflow".to_string())?,
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                let r = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div | BinOp::Rem if y == 0 => {
                        return Err(format!("division by zero in `{}`", clip(&e.to_string())))
                    }
                    BinOp::Div => x.checked_div(y),
                    BinOp::Rem => x.checked_rem(y),
                };
                r.ok_or_else(|| format!("integer overflow in `{}`", clip(&e.to_string())))?
            }
        })
    }
}

enum Pending {
    Done(InstKind),
    /// A copy whose source has a `*`: resolved once every other line exists.
    CopyAll {
        family: usize,
        pattern: Vec<Option<i64>>,
        dst: LineId,
        lines: Option<i64>,
    },
}

struct Lines {
    by_key: BTreeMap<(usize, Vec<i64>), LineId>,
    info: Vec<LineInfo>,
    /// Family name -> index in `program.lines`.
    families: HashMap<String, usize>,
    /// Sockets of the machine (homes must be below).
    sockets: u32,
    /// L3 domains per socket (1 when a socket is one domain).
    domains_per_socket: u32,
    /// Whether a synchronization group is an L3 domain (`topology.sync_line = "domain"`).
    sync_domains: bool,
    /// The machine's name, for errors.
    machine: String,
}

impl Lines {
    fn family(&self, name: &str) -> Result<usize, String> {
        self.families
            .get(name)
            .copied()
            .ok_or_else(|| format!("unknown line family `{}`", clip(name)))
    }
}

/// Instantiate `program` for `tree` on `machine` with thread i at `places[i]`.
///
/// The program is checked first ([`Program::check`]: names, arities, expression depths), so a
/// program assembled by hand is held to the parser's limits. Errors name the op (file, line,
/// column) and the thread: an expression that fails for that thread, a line homed on a socket or
/// a thread the machine does not have, more than [`MAX_INSTANCE_OPS`] operations.
pub fn instantiate(
    program: &Program,
    tree: &RootedTree,
    machine: &Ccnuma,
    places: &[Place],
) -> Result<Instance, GraphError> {
    program.check()?;
    let n = tree.len();
    if places.len() != n {
        return Err(GraphError::Threads(format!(
            "the tree has {n} nodes but {} thread places were given",
            places.len()
        )));
    }
    let sockets = machine.topology.sockets;
    if let Some((t, p)) = places.iter().enumerate().find(|(_, p)| p.socket >= sockets) {
        return Err(GraphError::Threads(format!(
            "thread {t} is placed on socket {}, but {} has sockets 0..{sockets}",
            p.socket, machine.name
        )));
    }
    let threads: Vec<ThreadInfo> = (0..n as u32)
        .map(|t| ThreadInfo {
            id: t,
            role: match (tree.parent(t), tree.children(t).is_empty()) {
                (None, _) => Role::Root,
                (Some(_), false) => Role::Inner,
                (Some(_), true) => Role::Leaf,
            },
            place: places[t as usize],
            parent: tree.parent(t),
            children: tree.children(t).to_vec(),
        })
        .collect();
    let mut lines = Lines {
        by_key: BTreeMap::new(),
        info: Vec::new(),
        families: program
            .lines
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.clone(), i))
            .collect(),
        sockets,
        domains_per_socket: machine.topology.domains_per_socket.max(1),
        sync_domains: machine.topology.sync_line == SyncLine::Domain,
        machine: machine.name.clone(),
    };
    let mut total_ops = 0usize;
    let mut pending: Vec<Vec<(Pending, String, Pos)>> = Vec::with_capacity(n);
    for info in &threads {
        let mut ctx = Ctx {
            tree,
            places,
            domains_per_socket: lines.domains_per_socket,
            sync_domains: lines.sync_domains,
            me: info.id,
            vars: Vec::new(),
        };
        let mut out = Vec::new();
        for block in program
            .blocks
            .iter()
            .filter(|b| b.roles.contains(&info.role))
        {
            for op in &block.ops {
                let fail = |message: String| GraphError::Eval {
                    origin: program.origin.clone(),
                    line: op.pos.line,
                    column: op.pos.column,
                    thread: info.id,
                    message,
                };
                let values: Vec<Option<i64>> = match &op.each {
                    None => vec![None],
                    Some((_, set)) => match set {
                        LoopSet::Children => tree
                            .children(info.id)
                            .iter()
                            .map(|&c| Some(c.into()))
                            .collect(),
                        LoopSet::ChildSockets => {
                            let mut s: Vec<i64> = tree
                                .children(info.id)
                                .iter()
                                .map(|&c| places[c as usize].socket.into())
                                .collect();
                            s.sort_unstable();
                            s.dedup();
                            s.into_iter().map(Some).collect()
                        }
                        LoopSet::ChildGroups => {
                            let mut g: Vec<i64> = tree
                                .children(info.id)
                                .iter()
                                .map(|&c| ctx.group(c))
                                .collect();
                            g.sort_unstable();
                            g.dedup();
                            g.into_iter().map(Some).collect()
                        }
                        LoopSet::ChildDomains => {
                            let mut d: Vec<i64> = tree
                                .children(info.id)
                                .iter()
                                .map(|&c| ctx.domain(c))
                                .collect();
                            d.sort_unstable();
                            d.dedup();
                            d.into_iter().map(Some).collect()
                        }
                        LoopSet::Range(a, b) => {
                            let lo = ctx.eval(a).map_err(fail)?;
                            let hi = ctx.eval(b).map_err(fail)?;
                            let len = hi.saturating_sub(lo);
                            if len > (MAX_INSTANCE_OPS - total_ops) as i64 {
                                return Err(fail(format!(
                                    "loop range {lo}..{hi} has {len} values; with the {total_ops} \
                                     operations before it the instance would exceed \
                                     {MAX_INSTANCE_OPS} operations"
                                )));
                            }
                            (lo..hi).map(Some).collect()
                        }
                    },
                };
                total_ops += values.len();
                if total_ops > MAX_INSTANCE_OPS {
                    return Err(fail(format!(
                        "the instance has more than {MAX_INSTANCE_OPS} operations (at thread {} \
                         of {n})",
                        info.id
                    )));
                }
                for value in values {
                    if let (Some(v), Some((name, _))) = (value, &op.each) {
                        ctx.vars.push((name.clone(), v));
                    }
                    let item =
                        instantiate_op(program, &ctx, op, &mut lines, places).map_err(fail)?;
                    if value.is_some() {
                        ctx.vars.pop();
                    }
                    out.push((item.0, item.1, op.pos));
                }
            }
        }
        pending.push(out);
    }
    // Resolve `*` sources now that every line exists.
    let mut ops = Vec::with_capacity(n);
    let mut scanned = 0usize;
    for (t, list) in pending.into_iter().enumerate() {
        let mut thread_ops = Vec::with_capacity(list.len());
        for (p, text, pos) in list {
            let kind = match p {
                Pending::Done(kind) => kind,
                Pending::CopyAll {
                    family,
                    pattern,
                    dst,
                    lines: count,
                } => {
                    // Only this family's lines are scanned; the scans of all `*` copies
                    // together are bounded, so a program cannot make this quadratic.
                    let mut src: Vec<LineId> = Vec::new();
                    for ((_, idx), &id) in lines
                        .by_key
                        .range((family, Vec::new())..(family + 1, Vec::new()))
                    {
                        scanned += 1;
                        if scanned > MAX_STAR_SCAN {
                            return Err(GraphError::Eval {
                                origin: program.origin.clone(),
                                line: pos.line,
                                column: pos.column,
                                thread: t as u32,
                                message: format!(
                                    "`{text}`: the `*` copies look at more than {MAX_STAR_SCAN} \
                                     lines in total"
                                ),
                            });
                        }
                        if idx.len() == pattern.len()
                            && idx
                                .iter()
                                .zip(&pattern)
                                .all(|(i, p)| p.is_none_or(|p| p == *i))
                        {
                            src.push(id);
                        }
                    }
                    if src.is_empty() {
                        return Err(GraphError::Eval {
                            origin: program.origin.clone(),
                            line: pos.line,
                            column: pos.column,
                            thread: t as u32,
                            message: format!("`{text}`: the `*` matches no line"),
                        });
                    }
                    let k = src.len() as u32;
                    let lines = match count {
                        None => k,
                        Some(c) if c == i64::from(k) => k,
                        Some(c) => {
                            return Err(GraphError::Eval {
                                origin: program.origin.clone(),
                                line: pos.line,
                                column: pos.column,
                                thread: t as u32,
                                message: format!(
                                    "`{text}`: asks for {c} lines but `*` matches {k}"
                                ),
                            })
                        }
                    };
                    InstKind::Copy { src, dst, lines }
                }
            };
            thread_ops.push(InstOp { kind, text, pos });
        }
        ops.push(thread_ops);
    }
    Ok(Instance {
        program: program.name.clone(),
        origin: program.origin.clone(),
        threads,
        lines: lines.info,
        ops,
    })
}

fn intern(
    program: &Program,
    lines: &mut Lines,
    family: usize,
    idx: Vec<i64>,
    tree: &RootedTree,
    places: &[Place],
) -> Result<LineId, String> {
    if let Some(&id) = lines.by_key.get(&(family, idx.clone())) {
        return Ok(id);
    }
    let fam = &program.lines[family];
    let line_name = || {
        let parts: Vec<String> = idx.iter().map(i64::to_string).collect();
        format!(
            "line `{}[{}]` (family declared at line {})",
            clip(&fam.name),
            parts.join(","),
            fam.pos.line
        )
    };
    let ctx = Ctx {
        tree,
        places,
        domains_per_socket: lines.domains_per_socket,
        sync_domains: lines.sync_domains,
        me: 0,
        vars: fam.vars.iter().cloned().zip(idx.iter().copied()).collect(),
    };
    let thread_of = |e: &Expr| -> Result<u32, String> {
        let t = ctx.eval(e)?;
        if t < 0 || t >= places.len() as i64 {
            return Err(format!(
                "{}: thread {t} does not exist (threads 0..{})",
                line_name(),
                places.len()
            ));
        }
        Ok(t as u32)
    };
    let home_socket = |e: &Expr| -> Result<LineStart, String> {
        let s = ctx.eval(e)?;
        let home = u32::try_from(s)
            .ok()
            .filter(|&h| h < lines.sockets)
            .ok_or_else(|| {
                format!(
                    "{}: socket {s} does not exist ({} has sockets 0..{})",
                    line_name(),
                    lines.machine,
                    lines.sockets
                )
            })?;
        Ok(LineStart::Memory { home })
    };
    let start = match &fam.initial {
        Initial::MemoryOfThread(e) => LineStart::Memory {
            home: places[thread_of(e)? as usize].socket,
        },
        Initial::MemoryOfSocket(e) => home_socket(e)?,
        Initial::MemoryOfGroup(e) if !lines.sync_domains => home_socket(e)?,
        Initial::MemoryOfDomain(e) | Initial::MemoryOfGroup(e) => {
            let d = ctx.eval(e)?;
            let domains = i64::from(lines.sockets) * i64::from(lines.domains_per_socket);
            if d < 0 || d >= domains {
                return Err(format!(
                    "{}: L3 domain {d} does not exist ({} has domains 0..{domains})",
                    line_name(),
                    lines.machine
                ));
            }
            LineStart::Memory {
                home: (d / i64::from(lines.domains_per_socket)) as u32,
            }
        }
        Initial::CacheOfThread(e) => LineStart::Cache {
            thread: thread_of(e)?,
        },
    };
    let name = if idx.is_empty() {
        fam.name.clone()
    } else {
        let parts: Vec<String> = idx.iter().map(i64::to_string).collect();
        format!("{}[{}]", fam.name, parts.join(","))
    };
    let id = lines.info.len();
    lines.info.push(LineInfo { name, start });
    lines.by_key.insert((family, idx), id);
    Ok(id)
}

fn resolve(
    program: &Program,
    ctx: &Ctx<'_>,
    r: &LineRef,
    lines: &mut Lines,
    places: &[Place],
) -> Result<LineId, String> {
    let family = lines.family(&r.family)?;
    let mut idx = Vec::with_capacity(r.indices.len());
    for i in &r.indices {
        match i {
            Index::At(e) => idx.push(ctx.eval(e)?),
            Index::All => return Err("`*` outside a copy source".into()),
        }
    }
    intern(program, lines, family, idx, ctx.tree, places)
}

fn instantiate_op(
    program: &Program,
    ctx: &Ctx<'_>,
    op: &Op,
    lines: &mut Lines,
    places: &[Place],
) -> Result<(Pending, String), String> {
    let name = |lines: &Lines, id: LineId| lines.info[id].name.clone();
    Ok(match &op.kind {
        OpKind::Copy {
            src,
            dst,
            lines: count,
        } => {
            let d = resolve(program, ctx, dst, lines, places)?;
            let n = count.as_ref().map(|e| ctx.eval(e)).transpose()?;
            if let Some(n) = n {
                if !(1..=1_000_000).contains(&n) {
                    return Err(format!("a copy moves 1 to 1000000 lines (got {n})"));
                }
            }
            if src.indices.iter().any(|i| matches!(i, Index::All)) {
                let family = lines.family(&src.family)?;
                let mut pattern = Vec::new();
                let mut shown = Vec::new();
                for i in &src.indices {
                    match i {
                        Index::At(e) => {
                            let v = ctx.eval(e)?;
                            pattern.push(Some(v));
                            shown.push(v.to_string());
                        }
                        Index::All => {
                            pattern.push(None);
                            shown.push("*".into());
                        }
                    }
                }
                let text = format!(
                    "copy {}[{}] -> {}",
                    src.family,
                    shown.join(","),
                    name(lines, d)
                );
                (
                    Pending::CopyAll {
                        family,
                        pattern,
                        dst: d,
                        lines: n,
                    },
                    text,
                )
            } else {
                let s = resolve(program, ctx, src, lines, places)?;
                let n = n.unwrap_or(1) as u32;
                let mut text = format!("copy {} -> {}", name(lines, s), name(lines, d));
                if n != 1 {
                    text.push_str(&format!(" {n}"));
                }
                (
                    Pending::Done(InstKind::Copy {
                        src: vec![s],
                        dst: d,
                        lines: n,
                    }),
                    text,
                )
            }
        }
        OpKind::Wait { line, cmp, value } => {
            let l = resolve(program, ctx, line, lines, places)?;
            let v = ctx.eval(value)?;
            let c = match cmp {
                Cmp::Eq => "==",
                Cmp::Ge => ">=",
            };
            (
                Pending::Done(InstKind::Wait {
                    line: l,
                    cmp: *cmp,
                    value: v,
                }),
                format!("wait {} {c} {v}", name(lines, l)),
            )
        }
        OpKind::Write { line, value } => {
            let l = resolve(program, ctx, line, lines, places)?;
            let v = ctx.eval(value)?;
            (
                Pending::Done(InstKind::Write { line: l, value: v }),
                format!("write {} {v}", name(lines, l)),
            )
        }
        OpKind::Add { line, value } => {
            let l = resolve(program, ctx, line, lines, places)?;
            let v = ctx.eval(value)?;
            (
                Pending::Done(InstKind::Add { line: l, value: v }),
                format!("add {} {v}", name(lines, l)),
            )
        }
    })
}
