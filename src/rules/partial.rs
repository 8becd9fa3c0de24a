//! Shape inference with dynamic dims (RULES.md section 6): a dim is an interval `[lo, hi]`, `hi`
//! possibly unbounded, and a shape may have a dynamic rank.
//!
//! * I1 / N4: NONE merges each pair by intersection; an empty one is an error.
//! * I2: NUMPY and Bidirectional use `broadcast_merge` (below), an optimistic rule.
//! * I3: a dynamic rank on either side gives a dynamic rank (NUMPY, PDPD); NONE merges ranks,
//!   so a dynamic rank takes the other side's.
//! * D11: PDPD checks "B must be 1 or equal to A" only when both dims are static; otherwise
//!   `broadcast_merge` writes into A's dim.
//! * I5: a dim may carry a [`Symbol`]; dims with one symbol are equal, and the merges carry
//!   symbols through.
//! * I6-I8: the Broadcast op's `numpy`, `explicit` and `pdpd` modes on partial shapes, with a
//!   target whose values (a shape of `-1` dims) or length (a dynamic rank) are unknown
//!   ([`broadcast_to_partial`]).
//! * I9: the axes an input was stretched along, or that it cannot be told yet
//!   ([`stretched_axes_partial`], [`stretched_axes_to_partial`]).
//!
//! The static rules are the special case of one-point intervals; a test checks that
//! [`broadcast_partial`] agrees with [`broadcast_shapes`](crate::broadcast_shapes) there.

use core::fmt;
use core::num::NonZeroU32;

use super::stretch::AxisSet;
use super::{AutoBroadcast, BroadcastToMode, Placement, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};
pub use crate::interval::Interval;

/// A symbol on a dynamic dim (I5, OpenVINO's dim symbols): two dims with the same symbol are
/// equal, whatever value they take at run time. Symbols are numbers the caller hands out.
///
/// ```
/// use shaped::rules::partial::{broadcast_partial, Interval, PartialShape, Symbol};
/// use shaped::AutoBroadcast;
/// let batch = Symbol::new(1).unwrap();
/// let a = PartialShape::new(&[Interval::DYNAMIC, Interval::fixed(3)])
///     .unwrap()
///     .with_symbols(&[Some(batch), None])
///     .unwrap();
/// let bias = PartialShape::fixed(&[1, 3]).unwrap();
/// let out = broadcast_partial(&a, &bias, AutoBroadcast::Numpy).unwrap();
/// // The output's first dim is the data's: same symbol.
/// assert_eq!(out.symbol(0), Some(batch));
/// assert_eq!(out.to_string(), "{-1#1,3}");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symbol(NonZeroU32);

impl Symbol {
    /// The symbol numbered `id`, or `None` for 0.
    pub const fn new(id: u32) -> Option<Symbol> {
        match NonZeroU32::new(id) {
            Some(n) => Some(Symbol(n)),
            None => None,
        }
    }

    /// Its number.
    pub const fn id(self) -> u32 {
        self.0.get()
    }
}

/// A shape whose rank may be unknown and whose dims are intervals (up to
/// [`MAX_RANK`] dims), each possibly with a [`Symbol`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PartialShape {
    dims: [Interval; MAX_RANK],
    symbols: [Option<Symbol>; MAX_RANK],
    rank: Option<usize>,
}

impl PartialShape {
    /// A shape of unknown rank.
    pub const DYNAMIC_RANK: PartialShape = PartialShape {
        dims: [Interval::DYNAMIC; MAX_RANK],
        symbols: [None; MAX_RANK],
        rank: None,
    };

    /// A shape of known rank, or `None` above [`MAX_RANK`].
    pub fn new(dims: &[Interval]) -> Option<Self> {
        let mut out = PartialShape {
            rank: Some(dims.len()),
            ..PartialShape::DYNAMIC_RANK
        };
        out.dims.get_mut(..dims.len())?.copy_from_slice(dims);
        Some(out)
    }

    /// A fully static shape.
    pub fn fixed(dims: &[usize]) -> Option<Self> {
        let mut out = PartialShape {
            rank: Some(dims.len()),
            ..PartialShape::DYNAMIC_RANK
        };
        for (slot, &d) in out.dims.get_mut(..dims.len())?.iter_mut().zip(dims) {
            *slot = Interval::fixed(d);
        }
        Some(out)
    }

