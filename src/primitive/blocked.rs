//! Blocked memory formats (O7): oneDNN's `nChw16c` (`aBcd16b`), `ABcd16a16b` and their kin,
//! and the GPU plugin's `b_fs_yx_fsv16`-style names for the same layouts.
//!
//! A blocked layout stores a dim `C` blocked by `B` as `ceil(C / B)` outer blocks, each holding
//! `B` consecutive values of that dim innermost (or next to the other dim's block). The outer
//! dims follow an order of their own. A dim that is not a multiple of its block is padded: the
//! buffer holds the padded count, and the padding is never read or written.
//!
//! The primitive runs a blocked problem as plain strided ones: each blocked dim splits into
//! two (outer block index, index inside the block), every memory's strides follow that split
//! (a plain memory's too), and a dim that is not a multiple of its block runs twice, once over
//! the whole blocks and once over the last, partial one. The single pass then walks those
//! strides exactly as it walks row-major or channels-last memory.

use core::fmt;

use super::memory::{Desc, Layout};
use crate::error::{Error, ErrorKind, Operation};
use crate::rules::BINARY_MAX_NDIMS;

/// The most inner blocks one layout has (`ABcd16a16b` has two).
pub const MAX_BLOCKS: usize = 2;

/// The largest block size.
pub const MAX_BLOCK: usize = 1024;

/// Marks the position of `x` (the dims the tag does not name, in order) in [`Blocking::order`].
const REST: u8 = u8::MAX;

/// A blocked (or permuted) memory format: the outer dims in an order, then up to
/// [`MAX_BLOCKS`] inner blocks. Made from a oneDNN format tag ([`Blocking::from_tag`]), a GPU
/// format name ([`Blocking::from_gpu_format`]), or the constructors below, whose block size is
/// a const parameter checked at compile time.
///
/// ```
/// use shaped::primitive::{Blocking, Layout};
/// // nChw16c, nCdhw16c, nCw16c: any rank.
/// let c16 = Blocking::blocked::<1, 16>();
/// assert_eq!(c16, Blocking::from_tag("aBx16b").unwrap());
/// assert_eq!(c16.to_string(), "aBx16b");
/// // Rank 4 only.
/// let nchw16c = Blocking::from_tag("aBcd16b").unwrap();
/// assert_eq!(c16.with_rank(4), Some(nchw16c));
/// assert_eq!(Blocking::from_gpu_format("b_fs_yx_fsv16").unwrap(), nchw16c);
/// // C = 20 pads to 32: 2 * 32 * 3 * 3 elements.
/// assert_eq!(Layout::Blocked(nchw16c).buffer_len([2, 20, 3, 3]).unwrap(), 576);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Blocking {
    /// Outer dims, outermost first; [`REST`] stands for the dims the tag does not name.
    order: [u8; BINARY_MAX_NDIMS],
    order_len: u8,
    /// `(dim, size)`, outermost block first.
    blocks: [(u8, u16); MAX_BLOCKS],
    n_blocks: u8,
}

fn tag_error(at: usize) -> Error {
    Error::new(ErrorKind::LayoutTag { at }, Operation::Layout, &[], &[])
}

impl Blocking {
    /// Dim `AXIS` blocked by `BLOCK`, every dim in order (`aBx16b` for `AXIS = 1`,
    /// `BLOCK = 16`: oneDNN's `nChw16c`, `nCdhw16c` and `nCw16c`, whatever the rank). A block of
    /// 0, 1 or above [`MAX_BLOCK`], or an axis at or above the primitive's largest rank, is a
    /// compile error:
    ///
    /// ```compile_fail
    /// let _ = shaped::primitive::Blocking::blocked::<1, 0>();
    /// ```
    pub const fn blocked<const AXIS: usize, const BLOCK: usize>() -> Blocking {
        const {
            assert!(
                BLOCK >= 2 && BLOCK <= MAX_BLOCK,
                "a block holds 2 to 1024 values"
            );
            assert!(
                AXIS + 1 < BINARY_MAX_NDIMS,
                "the axis is beyond the primitive's rank"
            );
        }
        // The dims up to the blocked one by name, then `x`: `aBx16b`.
        let mut order = [REST; BINARY_MAX_NDIMS];
        let mut d = 0;
        while d <= AXIS {
            order[d] = d as u8;
            d += 1;
        }
        Blocking {
            order,
            order_len: AXIS as u8 + 2,
            blocks: [(AXIS as u8, BLOCK as u16), (0, 0)],
            n_blocks: 1,
        }
    }

