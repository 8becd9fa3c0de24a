//! Plans the activation memory: one arena holding every intermediate tensor, each at an offset
//! chosen so that tensors alive at the same time never share bytes.
//!
//! A tensor lives from the operator that writes it to the last operator that reads it
//! (inclusive: an operator reads its inputs while writing its outputs, so an output never
//! shares bytes with an input of the same operator). Placement is TFLM's greedy scheme —
//! largest first, each at the lowest aligned offset where it overlaps nothing alive at the same
//! time — run for a few orders, keeping the smallest arena. RESHAPE moves no data, so its
//! output takes its input's bytes when nothing reads the input afterwards.

use std::fmt;

use crate::model::{DType, Model, Op};
use crate::{Error, ErrorKind, Location};

/// Which tensors the arena holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlanOptions {
    /// Place the model's inputs and outputs in the arena too (alive from the start and to the
    /// end), as TFLM does. By default they are the caller's buffers and the arena holds only
    /// the intermediate tensors.
    pub include_io: bool,
}

/// Where one tensor lives in the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The tensor (index into [`Model::tensors`]).
    pub tensor: usize,
    /// Byte offset in the arena; a multiple of 4 (16 for float32 tensors).
    pub offset: usize,
    /// Size in bytes.
    pub size: usize,
    /// The first operator during which the tensor is alive (the one that writes it; 0 for a
    /// model input).
    pub first_op: usize,
    /// The last operator during which it is alive (the last that reads it; the last operator
    /// for a model output).
    pub last_op: usize,
    /// For a RESHAPE output that shares its input's bytes: the tensor whose bytes these are
    /// (the first of the chain of reshapes).
    pub alias_of: Option<usize>,
}

/// An arena plan: every planned tensor's offset, and the arena's size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Bytes the arena needs (the end of the highest placed tensor).
    pub arena_size: usize,
    /// One entry per planned tensor, in tensor index order.
    pub placements: Vec<Placement>,
    /// The options the plan was made with.
    pub options: PlanOptions,
}

/// A buffer to place: a tensor, or a chain of reshapes sharing one tensor's bytes.
#[derive(Clone, Copy, Debug)]
struct Buffer {
    size: usize,
    align: usize,
    first: usize,
    last: usize,
}

impl Plan {
    /// Plans the arena for the model's intermediate tensors (see [`PlanOptions`]).
    pub fn new(model: &Model) -> Result<Plan, Error> {
        Plan::with_options(model, PlanOptions::default())
    }