    /// `rank` dims of which nothing is known: a target whose length is known and whose
    /// values are not (I6-I8), or `None` above [`MAX_RANK`].
    pub fn dynamic(rank: usize) -> Option<Self> {
        (rank <= MAX_RANK).then_some(PartialShape {
            rank: Some(rank),
            ..PartialShape::DYNAMIC_RANK
        })
    }

    /// The same shape with a symbol (or none) per dim; `None` for a dynamic rank or a list
    /// of another length.
    pub fn with_symbols(mut self, symbols: &[Option<Symbol>]) -> Option<Self> {
        if self.rank? != symbols.len() {
            return None;
        }
        self.symbols[..symbols.len()].copy_from_slice(symbols);
        Some(self)
    }

    /// The dims, or `None` for a dynamic rank.
    pub fn dims(&self) -> Option<&[Interval]> {
        self.rank.map(|r| &self.dims[..r])
    }

    /// The dims' symbols, or `None` for a dynamic rank.
    pub fn symbols(&self) -> Option<&[Option<Symbol>]> {
        self.rank.map(|r| &self.symbols[..r])
    }

    /// The symbol of dim `axis`, if it has one.
    pub fn symbol(&self, axis: usize) -> Option<Symbol> {
        self.symbols().and_then(|s| s.get(axis).copied().flatten())
    }

    fn dim(&self, axis: usize) -> Dim {
        Dim {
            iv: self.dims[axis],
            sym: self.symbols[axis],
        }
    }

    fn set(&mut self, axis: usize, d: Dim) {
        self.dims[axis] = d.iv;
        self.symbols[axis] = d.sym;
    }
}

/// A dim with its symbol.
#[derive(Clone, Copy)]
struct Dim {
    iv: Interval,
    sym: Option<Symbol>,
}

impl Dim {
    const ONE: Dim = Dim {
        iv: Interval::fixed(1),
        sym: None,
    };

    /// Both carry one symbol: they are equal (I5).
    fn same_symbol(self, other: Dim) -> bool {
        self.sym.is_some() && self.sym == other.sym
    }

    /// I1 with symbols: the intersection; the two symbols are then known equal, and the
    /// result keeps the first's, or the second's when the first has none (OpenVINO's
    /// `Dimension::merge`, which makes them equal before `merge_symbols`).
    fn merge(self, other: Dim) -> Option<Dim> {
        Some(Dim {
            iv: self.iv.merge(other.iv)?,
            sym: self.sym.or(other.sym),
        })
    }

    /// I2 with symbols (I5): equal symbols are equal dims, so their intersection; otherwise
    /// the side that cannot be 1 with its symbol, or the hull of two that can, which keeps a
    /// symbol only when the two agree (or one has none), or when the hull is one value.
    fn broadcast_merge(self, other: Dim) -> Option<Dim> {
        if self.same_symbol(other) {
            return self.merge(other);
        }
        // A static 1 gives the other side as it is, symbol included (the hull below would be
        // the same interval, but could drop the symbol).
        match (self.iv.as_static(), other.iv.as_static()) {
            (Some(1), _) => return Some(other),
            (_, Some(1)) => return Some(self),
            _ => {}
        }
        match (self.iv.contains(1), other.iv.contains(1)) {
            (true, true) => {
                let iv = self.iv.broadcast_merge(other.iv)?;
                let sym = merge_symbols(self.sym, other.sym, iv.as_static().is_some());
                Some(Dim { iv, sym })
            }
            (true, false) => Some(other),
            (false, true) => Some(self),
            (false, false) => self.merge(other),
        }
    }
}

/// The symbol of a hull (I5): the left one when the two agree or the right has none; the
/// right one when the left has none, or when they differ and `unequal` allows it; else none
/// (OpenVINO's `merge_symbols`, without making the two equal).
fn merge_symbols(l: Option<Symbol>, r: Option<Symbol>, unequal: bool) -> Option<Symbol> {
    if l == r || r.is_none() {
        l
    } else if unequal || l.is_none() {
        r
    } else {
        None
    }
}

