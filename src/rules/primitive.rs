//! The binary primitive's shape rules (section 5 of the rules: O1-O4).

use super::{numpy_dim, ShapeBuf};
use crate::error::{Error, ErrorKind, Operation};

/// The largest rank of the [binary primitive](crate::primitive) (oneDNN's `DNNL_BINARY_MAX_NDIMS`).
pub const BINARY_MAX_NDIMS: usize = 12;

/// The binary primitive's destination shape (section 5 of the rules, O1-O3).
///
/// * O1: `src0` and `src1` have the same rank; there is no implicit rank extension.
/// * O2: per dim, the two are equal or one of them is 1 (either source may broadcast, so `1x4`
///   with `4x1` gives `4x4`).
/// * O3: 1 against 0 gives 0, as in NUMPY (P5), not `max`.
///
/// ```
/// use shaped::rules::binary_dst_shape;
/// assert_eq!(binary_dst_shape(&[1, 4], &[4, 1]).unwrap(), [4, 4]);
/// assert_eq!(binary_dst_shape(&[1, 3], &[0, 1]).unwrap(), [0, 3]);
/// let e = binary_dst_shape(&[2, 3], &[3]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot broadcast [2, 3] with [3] (binary): ranks 2 and 1 differ");
/// ```
pub fn binary_dst_shape(
    src0: &[usize],
    src1: &[usize],
) -> Result<ShapeBuf<BINARY_MAX_NDIMS>, Error> {
    let err = |kind| Error::new(kind, Operation::Binary, src0, src1);
    if src0.len() != src1.len() {
        return Err(err(ErrorKind::RankMismatch));
    }
    let mut out = ShapeBuf::from_slice(src0).ok_or_else(|| {
        err(ErrorKind::RankLimit {
            max: BINARY_MAX_NDIMS,
        })
    })?;
    for (axis, (o, (&a, &b))) in out.dims.iter_mut().zip(src0.iter().zip(src1)).enumerate() {
        *o = numpy_dim(a, b).ok_or_else(|| {
            err(ErrorKind::DimMismatch {
                axis,
                lhs: a,
                rhs: b,
            })
        })?;
    }
    Ok(out)
}

/// A destination given with the sources must have exactly their broadcast shape (O2: a source
/// dim is 1 or the destination's, and when `src0` differs from `dst`, `src1` equals it).
///
/// ```
/// use shaped::rules::binary_check_dst;
/// assert!(binary_check_dst(&[1, 4], &[4, 1], &[4, 4]).is_ok());
/// let e = binary_check_dst(&[1, 4], &[1, 4], &[3, 4]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "destination [3, 4] is not [1, 4], the broadcast of the sources (binary)"
/// );
/// ```
pub fn binary_check_dst(
    src0: &[usize],
    src1: &[usize],
    dst: &[usize],
) -> Result<ShapeBuf<BINARY_MAX_NDIMS>, Error> {
    let out = binary_dst_shape(src0, src1)?;
    if out.as_slice() != dst {
        return Err(Error::new(
            ErrorKind::ShapeMismatch,
            Operation::Binary,
            dst,
            &out,
        ));
    }
    Ok(out)
}

/// A run in place (O8): the destination is src0's memory, so src1 must broadcast onto src0
/// one way (O1-O3 hold, and their destination is src0's shape).
///
/// ```
/// use shaped::rules::binary_in_place_fits;
/// assert!(binary_in_place_fits(&[2, 8, 5, 5], &[1, 8, 1, 1]).is_ok());
/// let e = binary_in_place_fits(&[1, 8], &[2, 8]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot broadcast [1, 8] with [2, 8] (binary in place): axis 0 has 1 vs 2; \
///      in place, src1 may not change src0's shape (O8)"
/// );
/// ```
pub fn binary_in_place_fits(src0: &[usize], src1: &[usize]) -> Result<(), Error> {
    let out = binary_dst_shape(src0, src1).map_err(|e| e.in_operation(Operation::BinaryInPlace))?;
    match (0..src0.len()).find(|&i| out[i] != src0[i]) {
        None => Ok(()),
        Some(axis) => {
            let kind = ErrorKind::DimMismatch {
                axis,
                lhs: src0[axis],
                rhs: src1[axis],
            };
            Err(Error::new(kind, Operation::BinaryInPlace, src0, src1))
        }
    }
}

/// A binary post-op's operand against the destination (O4): the same rank, and each dim 1 or
/// equal to the destination's. The operand may broadcast; it never grows the destination
/// (`index` is the post-op's position, for the message).
///
/// ```
/// use shaped::rules::post_op_fits;
/// assert!(post_op_fits(0, &[1, 8, 1, 1], &[2, 8, 5, 5]).is_ok());
/// let e = post_op_fits(1, &[2, 8], &[1, 8]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot broadcast [2, 8] with [1, 8] (binary post-op 1): axis 0 has 2 vs 1; \
///      a post-op operand dim must be 1 or the destination's (O4)"
/// );
/// ```
pub fn post_op_fits(index: usize, operand: &[usize], dst: &[usize]) -> Result<(), Error> {
    let err = |kind| Error::new(kind, Operation::BinaryPostOp { index }, operand, dst);
    if operand.len() != dst.len() {
        return Err(err(ErrorKind::RankMismatch));
    }
    for (axis, (&a, &d)) in operand.iter().zip(dst).enumerate() {
        if a != 1 && a != d {
            return Err(err(ErrorKind::DimMismatch {
                axis,
                lhs: a,
                rhs: d,
            }));
        }
    }
    Ok(())
}