    /// Dims 0 and 1 both blocked, dim 0's block outside dim 1's, every dim in order
    /// (`ABx16a16b` for `A = B = 16`: oneDNN's `NChw16n16c`, the GPU's
    /// `bs_fs_yx_bsv16_fsv16`). Block sizes are checked at compile time as in
    /// [`Blocking::blocked`].
    pub const fn double<const A: usize, const B: usize>() -> Blocking {
        const {
            assert!(A >= 2 && A <= MAX_BLOCK, "a block holds 2 to 1024 values");
            assert!(B >= 2 && B <= MAX_BLOCK, "a block holds 2 to 1024 values");
        }
        let mut order = [REST; BINARY_MAX_NDIMS];
        order[0] = 0;
        order[1] = 1;
        Blocking {
            order,
            order_len: 3,
            blocks: [(0, A as u16), (1, B as u16)],
            n_blocks: 2,
        }
    }

    /// Parses a oneDNN format tag: the outer dims as letters `a` to `l` in memory order
    /// (outermost first), upper case for a blocked dim, `x` for the dims the tag leaves out;
    /// then each inner block as a size and a lower-case letter, outermost first. `aBcd16b` is
    /// `nChw16c`, `ABcd16a16b` is `NChw16n16c`, `Bacd32b` is the GPU's `fs_b_yx_fsv32`, and a
    /// tag without blocks (`acdb`, `bacd`) is a permutation. At most [`MAX_BLOCKS`] blocks, one
    /// per dim; [`ErrorKind::LayoutTag`] names the first character not understood.
    ///
    /// ```
    /// use shaped::primitive::Blocking;
    /// let b = Blocking::from_tag("ABcd16a16b").unwrap();
    /// assert_eq!(b, Blocking::double::<16, 16>().with_rank(4).unwrap());
    /// let err = Blocking::from_tag("aBcd16c").unwrap_err();
    /// assert_eq!(err.to_string(), "bad layout tag: character 6 is not understood (O7)");
    /// ```
    pub fn from_tag(tag: &str) -> Result<Blocking, Error> {
        let bytes = tag.as_bytes();
        let mut b = Blocking {
            order: [REST; BINARY_MAX_NDIMS],
            order_len: 0,
            blocks: [(0, 0); MAX_BLOCKS],
            n_blocks: 0,
        };
        let (mut seen, mut upper) = (0u32, 0u32);
        let mut i = 0;
        // The outer dims.
        while let Some(&c) = bytes.get(i) {
            let dim = match c {
                b'a'..=b'l' => c - b'a',
                b'A'..=b'L' => c - b'A',
                b'x' if b.order[..b.order_len as usize].contains(&REST) => {
                    return Err(tag_error(i))
                }
                b'x' => REST,
                _ => break,
            };
            if b.order_len as usize >= BINARY_MAX_NDIMS || (dim != REST && seen & (1 << dim) != 0) {
                return Err(tag_error(i));
            }
            if dim != REST {
                seen |= 1 << dim;
                if c.is_ascii_uppercase() {
                    upper |= 1 << dim;
                }
            }
            b.order[b.order_len as usize] = dim;
            b.order_len += 1;
            i += 1;
        }
        if b.order_len == 0 {
            return Err(tag_error(0));
        }
        // The inner blocks: a size, then the blocked dim's letter.
        let mut blocked = 0u32;
        while i < bytes.len() {
            let start = i;
            let mut size = 0usize;
            while let Some(&c @ b'0'..=b'9') = bytes.get(i) {
                size = size * 10 + usize::from(c - b'0');
                if size > MAX_BLOCK {
                    return Err(tag_error(start));
                }
                i += 1;
            }
            let letter = match bytes.get(i) {
                Some(&c @ b'a'..=b'l') => c - b'a',
                _ => return Err(tag_error(i)),
            };
            if i == start
                || size < 2
                || upper & (1 << letter) == 0
                || blocked & (1 << letter) != 0
                || b.n_blocks as usize == MAX_BLOCKS
            {
                return Err(tag_error(i));
            }
            blocked |= 1 << letter;
            b.blocks[b.n_blocks as usize] = (letter, size as u16);
            b.n_blocks += 1;
            i += 1;
        }
        // Every upper-case dim has its block.
        if blocked != upper {
            return Err(tag_error(bytes.len()));
        }
        Ok(b)
    }