impl fmt::Debug for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.dims() {
            None => f.write_str("[...]"),
            Some(dims) => {
                f.write_str("{")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{d}")?;
                    if let Some(s) = self.symbols[i] {
                        write!(f, "#{}", s.id())?;
                    }
                }
                f.write_str("}")
            }
        }
    }
}

/// An error about partial shapes: they cannot be kept as numbers, so the error keeps their
/// ranks (`None` for a dynamic one) and, for a dim mismatch, the two intervals.
fn partial_error(
    kind: ErrorKind,
    op: Operation,
    a: Option<&[Interval]>,
    b: Option<&[Interval]>,
) -> Error {
    const ZEROS: [usize; MAX_RANK] = [0; MAX_RANK];
    let zeros = |d: &[Interval]| &ZEROS[..d.len()];
    Error::new_partial(kind, op, a.map(zeros), b.map(zeros))
}

/// Shape inference for an elementwise operation on partial shapes under `mode`.
///
/// ```
/// use shaped::rules::partial::{broadcast_partial, Interval, PartialShape};
/// use shaped::AutoBroadcast;
/// let a = PartialShape::new(&[Interval::new(1, 3).unwrap(), Interval::DYNAMIC]).unwrap();
/// let b = PartialShape::new(&[Interval::new(2, 7).unwrap(), Interval::fixed(2)]).unwrap();
/// let out = broadcast_partial(&a, &b, AutoBroadcast::Numpy).unwrap();
/// assert_eq!(out.to_string(), "{[2,7],2}");
/// ```
pub fn broadcast_partial(
    a: &PartialShape,
    b: &PartialShape,
    mode: AutoBroadcast,
) -> Result<PartialShape, Error> {
    let op = match mode {
        AutoBroadcast::None => Operation::None,
        AutoBroadcast::Numpy => Operation::Numpy,
        AutoBroadcast::Pdpd { axis } => Operation::Pdpd { axis },
        AutoBroadcast::Bidirectional => Operation::Bidirectional,
    };
    let (da, db) = match (a.dims(), b.dims()) {
        (Some(da), Some(db)) => (da, db),
        // I3: NONE takes the ranked side (both dynamic: dynamic).
        (None, _) if mode == AutoBroadcast::None => return Ok(*b),
        (_, None) if mode == AutoBroadcast::None => return Ok(*a),
        _ => return Ok(PartialShape::DYNAMIC_RANK),
    };
    match mode {
        AutoBroadcast::None => {
            if da.len() != db.len() {
                return Err(partial_error(
                    ErrorKind::RankMismatch,
                    op,
                    Some(da),
                    Some(db),
                ));
            }
            let mut out = *a;
            for (i, (&x, &y)) in da.iter().zip(db).enumerate() {
                let kind = ErrorKind::IntervalMismatch {
                    axis: i,
                    lhs: x,
                    rhs: y,
                };
                let merged = a.dim(i).merge(b.dim(i));
                out.set(
                    i,
                    merged.ok_or_else(|| partial_error(kind, op, Some(da), Some(db)))?,
                );
            }
            Ok(out)
        }
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => {
            let rank = da.len().max(db.len());
            let mut out = PartialShape {
                rank: Some(rank),
                ..PartialShape::DYNAMIC_RANK
            };
            let (pa, pb) = (rank - da.len(), rank - db.len());
            for axis in 0..rank {
                let x = if axis >= pa {
                    a.dim(axis - pa)
                } else {
                    Dim::ONE
                };
                let y = if axis >= pb {
                    b.dim(axis - pb)
                } else {
                    Dim::ONE
                };
                let kind = ErrorKind::IntervalMismatch {
                    axis,
                    lhs: x.iv,
                    rhs: y.iv,
                };
                let merged = x.broadcast_merge(y);
                out.set(
                    axis,
                    merged.ok_or_else(|| partial_error(kind, op, Some(da), Some(db)))?,
                );
            }
            Ok(out)
        }
        AutoBroadcast::Pdpd { axis } => pdpd_partial(a, b, axis, op, First::A),
    }
}

/// Whose symbol a PDPD merge keeps first (I5): A's in the elementwise mode, where OpenVINO
/// merges B into A; B's in the Broadcast op's `pdpd` mode, where B is the data and OpenVINO
/// merges the data's dim with the target's.
#[derive(Clone, Copy)]
enum First {
    A,
    B,
}