    /// Plans the arena with the given options.
    ///
    /// The only error is an arena larger than `usize` can count (a model whose tensors each
    /// fit but not together).
    pub fn with_options(model: &Model, options: PlanOptions) -> Result<Plan, Error> {
        let n = model.tensors.len();
        let ops = model.operators.len();
        let last_op = ops.saturating_sub(1);
        let is_input = |t: usize| model.inputs.contains(&t);
        let is_output = |t: usize| model.outputs.contains(&t);
        // A RESHAPE of a model input the caller holds (or of such a reshape) is that input's
        // bytes: the arena holds none of it. The input is never written, so every reader may
        // share it.
        let mut of_input = vec![false; n];
        if !options.include_io {
            for op in &model.operators {
                if let (Op::Reshape { .. }, Some(x), Some(&y)) =
                    (&op.op, op.input(0), op.outputs.first())
                {
                    if (is_input(x) || of_input[x]) && !is_output(y) {
                        of_input[y] = true;
                    }
                }
            }
        }
        let planned = |t: usize| {
            !model.tensors[t].is_constant()
                && !of_input[t]
                && (options.include_io || !(is_input(t) || is_output(t)))
        };

        // Lifetimes: [first, last] in operator indices; None for tensors no operator touches.
        let mut life: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut touch = |t: usize, i: usize| {
            life[t] = Some(match life[t] {
                None => (i, i),
                Some((a, b)) => (a.min(i), b.max(i)),
            })
        };
        for op in &model.operators {
            for t in op.read_tensors().chain(op.outputs.iter().copied()) {
                touch(t, op.index);
            }
        }
        if options.include_io {
            for &t in &model.inputs {
                touch(t, 0);
            }
            for &t in &model.outputs {
                touch(t, last_op);
            }
        }

        // RESHAPE aliases: the output joins its input's group when the input is read by
        // nothing after the reshape (and is not a model output, whose bytes must survive).
        let mut root: Vec<usize> = (0..n).collect();
        for op in &model.operators {
            let (Op::Reshape { .. }, Some(x), Some(&y)) = (&op.op, op.input(0), op.outputs.first())
            else {
                continue;
            };
            let r = root[x];
            let x_done = life[x].is_some_and(|(_, last)| last == op.index) && !is_output(x);
            if planned(x) && planned(y) && x_done && life[r].is_some() {
                root[y] = r;
            }
        }

        // One buffer per group, alive from its first tensor's write to its last tensor's read.
        let mut group: Vec<Option<Buffer>> = vec![None; n];
        for t in (0..n).filter(|&t| planned(t)) {
            let Some((first, last)) = life[t] else {
                continue;
            };
            let tensor = &model.tensors[t];
            let align = if tensor.dtype == DType::Float32 {
                16
            } else {
                4
            };
            let b = group[root[t]].get_or_insert(Buffer {
                size: 0,
                align,
                first,
                last,
            });
            b.size = b.size.max(tensor.byte_size());
            b.align = b.align.max(align);
            b.first = b.first.min(first);
            b.last = b.last.max(last);
        }
        let buffers: Vec<(usize, Buffer)> = group
            .iter()
            .enumerate()
            .filter_map(|(t, b)| b.map(|b| (t, b)))
            .collect();

        let overflow = || {
            Error::new(
                &model.file,
                Location::Model,
                ErrorKind::Invalid,
                "the activation arena's size overflows",
            )
        };
        let (offsets, arena_size) = best_placement(&buffers).ok_or_else(overflow)?;

        let mut placements = Vec::new();
        for t in (0..n).filter(|&t| planned(t)) {
            let Some((first_op, last_op)) = life[t] else {
                continue;
            };
            let r = root[t];
            let k = buffers.partition_point(|&(b, _)| b < r);
            placements.push(Placement {
                tensor: t,
                offset: offsets[k],
                size: model.tensors[t].byte_size(),
                first_op,
                last_op,
                alias_of: (r != t).then_some(r),
            });
        }
        Ok(Plan {
            arena_size,
            placements,
            options,
        })
    }

    /// The placement of tensor `t`, if the plan holds it.
    pub fn placement(&self, t: usize) -> Option<&Placement> {
        self.placements
            .binary_search_by_key(&t, |p| p.tensor)
            .ok()
            .map(|k| &self.placements[k])
    }

    /// Checks the plan's promises against the model: offsets aligned, every tensor inside the
    /// arena, and no two tensors alive at the same time sharing a byte unless one is a RESHAPE
    /// alias of the other. The tests and the fuzz target run it on every plan.
    pub fn verify(&self, model: &Model) -> Result<(), String> {
        let group = |p: &Placement| p.alias_of.unwrap_or(p.tensor);
        for p in &self.placements {
            let dtype = model
                .tensors
                .get(p.tensor)
                .map(|t| t.dtype)
                .ok_or("tensor out of range")?;
            let align = if dtype == DType::Float32 { 16 } else { 4 };
            if p.offset % align != 0 {
                return Err(format!(
                    "tensor {} at offset {} is not {align}-aligned",
                    p.tensor, p.offset
                ));
            }
            if p.offset
                .checked_add(p.size)
                .is_none_or(|end| end > self.arena_size)
            {
                return Err(format!("tensor {} ends past the arena", p.tensor));
            }
        }
        for (i, a) in self.placements.iter().enumerate() {
            for b in &self.placements[i + 1..] {
                let alive_together = a.first_op <= b.last_op && b.first_op <= a.last_op;
                let share_bytes = a.offset < b.offset + b.size && b.offset < a.offset + a.size;
                if alive_together && share_bytes && group(a) != group(b) {
                    return Err(format!(
                        "tensors {} and {} overlap while both alive",
                        a.tensor, b.tensor
                    ));
                }
            }
        }
        Ok(())
    }