    /// Parses an OpenVINO GPU format name: `b`, `f` and their blocked outer parts `bs`, `fs`,
    /// the spatial dims as one token of `w`, `z`, `y`, `x`, and the inner blocks `bsv<N>`,
    /// `fsv<N>`, separated by `_` in memory order: `b_fs_yx_fsv16` is `aBcd16b`,
    /// `b_fs_zyx_fsv16` is `aBcde16b`, `bs_fs_yx_bsv16_fsv16` is `ABcd16a16b`, `fs_b_yx_fsv32`
    /// is `Bacd32b`. [`ErrorKind::LayoutTag`] names the first character not understood.
    pub fn from_gpu_format(name: &str) -> Result<Blocking, Error> {
        // Translated to a oneDNN tag, then parsed as one: the tag parser does every check.
        let mut tag = [0u8; 64];
        let mut len = 0;
        let mut push = |c: u8, at: usize| -> Result<(), Error> {
            *tag.get_mut(len).ok_or_else(|| tag_error(at))? = c;
            len += 1;
            Ok(())
        };
        let (mut outer_done, mut at) = (false, 0);
        let mut spatial = 0u8;
        for token in name.split('_') {
            let bytes = token.as_bytes();
            match token {
                "b" | "f" | "bs" | "fs" if !outer_done => {
                    let letter = if bytes[0] == b'b' { b'a' } else { b'b' };
                    push(
                        if bytes.len() == 2 {
                            letter - 32
                        } else {
                            letter
                        },
                        at,
                    )?;
                }
                _ if !outer_done
                    && !bytes.is_empty()
                    && bytes.iter().all(|c| b"wzyx".contains(c)) =>
                {
                    for _ in bytes {
                        push(b'c' + spatial, at)?;
                        spatial += 1;
                    }
                }
                _ if token.starts_with("bsv") || token.starts_with("fsv") => {
                    outer_done = true;
                    let digits = &bytes[3..];
                    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
                        return Err(tag_error(at + 3));
                    }
                    for &d in digits {
                        push(d, at)?;
                    }
                    push(if bytes[0] == b'b' { b'a' } else { b'b' }, at)?;
                }
                _ => return Err(tag_error(at)),
            }
            at += token.len() + 1;
        }
        let tag = core::str::from_utf8(&tag[..len]).map_err(|_| tag_error(0))?;
        Blocking::from_tag(tag).map_err(|_| tag_error(0))
    }

    /// The same format with its `x` spelled out for a rank (`aBx16b` at rank 4 is
    /// `aBcd16b`), or `None` when the format does not fit that rank.
    pub fn with_rank(self, ndims: usize) -> Option<Blocking> {
        let order = self.outer_order(ndims)?;
        let mut b = self;
        b.order = [REST; BINARY_MAX_NDIMS];
        for (slot, &d) in b.order.iter_mut().zip(&order[..ndims]) {
            *slot = d as u8;
        }
        b.order_len = ndims as u8;
        Some(b)
    }

    /// The inner blocks, `(dim, size)`, outermost first.
    pub fn blocks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.blocks[..self.n_blocks as usize]
            .iter()
            .map(|&(d, s)| (usize::from(d), usize::from(s)))
    }

    /// The block of `dim` and the distance between its consecutive values inside the block:
    /// `(1, 0)` for a dim that is not blocked.
    pub(crate) fn block_of(&self, dim: usize) -> (usize, usize) {
        let n = self.n_blocks as usize;
        for k in 0..n {
            let (d, size) = self.blocks[k];
            if usize::from(d) == dim {
                let inner = self.blocks[k + 1..n]
                    .iter()
                    .map(|&(_, s)| usize::from(s))
                    .product();
                return (usize::from(size), inner);
            }
        }
        (1, 0)
    }

    /// The outer dims for a rank, outermost first, or `None` when the format does not fit it
    /// (a named dim at or above the rank, or dims left out with no `x` to hold them).
    pub(crate) fn outer_order(&self, ndims: usize) -> Option<[usize; BINARY_MAX_NDIMS]> {
        let named = &self.order[..self.order_len as usize];
        let mut out = [0usize; BINARY_MAX_NDIMS];
        let mut seen = 0u32;
        let mut count = 0;
        for &d in named {
            if d != REST {
                if usize::from(d) >= ndims {
                    return None;
                }
                seen |= 1 << d;
            }
        }
        let inner_ok = self.blocks().all(|(d, _)| d < ndims);
        if !inner_ok || ndims > BINARY_MAX_NDIMS {
            return None;
        }
        for &d in named {
            if d == REST {
                for rest in (0..ndims).filter(|&r| seen & (1 << r) == 0) {
                    out[count] = rest;
                    count += 1;
                }
            } else {
                out[count] = usize::from(d);
                count += 1;
            }
        }
        (count == ndims).then_some(out)
    }
}

