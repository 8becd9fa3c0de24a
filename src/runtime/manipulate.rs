//! The copies behind shape manipulation when the layout does not allow a view (M4-M7):
//! `permute` and `narrow` gather through a strided view, `concat` and `stack` interleave
//! contiguous blocks. No allocation; `DynTensor`'s owned forms build on these.

use super::array_ref::ArrayRef;
use super::kernels::broadcast_into_with;
use crate::error::Error;
use crate::rules::{BroadcastToMode, ShapeBuf, MAX_RANK};
use crate::util::row_major_strides;

/// Writes the elements of a strided `src` in row-major order of its shape: the copy that
/// turns a permuted or narrowed view into a tensor. `out` must hold the element count.
///
/// When the input's contiguous axis is not the output's last one (a transpose, NCHW to
/// NHWC), reading in output order strides through memory a cache line per element; the copy
/// then goes in square tiles of the two axes instead, so that both the reads and the writes
/// of a tile stay in L1. A 1024x1024 `f32` transpose: 3.40 ms in output order, 0.57 ms in
/// 32x32 tiles (`benches/reductions.rs`).
pub(crate) fn gather_into<T, V>(
    src: ArrayRef<'_, T>,
    out: &mut [V],
    mut f: impl FnMut(&T) -> V,
) -> Result<(), Error> {
    let shape = src.shape;
    let rank = shape.len();
    let strides = match src.strides {
        super::array_ref::Strides::Given(s) => s,
        super::array_ref::Strides::RowMajor => &[][..],
    };
    // The axis that reads contiguously, if it is not the output's last.
    let plane = (rank >= 2 && strides.len() == rank && strides[rank - 1] != 1)
        .then(|| (0..rank - 1).find(|&a| strides[a] == 1 && shape[a] > 1))
        .flatten();
    let Some(p) = plane else {
        return broadcast_into_with(src, shape, BroadcastToMode::Numpy, out, f);
    };
    if out.len() != shape.iter().product::<usize>() {
        return broadcast_into_with(src, shape, BroadcastToMode::Numpy, out, f);
    }
    if out.is_empty() {
        // Nothing to copy: the tiles would still walk every row of a `[2^40, 0]` plane.
        return Ok(());
    }
    const TILE: usize = 8;
    let q = rank - 1;
    let out_strides: [usize; MAX_RANK] = row_major_strides(shape);
    let (dp, dq) = (shape[p], shape[q]);
    let (op, iq) = (out_strides[p], strides[q]);
    // The other axes, walked by an odometer; each position is one plane.
    let mut index: ShapeBuf = ShapeBuf::from_slice(shape).unwrap_or_default();
    index.as_mut_slice().fill(0);
    // Not empty (returned above), so these dims multiply to at most the element count.
    let planes: usize = (0..rank)
        .filter(|&a| a != p && a != q)
        .map(|a| shape[a])
        .product();
    for _ in 0..planes {
        let (mut base_in, mut base_out) = (0, 0);
        for a in (0..rank).filter(|&a| a != p && a != q) {
            base_in += index[a] * strides[a];
            base_out += index[a] * out_strides[a];
        }
        for i0 in (0..dp).step_by(TILE) {
            for j0 in (0..dq).step_by(TILE) {
                if i0 + TILE <= dp && j0 + TILE <= dq {
                    // A full tile: its rows sliced once, so the inner loops have constant
                    // bounds and no checks.
                    let rows: [&[T]; TILE] = core::array::from_fn(|jj| {
                        let start = base_in + (j0 + jj) * iq + i0;
                        &src.data[start..start + TILE]
                    });
                    for i in 0..TILE {
                        let start = base_out + (i0 + i) * op + j0;
                        let dst = &mut out[start..start + TILE];
                        for (d, row) in dst.iter_mut().zip(&rows) {
                            *d = f(&row[i]);
                        }
                    }
                    continue;
                }
                for i in i0..(i0 + TILE).min(dp) {
                    let row = base_out + i * op;
                    for j in j0..(j0 + TILE).min(dq) {
                        out[row + j] = f(&src.data[base_in + i + j * iq]);
                    }
                }
            }
        }
        for a in (0..rank).rev().filter(|&a| a != p && a != q) {
            index.as_mut_slice()[a] += 1;
            if index[a] < shape[a] {
                break;
            }
            index.as_mut_slice()[a] = 0;
        }
    }
    Ok(())
}

/// The elements of a strided `src` mapped by `f`, in row-major order of its shape, in a new
/// `Vec`: what a permuted or narrowed view becomes when it is copied out. An error only when
/// the result's byte size overflows.
pub(crate) fn gather_vec<T, V>(
    src: ArrayRef<'_, T>,
    mut f: impl FnMut(&T) -> V,
) -> Result<alloc::vec::Vec<V>, Error> {
    let count = super::element_count::<V>(src.shape)?;
    // SAFETY: `gather_into` writes every element of its output when it returns Ok.
    unsafe {
        super::filled_vec(count, src.shape, |out| {
            gather_into(src, out, |x| core::mem::MaybeUninit::new(f(x)))
        })
    }
}

/// Joins row-major parts along one axis (M6, M7): `outer` blocks (the product of the dims
/// before the axis), each taking `block` contiguous elements from every part in turn. `out`
/// receives exactly the sum of the parts' lengths.
pub(crate) fn interleave<'a, T: 'a + Clone>(
    parts: impl Iterator<Item = &'a [T]> + Clone,
    outer: usize,
    mut push: impl FnMut(&'a [T]),
) {
    // No elements, no loop: `[2^62, 0]` joined along axis 1 has 2^62 empty blocks.
    if outer == 0 || parts.clone().all(|p| p.is_empty()) {
        return;
    }
    for o in 0..outer {
        for part in parts.clone() {
            let block = part.len() / outer;
            push(&part[o * block..(o + 1) * block]);
        }
    }
}