/// PDPD (D1-D11) on partial shapes of known ranks.
fn pdpd_partial(
    a: &PartialShape,
    b: &PartialShape,
    axis: i64,
    op: Operation,
    first: First,
) -> Result<PartialShape, Error> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(PartialShape::DYNAMIC_RANK);
    };
    let rank_error = |kind| partial_error(kind, op, Some(da), Some(db));
    if db.len() > da.len() {
        return Err(rank_error(ErrorKind::SecondRankTooLarge));
    }
    let start = super::resolve_axis(axis, da.len(), db.len())
        .ok_or_else(|| rank_error(ErrorKind::NegativeAxis))?;
    // D3: only static 1s are trimmed.
    let keep = db
        .iter()
        .rposition(|d| d.as_static() != Some(1))
        .map_or(0, |i| i + 1);
    let max = da.len() - keep;
    if start > max {
        return Err(rank_error(ErrorKind::AxisOutOfRange { max }));
    }
    let mut out = *a;
    for (i, &y) in db[..keep].iter().enumerate() {
        let x = da[start + i];
        let kind = ErrorKind::IntervalMismatch {
            axis: start + i,
            lhs: x,
            rhs: y,
        };
        let fail = || partial_error(kind, op, Some(da), Some(db));
        let (xd, yd) = (a.dim(start + i), b.dim(i));
        let (d1, d2) = match first {
            First::A => (xd, yd),
            First::B => (yd, xd),
        };
        let merged = match (x.as_static(), y.as_static()) {
            // D5 with static dims: B is 1 or equal; A never stretches. Equal dims merge
            // their symbols (I5); a 1 of B passes none on.
            (Some(xs), Some(ys)) if ys == xs && ys != 1 => d1.merge(d2).ok_or_else(fail)?,
            (Some(xs), Some(ys)) if ys == xs || ys == 1 => xd,
            (Some(_), Some(_)) => return Err(fail()),
            // D11: otherwise broadcast_merge writes into A's dim.
            _ => d1.broadcast_merge(d2).ok_or_else(fail)?,
        };
        out.set(start + i, merged);
    }
    Ok(out)
}