impl fmt::Debug for Blocking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Blocking({self})")
    }
}

/// The oneDNN tag, with `x` where the dims the format leaves out go.
impl fmt::Display for Blocking {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let blocked = |d: u8| self.blocks().any(|(b, _)| b == usize::from(d));
        for &d in &self.order[..self.order_len as usize] {
            let c = match d {
                REST => 'x',
                d if blocked(d) => char::from(b'A' + d),
                d => char::from(b'a' + d),
            };
            write!(f, "{c}")?;
        }
        for (d, size) in self.blocks() {
            write!(f, "{size}{}", char::from(b'a' + d as u8))?;
        }
        Ok(())
    }
}

/// The most dims one run splits (each blocked dim of any of its memories counts once).
pub(crate) const MAX_SPLIT: usize = 4;

/// The largest rank of a split problem.
pub(crate) const PLAN_RANK: usize = BINARY_MAX_NDIMS + MAX_SPLIT;

/// How a run splits one dim (O7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// Every memory that blocks the dim blocks it by this size: the whole blocks, then the
    /// partial last one (two pieces).
    Blocks(usize),
    /// Memories block the dim by different sizes: runs of this many indices (the sizes'
    /// greatest common divisor, so a run never crosses a block of any memory), one piece each.
    Chunks(usize),
}

/// The dims a run splits: those some memory blocks and does not broadcast along.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    axes: [(usize, Cut); MAX_SPLIT],
    /// For each split dim, how many pieces it makes.
    counts: [usize; MAX_SPLIT],
    n: usize,
}

impl Default for Split {
    fn default() -> Self {
        Split {
            axes: [(0, Cut::Blocks(1)); MAX_SPLIT],
            counts: [1; MAX_SPLIT],
            n: 0,
        }
    }
}

impl Split {
    /// How many pieces the run makes (some may be empty): the product of the split dims'
    /// counts, which is at most 2^4 times the element count.
    pub(crate) fn pieces(&self) -> usize {
        self.counts[..self.n]
            .iter()
            .fold(1usize, |acc, &c| acc.saturating_mul(c))
    }

    /// Split dim `axis`'s cut and its digit in piece number `piece` (mixed radix, the first
    /// split dim least significant).
    fn find(&self, axis: usize, piece: usize) -> Option<(Cut, usize)> {
        let mut rest = piece;
        for j in 0..self.n {
            let (a, cut) = self.axes[j];
            let digit = rest % self.counts[j];
            if a == axis {
                return Some((cut, digit));
            }
            rest /= self.counts[j];
        }
        None
    }
}