    /// A readable account of the plan, one line per tensor (offset, size, lifetime, alias),
    /// for the documentation of generated code.
    pub fn report<'a>(&'a self, model: &'a Model) -> Report<'a> {
        Report { plan: self, model }
    }
}

/// The plan as text: see [`Plan::report`].
#[derive(Clone, Copy, Debug)]
pub struct Report<'a> {
    plan: &'a Plan,
    model: &'a Model,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let plan = self.plan;
        let what = if plan.options.include_io {
            "tensors, model inputs and outputs included"
        } else {
            "intermediate tensors"
        };
        writeln!(
            f,
            "arena: {} bytes for {} {what}",
            plan.arena_size,
            plan.placements.len()
        )?;
        for p in &plan.placements {
            let t = &self.model.tensors[p.tensor];
            let ops = format!("{}..={}", p.first_op, p.last_op);
            write!(
                f,
                "tensor {:>4}: offset {:>8}, {:>8} bytes, ops {ops:<10} {}",
                p.tensor, p.offset, p.size, t.name
            )?;
            if let Some(r) = p.alias_of {
                write!(f, " (RESHAPE: tensor {r}'s bytes)")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Greedy placement in several orders; the offsets (indexed like `buffers`) and arena size of
/// the smallest. `None` if an offset would overflow.
fn best_placement(buffers: &[(usize, Buffer)]) -> Option<(Vec<usize>, usize)> {
    let by_size = |b: &Buffer| (std::cmp::Reverse(b.size), b.first);
    let mut orders: Vec<Vec<usize>> = Vec::new();
    let mut order: Vec<usize> = (0..buffers.len()).collect();
    // TFLM's order: largest first.
    order.sort_by_key(|&k| by_size(&buffers[k].1));
    orders.push(order.clone());
    // Largest area (size times lifetime) first: long-lived buffers settle low.
    order.sort_by_key(|&k| {
        let b = &buffers[k].1;
        std::cmp::Reverse(b.size.saturating_mul(b.last - b.first + 1))
    });
    orders.push(order.clone());
    // In order of first use, largest first among those starting together.
    order.sort_by_key(|&k| (buffers[k].1.first, by_size(&buffers[k].1)));
    orders.push(order);

    let mut best: Option<(Vec<usize>, usize)> = None;
    for order in orders {
        let placed = place(buffers, &order)?;
        if best.as_ref().is_none_or(|b| placed.1 < b.1) {
            best = Some(placed);
        }
    }
    best.or(Some((Vec::new(), 0)))
}

/// Places buffers in `order`, each at the lowest aligned offset that overlaps no placed buffer
/// alive at the same time.
fn place(buffers: &[(usize, Buffer)], order: &[usize]) -> Option<(Vec<usize>, usize)> {
    let mut offsets = vec![0usize; buffers.len()];
    let mut done: Vec<usize> = Vec::new();
    let mut arena = 0usize;
    for &k in order {
        let b = buffers[k].1;
        // Placed buffers alive at the same time, by offset.
        let mut busy: Vec<(usize, usize)> = done
            .iter()
            .map(|&j| (j, buffers[j].1))
            .filter(|(_, c)| c.first <= b.last && b.first <= c.last && c.size > 0)
            .map(|(j, c)| (offsets[j], offsets[j] + c.size))
            .collect();
        busy.sort_unstable();
        let mut at = 0usize;
        for (start, end) in busy {
            if at.checked_add(b.size)? <= start {
                break;
            }
            at = at.max(end.checked_next_multiple_of(b.align)?);
        }
        offsets[k] = at;
        arena = arena.max(at.checked_add(b.size)?);
        done.push(k);
    }
    Some((offsets, arena))
}