/// The Broadcast op on partial shapes (I6-I8; B5's modes, and B1 for `bidirectional`): `data`
/// to `target`, where a target whose values are unknown is [`PartialShape::dynamic`] of its
/// length, and one whose length is unknown is [`PartialShape::DYNAMIC_RANK`].
///
/// * `numpy` (I6): the result is the target. Errors: a target rank below the data's (both
///   known), and a pair of static dims where the data's is neither 1 nor the target's; dims
///   that are not both static are not compared (OpenVINO's rule).
/// * `explicit` (I7): the result is the target. The mapping is checked against what is known:
///   strictly increasing, one entry per data dim, each below the target's rank; a mapped data
///   dim must be able to be 1 or to equal the target's (their intervals meet).
/// * `pdpd` (I8): PDPD with (A, B) = (target, data), D11 included; a dynamic rank on either
///   side gives the target's rank of `-1` dims.
/// * `bidirectional`: [`broadcast_partial`] under `Bidirectional` (I2-I4).
///
/// ```
/// use shaped::rules::partial::{broadcast_to_partial, Interval, PartialShape};
/// use shaped::rules::BroadcastToMode;
/// let data = PartialShape::new(&[Interval::new(2, 4).unwrap(), Interval::fixed(3)]).unwrap();
/// // A target of three values not known yet.
/// let target = PartialShape::dynamic(3).unwrap();
/// let out = broadcast_to_partial(&data, &target, BroadcastToMode::Numpy).unwrap();
/// assert_eq!(out.to_string(), "{-1,-1,-1}");
/// // PDPD refines the target's unknown dim with the data's, which cannot be 1 (D11).
/// let pdpd = BroadcastToMode::Pdpd { axis: 1 };
/// let known = PartialShape::new(&[Interval::fixed(2), Interval::DYNAMIC, Interval::fixed(3)]).unwrap();
/// assert_eq!(broadcast_to_partial(&data, &known, pdpd).unwrap().to_string(), "{2,[2,4],3}");
/// ```
pub fn broadcast_to_partial(
    data: &PartialShape,
    target: &PartialShape,
    mode: BroadcastToMode<'_>,
) -> Result<PartialShape, Error> {
    let op = mode.operation();
    let (dd, dt) = (data.dims(), target.dims());
    let err = |kind| partial_error(kind, op, dd, dt);
    match mode {
        BroadcastToMode::Bidirectional => {
            broadcast_partial(data, target, AutoBroadcast::Bidirectional)
        }
        BroadcastToMode::Numpy => {
            if let (Some(dd), Some(dt)) = (dd, dt) {
                if dt.len() < dd.len() {
                    return Err(err(ErrorKind::TargetRankTooSmall));
                }
                let pad = dt.len() - dd.len();
                for (i, &x) in dd.iter().enumerate() {
                    let (xd, td) = (data.dim(i), target.dim(pad + i));
                    if let (Some(xs), Some(ts)) = (x.as_static(), td.iv.as_static()) {
                        if xs != 1 && xs != ts && !xd.same_symbol(td) {
                            let kind = ErrorKind::IntervalMismatch {
                                axis: pad + i,
                                lhs: x,
                                rhs: td.iv,
                            };
                            return Err(err(kind));
                        }
                    }
                }
            }
            Ok(*target)
        }
        BroadcastToMode::Explicit { axes_mapping } => {
            for (index, pair) in axes_mapping.windows(2).enumerate() {
                if pair[1] <= pair[0] {
                    return Err(err(ErrorKind::AxesMappingOrder { index: index + 1 }));
                }
            }
            mapping_length_fits(dd, axes_mapping.len()).map_err(err)?;
            if let Some(dt) = dt {
                for (index, &axis) in axes_mapping.iter().enumerate() {
                    if axis >= dt.len() {
                        return Err(err(ErrorKind::AxesMappingRange { index, axis }));
                    }
                    let Some(x) = dd.and_then(|dd| dd.get(index).copied()) else {
                        continue; // a scalar's [1], or a data rank not known yet
                    };
                    let (xd, td) = (data.dim(index), target.dim(axis));
                    let fits = x.contains(1) || x.merge(td.iv).is_some() || xd.same_symbol(td);
                    if !fits {
                        let kind = ErrorKind::IntervalMismatch {
                            axis,
                            lhs: x,
                            rhs: td.iv,
                        };
                        return Err(err(kind));
                    }
                }
            }
            Ok(*target)
        }
        BroadcastToMode::Pdpd { axis } => {
            let Some(dt) = dt else {
                return Ok(PartialShape::DYNAMIC_RANK);
            };
            if dd.is_none() {
                return Ok(PartialShape::dynamic(dt.len()).unwrap_or(PartialShape::DYNAMIC_RANK));
            }
            // PDPD's A is the target: the errors speak of (data, target), so sides swap back.
            pdpd_partial(target, data, axis, op, First::B).map_err(|e| {
                let kind = match e.kind() {
                    ErrorKind::IntervalMismatch { axis, lhs, rhs } => ErrorKind::IntervalMismatch {
                        axis,
                        lhs: rhs,
                        rhs: lhs,
                    },
                    ErrorKind::SecondRankTooLarge => ErrorKind::TargetRankTooSmall,
                    other => other,
                };
                err(kind)
            })
        }
    }
}

/// An `explicit` mapping of `len` entries against the data's dims, when they are known: one
/// entry per dim, a scalar with a non-empty mapping counting as `[1]` (B5).
fn mapping_length_fits(data: Option<&[Interval]>, len: usize) -> Result<(), ErrorKind> {
    let Some(dd) = data else {
        return Ok(());
    };
    let rank = if dd.is_empty() && len > 0 {
        1
    } else {
        dd.len()
    };
    if len == rank {
        Ok(())
    } else {
        Err(ErrorKind::AxesMappingLength { len, rank })
    }
}

/// What is known of an `explicit` Broadcast's `axes_mapping` on partial shapes (I7): its
/// values, only its length (a 1-D input of known shape whose values come at run time), or
/// nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialMapping<'a> {
    /// The values are known.
    Values(&'a [usize]),
    /// Only the number of entries is known.
    Length(usize),
    /// Nothing is known of it.
    Unknown,
}

