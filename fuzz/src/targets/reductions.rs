//! `DynTensor` reductions (`sum`, `mean`, `prod`, `max`, `min`, `all`, `any` over any axes, every
//! axis (`Axes::All`), none, or the empty list (an error, R5),
//! negative, repeated and out of range included, with and without `keepdims`; `argmax`,
//! `argmin`) on any shape, empty ones with huge other dims included, checked against an
//! index-by-index reference: the output shape, each element, and the error's kind.
use super::super::{count, indices, Input};
use shaped::{Axes, DynTensor, ErrorKind};

/// Results allowed to exist: an empty input with huge other dims may ask for a result of
/// gigabytes, which is a valid request (checked for its shape only past this).
const MAX_OUT: usize = 1 << 16;

/// The axes mask by numpy's rules, or the error kind.
fn mask_of(rank: usize, axes: &[i64]) -> Result<u64, ErrorKind> {
    let mut mask = 0u64;
    for &axis in axes {
        let a = if axis < 0 { axis + rank as i64 } else { axis };
        if a < 0 || a >= rank as i64 {
            return Err(ErrorKind::BadAxis { axis, rank });
        }
        if mask & (1 << a) != 0 {
            return Err(ErrorKind::DuplicateAxis { axis: a as usize });
        }
        mask |= 1 << a;
    }
    Ok(mask)
}

fn out_shape(shape: &[usize], mask: u64, keepdims: bool) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, &d) in shape.iter().enumerate() {
        if mask & (1 << i) == 0 {
            out.push(d);
        } else if keepdims {
            out.push(1);
        }
    }
    out
}

