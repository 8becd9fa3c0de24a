//! Concatenation into a caller's buffer (M6), without an allocator: what an imported model's
//! `CONCATENATION` runs. (`DynTensor::concat` allocates its result; `manipulate.rs` holds the
//! interleaving it shares with `stack`.)

use super::array_ref::ArrayRef;
use crate::error::Error;
use crate::rules::{ShapeBuf, MAX_RANK};

/// `parts` joined along `axis` (negative from the end) into `out`, without an allocator (M6,
/// TFLite's `CONCATENATION`): equal ranks, equal dims on every other axis, `out` holding
/// exactly the joined shape's elements. Returns the joined shape.
///
/// ```
/// use shaped::runtime::{concat_into, ArrayRef};
/// let (a, b) = ([1, 2], [3, 4, 5, 6]);
/// let mut out = [0; 6];
/// let dims = concat_into(
///     &[ArrayRef::new(&[2, 1], &a)?, ArrayRef::new(&[2, 2], &b)?],
///     -1,
///     &mut out,
/// )?;
/// assert_eq!((&dims[..], out), (&[2, 3][..], [1, 3, 4, 2, 5, 6]));
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn concat_into<T: Clone>(
    parts: &[ArrayRef<'_, T>],
    axis: i64,
    out: &mut [T],
) -> Result<ShapeBuf, Error> {
    use crate::error::{ErrorKind, Operation};
    use crate::op::ShapeOp;
    let op = Operation::Shape {
        op: ShapeOp::Concat,
    };
    let Some((first, rest)) = parts.split_first() else {
        return Err(Error::new(ErrorKind::NoTensors, op, &[], &[]));
    };
    let rank = first.shape().len();
    // R1: negative from the end.
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    let Some(a) = usize::try_from(resolved).ok().filter(|&a| a < rank) else {
        let kind = ErrorKind::BadAxis { axis, rank };
        return Err(Error::new(kind, op, first.shape(), &[]));
    };
    let mut shape = ShapeBuf::from_slice(first.shape()).ok_or_else(|| {
        let kind = ErrorKind::RankLimit { max: MAX_RANK };
        Error::new(kind, op, first.shape(), &[])
    })?;
    for part in rest {
        shape = crate::rules::concat_shape(&shape, part.shape(), axis)?.0;
    }
    // The joined shape's count does not overflow (`concat_shape` checks it).
    let count: usize = shape.iter().product();
    if out.len() != count {
        let kind = ErrorKind::LengthMismatch {
            expected: count,
            actual: out.len(),
        };
        return Err(Error::new(kind, op, &shape, &[]));
    }
    // Every part checked before anything is written.
    for part in parts {
        if part.row_major().is_none() {
            return Err(Error::new(ErrorKind::NotContiguous, op, part.shape(), &[]));
        }
    }
    if count == 0 {
        return Ok(shape);
    }
    let outer: usize = shape[..a].iter().product();
    let mut at = 0;
    for o in 0..outer {
        for part in parts {
            let data = part.row_major().unwrap_or(&[]);
            let block: usize = part.shape()[a..].iter().product();
            out[at..at + block].clone_from_slice(&data[o * block..(o + 1) * block]);
            at += block;
        }
    }
    Ok(shape)
}
