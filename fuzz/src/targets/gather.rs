//! `gather` (M10) and `gather_elements` (M11) on any shape, with indices of several integer
//! types and any values (negative, extreme, past the axis): each output element against the
//! data read at the index numpy's `take` and ONNX's `GatherElements` name, and every refusal
//! against the first index out of range (position and value) or the shape rule's kind.
use super::super::{count, indices, positions, resolve, Input};
use shaped::rules::IndexElement;
use shaped::{DynTensor, ErrorKind};

fn index(input: &mut Input<'_>, dim: usize) -> i64 {
    match input.below(8) {
        0 => input.i64(),
        1 => dim as i64,
        2 => -(dim as i64) - 1,
        _ => input.below(2 * dim.max(1)) as i64 - dim as i64,
    }
}

/// The data at multi-index `idx` of `shape` (row-major).
fn at(data: &[i64], shape: &[usize], idx: &[usize]) -> i64 {
    let mut o = 0;
    for (&i, &n) in idx.iter().zip(shape) {
        o = o * n + i;
    }
    data[o]
}

/// `i` into an axis of `dim` by numpy's rule, or `None`.
fn wrap(i: i64, dim: usize) -> Option<usize> {
    let at = if i < 0 {
        i as i128 + dim as i128
    } else {
        i as i128
    };
    (0..dim as i128).contains(&at).then_some(at as usize)
}

fn check<I: IndexElement + TryFrom<i64>>(
    t: &DynTensor<i64>,
    raw: &[i64],
    ishape: &[usize],
    axis: i64,
    elements: bool,
) {
    // Indices that do not fit `I` are left out of this type's run.
    let Ok(idx) = raw
        .iter()
        .map(|&i| I::try_from(i))
        .collect::<Result<Vec<I>, _>>()
    else {
        return;
    };
    let it = DynTensor::from_shape_vec(ishape, idx).unwrap();
    let shape = t.shape();
    let rank = shape.len();
    let got = if elements {
        t.gather_elements(&it, axis)
    } else {
        t.gather(&it, axis)
    };
    let Some(a) = resolve(axis, rank) else {
        assert!(matches!(got.unwrap_err().kind(), ErrorKind::BadAxis { .. }));
        return;
    };
    if elements {
        if ishape.len() != rank {
            assert_eq!(got.unwrap_err().kind(), ErrorKind::RankMismatch);
            return;
        }
        if let Some(k) = (0..rank).find(|&k| k != a && ishape[k] > shape[k]) {
            let want = ErrorKind::DimMismatch {
                axis: k,
                lhs: shape[k],
                rhs: ishape[k],
            };
            assert_eq!(got.unwrap_err().kind(), want);
            return;
        }
    }
    if let Some(p) = raw.iter().position(|&i| wrap(i, shape[a]).is_none()) {
        let want = ErrorKind::IndexOutOfRange {
            axis: a,
            position: p,
            index: raw[p],
            dim: shape[a],
        };
        assert_eq!(got.unwrap_err().kind(), want, "{shape:?} {raw:?}");
        return;
    }
    let got = got.unwrap();
    if elements {
        assert_eq!(got.shape(), ishape);
        for (k, idx) in indices(ishape).iter().enumerate() {
            let mut src = idx.clone();
            src[a] = wrap(raw[k], shape[a]).unwrap();
            assert_eq!(got.as_slice()[k], at(t.as_slice(), shape, &src));
        }
    } else {
        let mut want_shape = shape[..a].to_vec();
        want_shape.extend_from_slice(ishape);
        want_shape.extend_from_slice(&shape[a + 1..]);
        assert_eq!(got.shape(), &want_shape[..]);
        let ir = ishape.len();
        for (k, idx) in indices(&want_shape).iter().enumerate() {
            let flat = indices(ishape)
                .iter()
                .position(|p| p[..] == idx[a..a + ir])
                .unwrap();
            let mut src = idx[..a].to_vec();
            src.push(wrap(raw[flat], shape[a]).unwrap());
            src.extend_from_slice(&idx[a + ir..]);
            assert_eq!(got.as_slice()[k], at(t.as_slice(), shape, &src));
        }
    }
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let shape = input.shape(3, false);
    let Some(t) = positions(&shape, 64) else {
        return;
    };
    let elements = input.below(2) == 1;
    let axis = input.axis();
    let ishape = if elements && input.below(4) != 0 {
        // Mostly the data's rank, each dim near the data's.
        shape
            .iter()
            .map(|&d| (d + input.below(3)).saturating_sub(1))
            .collect::<Vec<_>>()
    } else {
        input.shape(2, false)
    };
    let Some(m) = count(&ishape).filter(|&m| m <= 64) else {
        return;
    };
    let dim = resolve(axis, shape.len()).map_or(3, |a| shape[a]);
    let raw: Vec<i64> = (0..m).map(|_| index(&mut input, dim)).collect();
    check::<i64>(&t, &raw, &ishape, axis, elements);
    check::<i32>(&t, &raw, &ishape, axis, elements);
    check::<i8>(&t, &raw, &ishape, axis, elements);
    check::<u16>(&t, &raw, &ishape, axis, elements);
    check::<usize>(&t, &raw, &ishape, axis, elements);
}
