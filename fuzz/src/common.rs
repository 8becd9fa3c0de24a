//! Input decoding and simple references shared by the fuzz targets, and the targets over shaped
//! alone. The references follow the wording of RULES.md, index by index, with no cleverness:
//! they are what a result is checked against, not only "it did not crash".

use shaped::{AutoBroadcast, BinaryOp};

/// The bodies of the fuzz targets, one module each. The `#[path]`s let the main crate's
/// `tests/fuzz_replay.rs` include this file as a module and replay every saved input on stable.
pub mod targets {
    #[path = "binary_primitive.rs"]
    pub mod binary_primitive;
    #[path = "blocked_layouts.rs"]
    pub mod blocked_layouts;
    #[path = "broadcast_shapes.rs"]
    pub mod broadcast_shapes;
    #[path = "broadcast_to.rs"]
    pub mod broadcast_to;
    #[path = "casts.rs"]
    pub mod casts;
    #[path = "conv.rs"]
    pub mod conv;
    #[path = "dyn_tensor.rs"]
    pub mod dyn_tensor;
    #[path = "gather.rs"]
    pub mod gather;
    #[path = "partial_shapes.rs"]
    pub mod partial_shapes;
    #[path = "products.rs"]
    pub mod products;
    #[path = "range_pad.rs"]
    pub mod range_pad;
    #[path = "reductions.rs"]
    pub mod reductions;
    #[path = "shape_ops.rs"]
    pub mod shape_ops;
    #[path = "slicing.rs"]
    pub mod slicing;
    #[path = "strided_kernels.rs"]
    pub mod strided_kernels;
}

/// Reads the fuzzer's bytes as small numbers; past the end everything reads as 0.
pub struct Input<'a> {
    data: &'a [u8],
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data }
    }

    pub fn byte(&mut self) -> u8 {
        match self.data.split_first() {
            Some((&b, rest)) => {
                self.data = rest;
                b
            }
            None => 0,
        }
    }

    pub fn below(&mut self, n: usize) -> usize {
        self.byte() as usize % n.max(1)
    }

    pub fn i64(&mut self) -> i64 {
        let mut v = 0u64;
        for _ in 0..8 {
            v = (v << 8) | self.byte() as u64;
        }
        v as i64
    }

    /// A dim: mostly 0-3 (where the rules have their edges), sometimes a size that overflows.
    pub fn dim(&mut self, huge: bool) -> usize {
        let b = self.byte();
        match b % 32 {
            0..=27 => (b % 4) as usize,
            28 => 5,
            29 if huge => usize::MAX,
            30 if huge => 1 << (usize::BITS / 2),
            31 if huge => usize::MAX / 2 + 1,
            _ => 7,
        }
    }

    /// A shape of rank up to `max_rank`; now and then (when `huge`) one past the runtime
    /// rank limit.
    pub fn shape(&mut self, max_rank: usize, huge: bool) -> Vec<usize> {
        let r = self.byte();
        let rank = if huge && r == 255 {
            shaped::rules::MAX_RANK + 1
        } else {
            r as usize % (max_rank + 1)
        };
        (0..rank).map(|_| self.dim(huge)).collect()
    }

    /// An axis: -1, small, negative, or extreme.
    pub fn axis(&mut self) -> i64 {
        match self.below(8) {
            0 | 1 => -1,
            2..=5 => self.below(6) as i64,
            6 => -(self.below(4) as i64) - 2,
            _ => self.i64(),
        }
    }

    pub fn mode(&mut self) -> AutoBroadcast {
        match self.below(4) {
            0 => AutoBroadcast::None,
            1 => AutoBroadcast::Numpy,
            2 => AutoBroadcast::Pdpd { axis: self.axis() },
            _ => AutoBroadcast::Bidirectional,
        }
    }

    pub fn binary_op(&mut self) -> BinaryOp {
        const OPS: [BinaryOp; 10] = [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Div,
            BinaryOp::Maximum,
            BinaryOp::Minimum,
            BinaryOp::Pow,
            BinaryOp::SquaredDifference,
            BinaryOp::Rem,
            BinaryOp::FloorMod,
        ];
        OPS[self.below(OPS.len())]
    }
}

/// The NUMPY per-dim rule (P2, P5): equal, or one side 1 (1 with 0 gives 0).
pub fn numpy_dim(a: usize, b: usize) -> Option<usize> {
    if a == b {
        Some(a)
    } else if a == 1 {
        Some(b)
    } else if b == 1 {
        Some(a)
    } else {
        None
    }
}

/// Where B's dims sit in the output: `Some(offset)` means B dim `i` is output axis `offset + i`
/// (dims past the output, PDPD's trimmed 1s, are never read).
pub struct Reference {
    pub out: Vec<usize>,
    pub a_at: usize,
    pub b_at: usize,
}

