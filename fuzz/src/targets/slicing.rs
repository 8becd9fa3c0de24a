//! Slicing with steps (M8), split (M9) and squeezing several axes (M3) on any shape, empty ones
//! with huge other dims included: `DynTensor::slice` with any bounds (absent, negative,
//! extreme) and any step (0, negative, extreme), against a reference that walks each axis
//! index by index as Python's `range(*slice.indices(n))` does; `DynView::slice`, which must
//! take the same elements or refuse a backwards step; `split` and `split_equal` against the
//! parts read back; `squeeze_axes` and `squeeze_all` against the rule.
use super::super::{indices, positions, Input};
use shaped::rules::Slice;
use shaped::{DynTensor, ErrorKind};

/// The indices a slice takes from an axis of `n`, by stepping from the clamped start while
/// inside the clamped end (Python's `slice.indices`), for the small dims that are walked.
fn walk(s: Slice, n: usize) -> Vec<usize> {
    let n = n as i128;
    let step = s.step as i128;
    let norm = |v: i64| {
        let v = v as i128;
        if v < 0 {
            v + n
        } else {
            v
        }
    };
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let start = s
        .start
        .map(norm)
        .unwrap_or(if step > 0 { 0 } else { n - 1 });
    let end = s.end.map(norm).unwrap_or(if step > 0 { n } else { -1 });
    let (start, end) = (start.clamp(lo, hi), end.clamp(lo, hi));
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < end) || (step < 0 && i > end) {
        out.push(i as usize);
        i += step;
    }
    out
}

fn bound(input: &mut Input<'_>) -> Option<i64> {
    match input.below(6) {
        0 => None,
        1 => Some(input.i64()),
        _ => Some(input.below(13) as i64 - 6),
    }
}

fn step(input: &mut Input<'_>) -> i64 {
    match input.below(10) {
        0 => 0,
        1 => input.i64(),
        n => [1, 2, 3, -1, -2, -3, 1, -1][n - 2],
    }
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let shape = input.shape(4, true);
    if shape.len() > shaped::rules::MAX_RANK {
        return;
    }
    let Some(t) = positions(&shape, 256) else {
        return;
    };
    let rank = shape.len();
    match input.below(3) {
        0 => {
            let slices: Vec<Slice> = (0..input.below(rank + 2))
                .map(|_| Slice::new(bound(&mut input), bound(&mut input), step(&mut input)))
                .collect();
            let got = t.slice(&slices);
            if slices.len() > rank {
                let e = got.unwrap_err();
                assert_eq!(
                    e.kind(),
                    ErrorKind::SliceCount {
                        given: slices.len(),
                        rank
                    }
                );
                return;
            }
            if let Some(a) = slices.iter().position(|s| s.step == 0) {
                assert_eq!(got.unwrap_err().kind(), ErrorKind::ZeroStep { axis: a });
                return;
            }
            let got = got.unwrap();
            let all = |a: usize| slices.get(a).copied().unwrap_or(Slice::ALL);
            // The shape from the arithmetic of each axis's length, walked when small.
            let taken: Vec<Option<Vec<usize>>> = (0..rank)
                .map(|a| (shape[a] <= 64).then(|| walk(all(a), shape[a])))
                .collect();
            for (a, w) in taken.iter().enumerate() {
                if let Some(w) = w {
                    assert_eq!(got.shape()[a], w.len(), "{shape:?} {slices:?} axis {a}");
                }
            }
            if got.is_empty() {
                assert!(got.as_slice().is_empty());
            } else {
                // Every dim is small here (the elements exist).
                let strides: Vec<usize> =
                    (0..rank).map(|a| shape[a + 1..].iter().product()).collect();
                for (k, idx) in indices(got.shape()).iter().enumerate() {
                    let src: usize = (0..rank)
                        .map(|a| taken[a].as_ref().unwrap()[idx[a]] * strides[a])
                        .sum();
                    assert_eq!(
                        got.as_slice()[k],
                        src as i64,
                        "{shape:?} {slices:?} at {idx:?}"
                    );
                }
            }
            match t.strided().slice(&slices) {
                Ok(v) => assert_eq!(v.to_tensor(), got),
                Err(e) => {
                    let backwards = (0..rank).find(|&a| all(a).step < 0 && got.shape()[a] > 1);
                    assert_eq!(
                        Some(e.kind()),
                        backwards.map(|axis| ErrorKind::NegativeStepView { axis })
                    );
                }
            }
        }
        1 => {
            let axis = input.axis();
            let sizes: Vec<usize> = (0..input.below(4)).map(|_| input.dim(true)).collect();
            let a = super::super::resolve(axis, rank);
            match (t.split(axis, &sizes), a) {
                (Err(e), None) => assert!(matches!(e.kind(), ErrorKind::BadAxis { .. })),
                (Err(e), Some(a)) => {
                    let sum = sizes.iter().try_fold(0usize, |s, &n| s.checked_add(n));
                    assert_ne!(sum, Some(shape[a]));
                    assert!(matches!(e.kind(), ErrorKind::SplitSizes { .. }), "{e}");
                }
                (Ok(parts), a) => {
                    let a = a.unwrap();
                    assert_eq!(parts.len(), sizes.len());
                    let back = parts.iter().collect::<Vec<_>>();
                    if !back.is_empty() {
                        assert_eq!(DynTensor::concat(&back, a as i64).unwrap(), t);
                    }
                }
            }
            let parts = input.below(5);
            if let (Ok(p), Some(a)) = (t.split_equal(axis, parts), a) {
                assert_eq!(p.len(), parts);
                assert!(p.iter().all(|q| q.shape()[a] * parts == shape[a]));
            }
        }
        _ => {
            let axes: Vec<i64> = (0..input.below(rank + 2)).map(|_| input.axis()).collect();
            let got = t.clone().squeeze_axes(&axes);
            let mut seen = Vec::new();
            let mut want = Ok(());
            for &x in &axes {
                let Some(a) = super::super::resolve(x, rank) else {
                    want = Err(ErrorKind::BadAxis { axis: x, rank });
                    break;
                };
                if seen.contains(&a) {
                    want = Err(ErrorKind::DuplicateAxis { axis: a });
                    break;
                }
                if shape[a] != 1 {
                    want = Err(ErrorKind::NotOne {
                        axis: a,
                        dim: shape[a],
                    });
                    break;
                }
                seen.push(a);
            }
            match (got, want) {
                (Ok(s), Ok(())) => {
                    let kept: Vec<usize> = (0..rank)
                        .filter(|a| !seen.contains(a))
                        .map(|a| shape[a])
                        .collect();
                    assert_eq!(s.shape(), &kept[..]);
                    assert_eq!(s.as_slice(), t.as_slice());
                }
                (Err(e), Err(k)) => assert_eq!(e.kind(), k),
                (g, w) => panic!("{shape:?} {axes:?}: {g:?} vs {w:?}"),
            }
            let all = t.clone().squeeze_all();
            let kept: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
            assert_eq!(all.shape(), &kept[..]);
        }
    }
}