/// The `explicit` Broadcast op on partial shapes when the mapping may not be known (I7):
/// with [`PartialMapping::Values`] it is [`broadcast_to_partial`]; otherwise the result is the
/// target, and the mapping's length is checked against what is known: it must be the data's
/// rank (a scalar with a non-empty mapping counts as `[1]`), and no longer than the target's
/// rank, as an increasing mapping into the target cannot be (A23).
///
/// ```
/// use shaped::rules::partial::{broadcast_explicit_partial, PartialMapping, PartialShape};
/// let data = PartialShape::fixed(&[4]).unwrap();
/// let target = PartialShape::fixed(&[1, 4, 2, 3]).unwrap();
/// // The mapping is an input whose values come at run time.
/// let out = broadcast_explicit_partial(&data, &target, PartialMapping::Unknown)?;
/// assert_eq!(out.to_string(), "{1,4,2,3}");
/// let e = broadcast_explicit_partial(&data, &target, PartialMapping::Length(2)).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot broadcast partial shapes of ranks 1 and 4 (broadcast_to explicit): \
///      axes_mapping has 2 entries, the data rank is 1"
/// );
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn broadcast_explicit_partial(
    data: &PartialShape,
    target: &PartialShape,
    mapping: PartialMapping<'_>,
) -> Result<PartialShape, Error> {
    let len = match mapping {
        PartialMapping::Values(axes_mapping) => {
            return broadcast_to_partial(data, target, BroadcastToMode::Explicit { axes_mapping });
        }
        PartialMapping::Length(len) => len,
        PartialMapping::Unknown => return Ok(*target),
    };
    let (dd, dt) = (data.dims(), target.dims());
    let op = Operation::BroadcastToExplicit;
    let err = |kind| partial_error(kind, op, dd, dt);
    mapping_length_fits(dd, len).map_err(err)?;
    if let Some(dt) = dt {
        if len > dt.len() {
            let rank = dt.len();
            return Err(err(ErrorKind::AxesMappingTooLong { len, rank }));
        }
    }
    Ok(*target)
}

/// What is known of the axes an input was stretched along on partial shapes (I9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartialAxes {
    /// Axes the input is surely stretched along.
    pub stretched: AxisSet,
    /// Axes where it cannot be told yet (its dim may be 1 or the output's).
    pub unknown: AxisSet,
    /// The output's rank, `None` when that is not known (then nothing is).
    pub rank: Option<usize>,
}

impl PartialAxes {
    const UNKNOWN_RANK: PartialAxes = PartialAxes {
        stretched: AxisSet::EMPTY,
        unknown: AxisSet::EMPTY,
        rank: None,
    };

    /// The stretched axes when every axis is decided (OpenVINO's `get_broadcast_axes` answering
    /// `true`), else `None`.
    pub fn known(&self) -> Option<AxisSet> {
        (self.rank.is_some() && self.unknown.is_empty()).then_some(self.stretched)
    }
}

/// One input dim against the output dim it lands on: stretched, not stretched, or unknown.
fn stretch_of(x: Dim, o: Dim) -> Option<bool> {
    if x.same_symbol(o) || !x.iv.contains(1) {
        return Some(false); // equal dims, or a dim that must equal the output's
    }
    match (x.iv.as_static(), o.iv.as_static()) {
        (Some(1), Some(1)) => Some(false),
        (Some(1), _) if !o.iv.contains(1) => Some(true),
        _ => None,
    }
}

/// Where PDPD places B (D2) once the shapes have passed its checks; with a rank not known
/// (nothing is told then) any start will do, and none may overflow.
fn pdpd_start(axis: i64, rank_a: usize, rank_b: usize) -> usize {
    match axis {
        -1 => rank_a.saturating_sub(rank_b),
        a => usize::try_from(a).unwrap_or(0),
    }
}