/// Dims and strides of one memory for one piece of a run, in the destination's index space
/// with each dim split into blocks as two: its whole blocks, then the place inside a block.
#[derive(Clone, Copy)]
pub(crate) struct View {
    pub(crate) ndims: usize,
    pub(crate) dims: [usize; PLAN_RANK],
    pub(crate) strides: [usize; PLAN_RANK],
}

impl View {
    pub(crate) const EMPTY: View = View {
        ndims: 0,
        dims: [0; PLAN_RANK],
        strides: [0; PLAN_RANK],
    };

    fn push(&mut self, n: usize, stride: usize) {
        self.dims[self.ndims] = n;
        self.strides[self.ndims] = stride;
        self.ndims += 1;
    }
}

const fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The dims to split for these memories (the destination last), or the error when more than
/// [`MAX_SPLIT`] dims are blocked. A dim that memories block by different sizes (oneDNN
/// accepts any pair of formats) is cut into runs that stay inside one block of each.
pub(crate) fn split(descs: &[&Desc], src0: &[usize], src1: &[usize]) -> Result<Split, Error> {
    let mut out = Split::default();
    let Some(dst) = descs.last() else {
        return Ok(out);
    };
    if !descs.iter().any(|d| matches!(d.layout, Layout::Blocked(_))) {
        return Ok(out);
    }
    for axis in 0..dst.ndims {
        let n = dst.dims[axis];
        if n == 1 {
            continue; // one index: offset 0 in every memory
        }
        let (mut block, mut common, mut mixed) = (1, 0, false);
        for d in descs.iter().filter(|d| d.dims[axis] != 1) {
            let (b, _) = d.block_of(axis);
            if b > 1 {
                mixed |= block > 1 && b != block;
                block = block.max(b);
                common = gcd(common, b);
            }
        }
        if block == 1 {
            continue;
        }
        let (cut, count) = if mixed {
            (Cut::Chunks(common), n.div_ceil(common))
        } else {
            (Cut::Blocks(block), 2)
        };
        let max = MAX_SPLIT;
        if out.n == max {
            let kind = ErrorKind::RankLimit { max };
            return Err(Error::new(kind, Operation::Binary, src0, src1));
        }
        out.axes[out.n] = (axis, cut);
        out.counts[out.n] = count;
        out.n += 1;
    }
    Ok(out)
}

/// One memory's view and base offset for piece number `piece` of the split (each dim cut
/// into blocks: its whole blocks, or the partial last one; each dim cut into chunks: one
/// chunk), or `None` when that piece is empty.
pub(crate) fn piece(desc: &Desc, dst: &Desc, split: &Split, piece: usize) -> Option<(View, usize)> {
    let mut v = View::EMPTY;
    let mut base = 0;
    for axis in 0..desc.ndims {
        let Some((cut, digit)) = split.find(axis, piece) else {
            v.push(desc.dims[axis], desc.strides[axis]);
            continue;
        };
        let n = dst.dims[axis];
        let broadcast = desc.dims[axis] == 1;
        let (own, step) = desc.block_of(axis);
        let s = desc.strides[axis];
        match cut {
            Cut::Blocks(block) => {
                let (whole, rest) = (n / block, n % block);
                let last = digit == 1;
                let (outer, inner) = if last { (1, rest) } else { (whole, block) };
                if outer == 0 || inner == 0 {
                    return None;
                }
                if broadcast {
                    // Broadcast along this dim: both parts stay at index 0.
                    v.push(1, 0);
                    v.push(1, 0);
                    continue;
                }
                let (outer_stride, inner_stride) = if own > 1 { (s, step) } else { (block * s, s) };
                if last {
                    base += whole * outer_stride;
                }
                v.push(outer, outer_stride);
                v.push(inner, inner_stride);
            }
            Cut::Chunks(len) => {
                // Indices `first..first + len` (fewer in the last chunk) lie in one block of
                // every memory, as `len` divides each block size.
                let first = digit * len;
                let len = len.min(n - first);
                if broadcast {
                    v.push(len, 0);
                } else if own > 1 {
                    base += first / own * s + first % own * step;
                    v.push(len, step);
                } else {
                    base += first * s;
                    v.push(len, s);
                }
            }
        }
    }
    Some((v, base))
}
