//! Matrix products (rules G1-G6): the shape of numpy's `matmul` (OpenVINO's `MatMul`, with its
//! transposes) and where each operand's elements are read. The static form is
//! [`typed::rules::MatMulShape`](crate::typed::rules::MatMulShape).

use super::{AutoBroadcast, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};

/// OpenVINO's `MatMul` attributes: transpose the last two dims of an operand of rank 2 or more
/// before the product (G2). The default is numpy's `matmul`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MatMulOptions {
    /// Transpose the left operand.
    pub transpose_a: bool,
    /// Transpose the right operand.
    pub transpose_b: bool,
}

/// A product resolved: the batch shape, the matrix dims, and how each operand is read. `CAP`
/// holds the ranks of the operands; the kernels use 8 for ranks up to 8 (a `[4, 4] x [4, 4]`
/// product spent a third of its 4851 instructions copying and zeroing 64-dim buffers).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatMulDims<const CAP: usize = MAX_RANK> {
    /// The broadcast batch dims (G5).
    pub batch: ShapeBuf<CAP>,
    /// Rows of the left operand, the inner dim, columns of the right operand.
    pub m: usize,
    pub k: usize,
    pub n: usize,
    /// The output shape (G3: a rank-1 operand's added 1 removed).
    pub out: ShapeBuf<CAP>,
}

/// The error of a product of `a` and `b`.
pub(crate) fn matmul_error(kind: ErrorKind, a: &[usize], b: &[usize]) -> Error {
    Error::new(kind, Operation::MatMul, a, b)
}

/// The matrix view of an operand's shape after G2 and G3: its batch dims and its two matrix
/// dims (rows, columns).
fn matrix(shape: &[usize], transpose: bool, left: bool) -> (&[usize], usize, usize) {
    match shape.len() {
        1 if left => (&[], 1, shape[0]),
        1 => (&[], shape[0], 1),
        r => {
            let (rows, cols) = (shape[r - 2], shape[r - 1]);
            let (rows, cols) = if transpose {
                (cols, rows)
            } else {
                (rows, cols)
            };
            (&shape[..r - 2], rows, cols)
        }
    }
}

/// The output shape of `a` times `b` (G1-G5).
///
/// ```
/// use shaped::rules::{matmul_shape, MatMulOptions};
/// let plain = MatMulOptions::default();
/// assert_eq!(matmul_shape(&[2, 1, 5, 3], &[4, 3, 7], plain).unwrap(), [2, 4, 5, 7]);
/// assert_eq!(matmul_shape(&[3], &[3, 7], plain).unwrap(), [7]);
/// assert_eq!(matmul_shape(&[3], &[3], plain).unwrap(), []);
/// let t = MatMulOptions { transpose_a: true, transpose_b: false };
/// assert_eq!(matmul_shape(&[3, 5], &[3, 7], t).unwrap(), [5, 7]);
/// let e = matmul_shape(&[4, 8], &[4, 8], plain).unwrap_err();
/// assert_eq!(e.to_string(), "cannot multiply [4, 8] by [4, 8] (matmul): inner dims 8 vs 4 (G4)");
/// let e = matmul_shape(&[2, 5, 3], &[4, 3, 7], plain).unwrap_err();
/// assert_eq!(e.to_string(), "cannot multiply [2, 5, 3] by [4, 3, 7] (matmul): batch axis 0 has 2 vs 4 (G5)");
/// ```
pub fn matmul_shape(a: &[usize], b: &[usize], options: MatMulOptions) -> Result<ShapeBuf, Error> {
    resolve::<MAX_RANK>(a, b, options).map(|d| d.out)
}

/// [`matmul_shape`] with the dims the kernels need, in buffers of `CAP` dims: the caller
/// picks a `CAP` of at least both ranks, or `MAX_RANK`.
pub(crate) fn resolve<const CAP: usize>(
    a: &[usize],
    b: &[usize],
    options: MatMulOptions,
) -> Result<MatMulDims<CAP>, Error> {
    if a.is_empty() || b.is_empty() {
        return Err(matmul_error(ErrorKind::RankZero, a, b));
    }
    if a.len() > MAX_RANK || b.len() > MAX_RANK {
        return Err(matmul_error(ErrorKind::RankLimit { max: MAX_RANK }, a, b));
    }
    if a.len() > CAP || b.len() > CAP {
        // A caller's small buffer: never reached (the kernels check the ranks first), and
        // an error rather than a panic if it were.
        return Err(matmul_error(ErrorKind::RankLimit { max: CAP }, a, b));
    }
    let (a_batch, m, k) = matrix(a, options.transpose_a, true);
    let (b_batch, kb, n) = matrix(b, options.transpose_b, false);
    if k != kb {
        return Err(matmul_error(ErrorKind::InnerDims { lhs: k, rhs: kb }, a, b));
    }
    let batch = super::resolve::<CAP>(a_batch, b_batch, AutoBroadcast::Numpy)
        .map(|r| r.out)
        .map_err(|e| match e.kind() {
            ErrorKind::DimMismatch { axis, lhs, rhs } => {
                matmul_error(ErrorKind::BatchDims { axis, lhs, rhs }, a, b)
            }
            kind => matmul_error(kind, a, b),
        })?;
    let mut out = batch;
    let mut push = |d: usize| {
        out.dims[out.len] = d;
        out.len += 1;
    };
    // G3: a rank-1 operand's added 1 is not in the result.
    if a.len() > 1 {
        push(m);
    }
    if b.len() > 1 {
        push(n);
    }
    if super::checked_element_count(&out).is_none() {
        return Err(matmul_error(ErrorKind::Overflow, a, b));
    }
    Ok(MatMulDims {
        batch,
        m,
        k,
        n,
        out,
    })
}