/// The elementwise modes by RULES.md's text (sections 1-4).
pub fn reference_shape(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Option<Reference> {
    match mode {
        AutoBroadcast::None => (a == b).then(|| Reference {
            out: a.to_vec(),
            a_at: 0,
            b_at: 0,
        }),
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => {
            let rank = a.len().max(b.len());
            let pad = |s: &[usize]| {
                let mut v = vec![1; rank - s.len()];
                v.extend_from_slice(s);
                v
            };
            let (pa, pb) = (pad(a), pad(b));
            let out = pa
                .iter()
                .zip(&pb)
                .map(|(&x, &y)| numpy_dim(x, y))
                .collect::<Option<Vec<_>>>()?;
            Some(Reference {
                out,
                a_at: rank - a.len(),
                b_at: rank - b.len(),
            })
        }
        AutoBroadcast::Pdpd { axis } => {
            // D1: B's rank (untrimmed) at most A's; D2: -1 is rank_a - rank_b, other
            // negatives are errors; D3: trailing 1s of B trimmed; D4: B fits at the axis;
            // each B dim equals A's there or is 1; the output is A.
            if b.len() > a.len() {
                return None;
            }
            let start = if axis == -1 {
                a.len() - b.len()
            } else if axis < 0 {
                return None;
            } else {
                usize::try_from(axis).unwrap_or(usize::MAX)
            };
            let keep = b.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1);
            if start > a.len() - keep {
                return None;
            }
            for i in 0..keep {
                if b[i] != 1 && b[i] != a[start + i] {
                    return None;
                }
            }
            Some(Reference {
                out: a.to_vec(),
                a_at: 0,
                b_at: start,
            })
        }
    }
}

/// Axis `axis` of a rank-`rank` shape by numpy's rule (negative from the end), or `None`.
pub fn resolve(axis: i64, rank: usize) -> Option<usize> {
    let a = if axis < 0 {
        axis.checked_add(rank as i64)?
    } else {
        axis
    };
    (0..rank as i64).contains(&a).then_some(a as usize)
}

/// Every multi-index of `dims`, row-major.
pub fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = dims.iter().product();
    (0..total)
        .map(|mut flat| {
            let mut idx = vec![0; dims.len()];
            for d in (0..dims.len()).rev() {
                idx[d] = flat % dims[d];
                flat /= dims[d];
            }
            idx
        })
        .collect()
}

/// The row-major offset of input `dims` placed at output axis `at`, read at output index
/// `out_index` (size-1 dims stretch; dims past the output read index 0).
pub fn read_offset(dims: &[usize], at: usize, out_index: &[usize]) -> usize {
    let mut offset = 0;
    for (i, &n) in dims.iter().enumerate() {
        let j = at + i;
        let idx = if n == 1 || j >= out_index.len() {
            0
        } else {
            out_index[j]
        };
        offset = offset * n + idx;
    }
    offset
}

/// The element count: 0 with a zero dim, but the non-zero dims must multiply without
/// overflow (`None` otherwise), whatever their order.
pub fn count(dims: &[usize]) -> Option<usize> {
    let nonzero = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
    Some(if dims.contains(&0) { 0 } else { nonzero })
}

/// A tensor of `shape` whose elements are their own row-major positions (`0, 1, 2, ...`, so
/// each output element says where it was read), when `shape` has at most `max` elements; the
/// targets that move data build their input so.
pub fn positions(shape: &[usize], max: usize) -> Option<shaped::DynTensor<i64>> {
    let n = count(shape).filter(|&n| n <= max)?;
    Some(shaped::DynTensor::from_shape_vec(shape, (0..n as i64).collect()).unwrap())
}

/// Small element counts only: the targets that touch data keep buffers tiny.
pub fn small(dims: &[usize], max: usize) -> bool {
    // Zero-size shapes with huge other dims are not small: building them is an overflow.
    dims.iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d.max(1)))
        .is_some_and(|n| n <= max)
}

/// The Broadcast op (B5) by its text: each data dim's output axis, or `None` when the mode
/// rejects the pair. The output is always the target.
pub fn reference_to(
    data: &[usize],
    target: &[usize],
    mode: shaped::BroadcastToMode<'_>,
) -> Option<Vec<usize>> {
    use shaped::BroadcastToMode;
    let axes: Vec<usize> = match mode {
        BroadcastToMode::Numpy => {
            if data.len() > target.len() {
                return None;
            }
            let pad = target.len() - data.len();
            (0..data.len()).map(|i| pad + i).collect()
        }
        BroadcastToMode::Explicit { axes_mapping } => {
            // B5: a scalar with a non-empty mapping counts as rank 1 (shape [1]).
            if data.is_empty() && !axes_mapping.is_empty() {
                return reference_to(&[1], target, mode).map(|_| Vec::new());
            }
            if axes_mapping.len() != data.len()
                || axes_mapping.windows(2).any(|w| w[0] >= w[1])
                || axes_mapping.iter().any(|&a| a >= target.len())
            {
                return None;
            }
            axes_mapping.to_vec()
        }
        BroadcastToMode::Pdpd { axis } => {
            let r = reference_shape(target, data, shaped::AutoBroadcast::Pdpd { axis })?;
            // Trimmed trailing 1s may fall past the target; they are never read.
            (0..data.len()).map(|i| r.b_at + i).collect()
        }
        BroadcastToMode::Bidirectional => unreachable!("checked through reference_shape"),
    };
    let fits = data
        .iter()
        .zip(&axes)
        .all(|(&d, &ax)| d == 1 || target.get(ax) == Some(&d));
    fits.then_some(axes)
}