/// The input elements that reduce into the output element at `kept` (a multi-index of the
/// shape with the reduced axes kept as 1), in row-major order.
fn members(t: &DynTensor<i64>, mask: u64, kept: &[usize]) -> Vec<i64> {
    let shape = t.shape();
    let mut got = Vec::new();
    for (k, idx) in indices(shape).iter().enumerate() {
        let inside = idx
            .iter()
            .enumerate()
            .all(|(a, &i)| mask & (1 << a) != 0 || i == kept[a]);
        if inside {
            got.push(t.as_slice()[k]);
        }
    }
    got
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let shape = input.shape(4, true);
    // Elements only for small shapes; huge dims come with a zero dim (or are refused).
    let Some(n) = count(&shape).filter(|&n| n <= 64) else {
        return;
    };
    if shape.len() > shaped::rules::MAX_RANK {
        return;
    }
    let data: Vec<i64> = (0..n).map(|_| input.byte() as i64 % 7 - 3).collect();
    let t = DynTensor::from_shape_vec(&shape, data).unwrap();
    let axes: Vec<i64> = (0..input.below(4)).map(|_| input.axis()).collect();
    let keepdims = input.below(2) == 1;
    let op = input.below(8);
    let rank = shape.len();
    // No listed axes: every axis, none, or the empty list, which is refused (R5).
    let (selection, mask) = match (axes.is_empty(), input.below(3)) {
        (false, _) => (Axes::List(&axes), mask_of(rank, &axes)),
        (true, 0) => (
            Axes::All,
            Ok(u64::MAX.checked_shr(64 - rank as u32).unwrap_or(0)),
        ),
        (true, 1) => (Axes::Nothing, Ok(0)),
        (true, _) => (Axes::List(&[]), Err(ErrorKind::NoAxes)),
    };
    // A result past `MAX_OUT` elements (an empty input with huge other dims) is a valid request
    // for gigabytes, which libFuzzer's allocation limit would report as a crash: its refusal
    // (`OutOfMemory`) is tested in `tests/adversarial.rs` instead.
    let probe = if op == 7 {
        mask_of(rank, &axes[..axes.len().min(1)])
    } else {
        mask
    };
    if let Ok(m) = probe {
        if count(&out_shape(&shape, m, true)).is_none_or(|c| c > MAX_OUT) {
            return;
        }
    }
    let got = match op {
        0 => t.sum(selection, keepdims),
        1 => t.prod(selection, keepdims),
        2 => t.max(selection, keepdims),
        3 => t.min(selection, keepdims),
        4 => {
            let f =
                DynTensor::from_shape_vec(&shape, t.as_slice().iter().map(|&x| x as f64).collect())
                    .unwrap();
            f.mean(selection, keepdims).map(|m| {
                DynTensor::from_shape_vec(
                    m.shape(),
                    m.as_slice().iter().map(|x| x.to_bits() as i64).collect(),
                )
                .unwrap()
            })
        }
        5 | 6 => {
            let b =
                DynTensor::from_shape_vec(&shape, t.as_slice().iter().map(|&x| x > 0).collect())
                    .unwrap();
            let r = if op == 5 {
                b.all(selection, keepdims)
            } else {
                b.any(selection, keepdims)
            };
            r.map(|r| {
                DynTensor::from_shape_vec(
                    r.shape(),
                    r.as_slice().iter().map(|&x| x as i64).collect(),
                )
                .unwrap()
            })
        }
        _ => {
            let axis = axes.first().copied().unwrap_or(0);
            let r = if keepdims {
                t.argmax(axis, true)
            } else {
                t.argmin(axis, false)
            };
            r.map(|r| {
                DynTensor::from_shape_vec(
                    r.shape(),
                    r.as_slice().iter().map(|&x| x as i64).collect(),
                )
                .unwrap()
            })
        }
    };
    let (mask, keep) = if op == 7 {
        let axis = axes.first().copied().unwrap_or(0);
        (mask_of(rank, &[axis]), keepdims)
    } else {
        (mask, keepdims)
    };
    let mask = match (mask, &got) {
        (Err(kind), Err(e)) => return assert_eq!(e.kind(), kind, "{shape:?} {axes:?}"),
        (Err(kind), Ok(_)) => panic!("{shape:?} {axes:?}: accepted, expected {kind:?}"),
        (Ok(mask), _) => mask,
    };
    let out = out_shape(&shape, mask, keep);
    let kept_count = count(&out).unwrap_or(usize::MAX);
    let empty_axis = (0..rank).find(|&a| mask & (1 << a) != 0 && shape[a] == 0);
    let no_identity = matches!(op, 2 | 3 | 7);
    match &got {
        Err(e) if no_identity && empty_axis.is_some() && kept_count > 0 => {
            assert_eq!(
                e.kind(),
                ErrorKind::EmptyReduction {
                    axis: empty_axis.unwrap()
                }
            );
            return;
        }
        Err(e) => panic!("{shape:?} {axes:?} op {op}: {e}"),
        Ok(r) => assert_eq!(r.shape(), &out[..], "{shape:?} {axes:?} op {op}"),
    }
    let r = got.unwrap();
    // Each output element from its members, at the kept multi-index.
    let kept_shape = out_shape(&shape, mask, true);
    for (k, idx) in indices(&kept_shape).iter().enumerate() {
        let m = members(&t, mask, idx);
        let want = match op {
            0 => m.iter().sum::<i64>(),
            1 => m.iter().fold(1i64, |p, &x| p.wrapping_mul(x)),
            2 => *m.iter().max().unwrap(),
            3 => *m.iter().min().unwrap(),
            4 => {
                let s = m.iter().sum::<i64>() as f64;
                let mean = s / m.len() as f64;
                let got = f64::from_bits(r.as_slice()[k] as u64);
                assert!(
                    (got.is_nan() && mean.is_nan()) || (got - mean).abs() < 1e-9,
                    "{shape:?} {axes:?} mean at {idx:?}: {got} vs {mean}"
                );
                continue;
            }
            5 => m.iter().all(|&x| x > 0) as i64,
            6 => m.iter().any(|&x| x > 0) as i64,
            _ => {
                // First index of the extreme along the axis.
                let best = if keepdims {
                    m.iter().max()
                } else {
                    m.iter().min()
                };
                m.iter().position(|x| Some(x) == best).unwrap() as i64
            }
        };
        assert_eq!(
            r.as_slice()[k],
            want,
            "{shape:?} {axes:?} op {op} at {idx:?}"
        );
    }
}
