//! `DynTensor`'s shape operations (rules M1-M7) on any shape, empty ones with huge other dims
//! included: `reshape` (with `-1`), `permute`, `transpose`, `narrow`, `insert_axis`,
//! `squeeze`, `concat` and `stack`, and the same through strided views, checked against
//! index-by-index references (every element read back where the rule puts it) and, for
//! refusals, the error's kind. A shape with no elements must come back at once, whatever its
//! other dims (the fuzz run's timeout catches a loop over them).
use super::super::{count, indices, resolve, Input};
use shaped::{DynTensor, ErrorKind};

fn tensor(input: &mut Input<'_>, shape: &[usize]) -> Option<DynTensor<i32>> {
    let n = count(shape).filter(|&n| n <= 64)?;
    if shape.len() > shaped::rules::MAX_RANK {
        return None;
    }
    let data = (0..n).map(|_| input.byte() as i32).collect();
    Some(DynTensor::from_shape_vec(shape, data).unwrap())
}

/// The element of `t` at multi-index `idx`.
fn at(t: &DynTensor<i32>, idx: &[usize]) -> i32 {
    let mut offset = 0;
    for (&i, &n) in idx.iter().zip(t.shape()) {
        offset = offset * n + i;
    }
    t.as_slice()[offset]
}

/// Every element of `out` (when it has few enough to check) equals `src` at `map(index)`.
fn check_all(out: &DynTensor<i32>, what: &str, mut map: impl FnMut(&[usize]) -> i32) {
    if count(out.shape()).is_some_and(|n| n <= 4096) {
        for (k, idx) in indices(out.shape()).iter().enumerate() {
            assert_eq!(out.as_slice()[k], map(idx), "{what} at {idx:?}");
        }
    } else {
        assert!(out.is_empty(), "{what}: {:?}", out.shape());
    }
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let shape = input.shape(4, true);
    let Some(t) = tensor(&mut input, &shape) else {
        return;
    };
    let rank = shape.len();
    match input.below(7) {
        0 => {
            // permute, on the tensor and on a strided view
            let axes: Vec<i64> = (0..input.below(rank + 2)).map(|_| input.axis()).collect();
            let resolved: Option<Vec<usize>> = axes.iter().map(|&a| resolve(a, rank)).collect();
            let valid = resolved
                .as_ref()
                .is_some_and(|r| r.len() == rank && (0..rank).all(|a| r.contains(&a)));
            let got = t.permute(&axes);
            let view = t.strided().permute(&axes).map(|v| v.to_tensor());
            match (got, valid) {
                (Ok(p), true) => {
                    let r = resolved.unwrap();
                    let what = format!("permute {shape:?} {axes:?}");
                    check_all(&p, &what, |idx| {
                        let mut src = vec![0; rank];
                        for (o, &a) in r.iter().enumerate() {
                            src[a] = idx[o];
                        }
                        at(&t, &src)
                    });
                    assert_eq!(view.unwrap(), p, "{what}");
                }
                (Err(e), false) => {
                    assert!(
                        matches!(
                            e.kind(),
                            ErrorKind::PermutationLength { .. }
                                | ErrorKind::DuplicateAxis { .. }
                                | ErrorKind::BadAxis { .. }
                        ),
                        "{e}"
                    );
                    assert!(view.is_err());
                }
                (got, _) => panic!("permute {shape:?} {axes:?}: {got:?}"),
            }
        }
        1 => {
            // narrow
            let axis = input.axis();
            let (start, len) = (input.dim(true), input.dim(true));
            let got = t.narrow(axis, start, len);
            let view = t.strided().narrow(axis, start, len).map(|v| v.to_tensor());
            let fits = resolve(axis, rank)
                .filter(|&a| start.checked_add(len).is_some_and(|end| end <= shape[a]));
            match (got, fits) {
                (Ok(n), Some(a)) => {
                    let mut want = shape.clone();
                    want[a] = len;
                    assert_eq!(n.shape(), &want[..]);
                    check_all(&n, "narrow", |idx| {
                        let mut src = idx.to_vec();
                        src[a] += start;
                        at(&t, &src)
                    });
                    assert_eq!(view.unwrap(), n);
                }
                (Err(e), None) => {
                    assert!(
                        matches!(
                            e.kind(),
                            ErrorKind::BadAxis { .. } | ErrorKind::OutOfBounds { .. }
                        ),
                        "{e}"
                    );
                    assert!(view.is_err());
                }
                (got, _) => panic!("narrow {shape:?} {axis} {start} {len}: {got:?}"),
            }
        }
        2 | 3 => {
            // concat (2) or stack (3) of two or three parts, the others mostly alike
            let parts_n = 2 + input.below(2);
            let mut parts = vec![t.clone()];
            for _ in 1..parts_n {
                let mut s = shape.clone();
                if input.below(3) == 0 && rank > 0 {
                    let a = input.below(rank);
                    s[a] = input.dim(false);
                }
                match tensor(&mut input, &s) {
                    Some(p) => parts.push(p),
                    None => return,
                }
            }
            let refs: Vec<&DynTensor<i32>> = parts.iter().collect();
            let axis = input.axis();
            if input.below(2) == 0 {
                let got = DynTensor::concat(&refs, axis);
                let a = resolve(axis, rank);
                let alike = a.is_some_and(|a| {
                    parts.iter().all(|p| {
                        p.rank() == rank && (0..rank).all(|d| d == a || p.shape()[d] == shape[d])
                    })
                });
                // The joined dim and the count must not overflow (an `Overflow` error).
                let fits = a.is_some_and(|a| {
                    let mut want = shape.clone();
                    let joined = parts
                        .iter()
                        .try_fold(0usize, |n, p| n.checked_add(p.shape()[a]));
                    joined.is_some_and(|j| {
                        want[a] = j;
                        count(&want).is_some()
                    })
                });
                if alike && !fits {
                    assert_eq!(got.unwrap_err().kind(), ErrorKind::Overflow);
                    return;
                }
                match (got, alike) {
                    (Ok(c), true) => {
                        let a = a.unwrap();
                        let mut want = shape.clone();
                        want[a] = parts.iter().map(|p| p.shape()[a]).sum();
                        assert_eq!(c.shape(), &want[..]);
                        check_all(&c, "concat", |idx| {
                            let (mut i, mut k) = (idx[a], 0);
                            while i >= parts[k].shape()[a] {
                                i -= parts[k].shape()[a];
                                k += 1;
                            }
                            let mut src = idx.to_vec();
                            src[a] = i;
                            at(&parts[k], &src)
                        });
                    }
                    (Err(e), false) => {
                        let _ = e.to_string();
                    }
                    (got, _) => panic!("concat {shape:?} along {axis}: {got:?}"),
                }
            } else {
                let got = DynTensor::stack(&refs, axis);
                let a = resolve(axis, rank + 1);
                let alike = a.is_some() && parts.iter().all(|p| p.shape() == &shape[..]);
                let fits = a.is_some_and(|a| {
                    let mut want = shape.clone();
                    want.insert(a, parts.len());
                    count(&want).is_some()
                });
                if alike && !fits {
                    assert_eq!(got.unwrap_err().kind(), ErrorKind::Overflow);
                    return;
                }
                match (got, alike) {
                    (Ok(s), true) => {
                        let a = a.unwrap();
                        let mut want = shape.clone();
                        want.insert(a, parts.len());
                        assert_eq!(s.shape(), &want[..]);
                        check_all(&s, "stack", |idx| {
                            let mut src = idx.to_vec();
                            let k = src.remove(a);
                            at(&parts[k], &src)
                        });
                    }
                    (Err(e), false) => {
                        let _ = e.to_string();
                    }
                    (got, _) => panic!("stack {shape:?} along {axis}: {got:?}"),
                }
            }
        }
        4 => {
            // insert_axis, then squeeze of the same axis: the tensor back
            let axis = input.axis();
            match (t.clone().insert_axis(axis), resolve(axis, rank + 1)) {
                (Ok(u), Some(a)) => {
                    let mut want = shape.clone();
                    want.insert(a, 1);
                    assert_eq!(u.shape(), &want[..]);
                    assert_eq!(u.clone().squeeze(a as i64).unwrap(), t);
                }
                (Err(e), None) => assert!(matches!(e.kind(), ErrorKind::BadAxis { .. }), "{e}"),
                (got, _) => panic!("insert_axis {shape:?} {axis}: {got:?}"),
            }
            let squeezed = t.clone().squeeze(axis);
            match (squeezed, resolve(axis, rank).filter(|&a| shape[a] == 1)) {
                (Ok(s), Some(a)) => {
                    let mut want = shape.clone();
                    want.remove(a);
                    assert_eq!((s.shape(), s.as_slice()), (&want[..], t.as_slice()));
                }
                (Err(e), None) => {
                    assert!(
                        matches!(
                            e.kind(),
                            ErrorKind::BadAxis { .. } | ErrorKind::NotOne { .. }
                        ),
                        "{e}"
                    )
                }
                (got, _) => panic!("squeeze {shape:?} {axis}: {got:?}"),
            }
        }
        5 => {
            // The last two axes swapped; below rank 2 nothing moves.
            let x = t.transpose();
            check_all(&x, "transpose", |idx| {
                let mut i = idx.to_vec();
                if rank >= 2 {
                    i.swap(rank - 2, rank - 1);
                }
                at(&t, &i)
            });
        }
        _ => {
            // reshape: the same elements in the same order, or a refusal
            let dims: Vec<usize> = (0..input.below(5))
                .map(|_| match input.below(6) {
                    0 => shaped::rules::INFER,
                    1 => input.i64() as usize,
                    _ => input.dim(true),
                })
                .collect();
            let view = t.reshape(&dims);
            let moved = t.clone().into_shape(&dims);
            assert_eq!(view.is_ok(), moved.is_ok(), "reshape {shape:?} {dims:?}");
            if let (Ok(v), Ok(r)) = (view, moved) {
                assert_eq!(r.as_slice(), t.as_slice(), "reshape {shape:?} {dims:?}");
                assert_eq!(v.to_tensor(), r, "reshape {shape:?} {dims:?}");
                assert_eq!(count(r.shape()), count(&shape));
                for (&got, &asked) in r.shape().iter().zip(&dims) {
                    if asked != shaped::rules::INFER {
                        assert_eq!(got, asked, "reshape {shape:?} {dims:?}");
                    }
                }
            }
        }
    }
}