/// I9 for an input placed into `out` as `place` says: its dims from a start axis (no dim
/// elsewhere), or at the output axes of a mapping (the same placements as B6's).
fn stretched_in(input: &PartialShape, out: &PartialShape, place: Placement<'_>) -> PartialAxes {
    let Some(dout) = out.dims() else {
        return PartialAxes::UNKNOWN_RANK;
    };
    let mut r = PartialAxes {
        rank: Some(dout.len()),
        ..PartialAxes::UNKNOWN_RANK
    };
    let Some(di) = input.dims() else {
        // The input's rank is not known: only a mapping tells its unmapped axes.
        for axis in 0..dout.len() {
            match place {
                Placement::Axes(mapping) if !mapping.contains(&axis) => {
                    r.stretched = r.stretched.with(axis)
                }
                _ => r.unknown = r.unknown.with(axis),
            }
        }
        return r;
    };
    for axis in 0..dout.len() {
        let at = match place {
            Placement::At(start) => axis.checked_sub(start).filter(|&i| i < di.len()),
            Placement::Axes(mapping) => mapping.iter().position(|&m| m == axis),
        };
        // A scalar with a one-entry mapping counts as [1].
        let x = at.map(|i| {
            if di.is_empty() {
                Dim::ONE
            } else {
                input.dim(i)
            }
        });
        match x.map_or(Some(true), |x| stretch_of(x, out.dim(axis))) {
            Some(true) => r.stretched = r.stretched.with(axis),
            Some(false) => {}
            None => r.unknown = r.unknown.with(axis),
        }
    }
    r
}

/// I9 for an elementwise operation on partial shapes: what is known of the axes `a` and `b`
/// were each stretched along (B6), the shapes checked as [`broadcast_partial`] checks them.
///
/// ```
/// use shaped::rules::partial::{stretched_axes_partial, Interval, PartialShape};
/// use shaped::AutoBroadcast;
/// let a = PartialShape::new(&[Interval::DYNAMIC, Interval::fixed(3)]).unwrap();
/// let b = PartialShape::fixed(&[1, 3]).unwrap();
/// let [sa, sb] = stretched_axes_partial(&a, &b, AutoBroadcast::Numpy).unwrap();
/// // Whether `a`'s first dim is 1 (and `b` stretched along axis 0) is not known yet.
/// assert_eq!((sa.known(), sb.known()), (None, None));
/// assert_eq!(sb.unknown.to_string(), "{0}");
/// assert!(sa.stretched.is_empty());
/// ```
pub fn stretched_axes_partial(
    a: &PartialShape,
    b: &PartialShape,
    mode: AutoBroadcast,
) -> Result<[PartialAxes; 2], Error> {
    let out = broadcast_partial(a, b, mode)?;
    let start = |s: &PartialShape| {
        let (o, i) = (
            out.dims().map_or(0, <[Interval]>::len),
            s.dims().map_or(0, <[Interval]>::len),
        );
        Placement::At(o.saturating_sub(i))
    };
    Ok(match mode {
        AutoBroadcast::None => [
            stretched_in(a, &out, Placement::At(0)),
            stretched_in(b, &out, Placement::At(0)),
        ],
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => [
            stretched_in(a, &out, start(a)),
            stretched_in(b, &out, start(b)),
        ],
        AutoBroadcast::Pdpd { axis } => {
            let rank = |s: &PartialShape| s.dims().map_or(0, <[Interval]>::len);
            let at = Placement::At(pdpd_start(axis, rank(a), rank(b)));
            [
                stretched_in(a, &out, Placement::At(0)),
                stretched_in(b, &out, at),
            ]
        }
    })
}

/// I9 for the Broadcast op on partial shapes: what is known of the axes `data` was stretched
/// along when broadcast to `target` (B6, A18), the shapes checked as [`broadcast_to_partial`]
/// checks them.
pub fn stretched_axes_to_partial(
    data: &PartialShape,
    target: &PartialShape,
    mode: BroadcastToMode<'_>,
) -> Result<PartialAxes, Error> {
    let out = broadcast_to_partial(data, target, mode)?;
    let (o, i) = (
        out.dims().map_or(0, <[Interval]>::len),
        data.dims().map_or(0, <[Interval]>::len),
    );
    let place = match mode {
        BroadcastToMode::Explicit { axes_mapping } => Placement::Axes(axes_mapping),
        BroadcastToMode::Pdpd { axis } => Placement::At(pdpd_start(axis, o, i)),
        BroadcastToMode::Numpy | BroadcastToMode::Bidirectional => {
            Placement::At(o.saturating_sub(i))
        }
    };
    Ok(stretched_in(data, &out, place))
}
