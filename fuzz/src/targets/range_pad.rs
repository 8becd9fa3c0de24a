//! Range (M12) and Pad (M13) on any inputs: `DynTensor::range` of integers and floats with any
//! start, limit and delta (0, extremes, NaN, infinities) against an exact count in `i128` and
//! numpy's float count, the values against `start + i * delta`; `DynTensor::pad` and
//! `pad_axes` with any shape, pads (negative, extreme), axes and mode against a reference that
//! crops, then walks each output index back into the input one reflection or wrap at a time;
//! the shape against `rules::pad_shape`; and constant padding undone by the negative pads of
//! the same amounts.
use super::super::{count, indices, positions, resolve, Input};
use shaped::rules::{pad_shape, range_len, PadMode};
use shaped::{DynTensor, ErrorKind};

/// The largest result built: a bigger count is checked by the rule alone.
const MAX_BUILT: usize = 1 << 12;

fn int_range<T>(start: i128, limit: i128, delta: i128, of: impl Fn(i128) -> T)
where
    T: shaped::rules::RangeElement + Copy + PartialEq + core::fmt::Debug + TryFrom<i128>,
{
    let (s, l, d) = (of(start), of(limit), of(delta));
    let want: Result<i128, ErrorKind> = if delta == 0 {
        Err(ErrorKind::ZeroDelta)
    } else {
        // ceil(|limit - start| / |delta|) toward the limit, none away from it; in i128,
        // exact for 64-bit inputs.
        let exact = if (delta > 0 && limit > start) || (delta < 0 && limit < start) {
            let dist = (limit - start).abs();
            let step = delta.abs();
            dist / step + i128::from(dist % step != 0)
        } else {
            0
        };
        Ok(exact)
    };
    let got = range_len(s, l, d);
    match (got, want) {
        (Err(e), Err(k)) => {
            assert_eq!(e.kind(), k);
            assert_eq!(DynTensor::range(s, l, d).unwrap_err().kind(), k);
        }
        (Ok(n), Ok(w)) => {
            assert_eq!(n as i128, w, "{start} {limit} {delta}");
            if n <= MAX_BUILT {
                let t = DynTensor::range(s, l, d).unwrap();
                assert_eq!(t.shape(), &[n]);
                for (i, v) in t.iter().enumerate() {
                    let exact = start + i as i128 * delta;
                    assert_eq!(
                        Some(*v),
                        T::try_from(exact).ok(),
                        "{start} {limit} {delta} at {i}"
                    );
                }
            }
        }
        (Err(e), Ok(w)) => {
            // Only a count past `usize` is refused.
            assert_eq!(e.kind(), ErrorKind::Overflow);
            assert!(w > usize::MAX as i128);
        }
        (g, w) => panic!("{start} {limit} {delta}: {g:?} vs {w:?}"),
    }
}

/// numpy's float count (`_calc_length`), written from its steps.
fn float_count(start: f64, limit: f64, delta: f64) -> Result<usize, ErrorKind> {
    if delta == 0.0 {
        return Err(ErrorKind::ZeroDelta);
    }
    let next = limit - start;
    let val = next / delta;
    if val.is_nan() {
        return Err(ErrorKind::RangeNaN);
    }
    if val == 0.0 && next != 0.0 {
        return Ok(if val.is_sign_negative() { 0 } else { 1 });
    }
    let c = val.ceil();
    if c <= 0.0 {
        Ok(0)
    } else if c < 18_446_744_073_709_551_615.0 {
        Ok(c as usize)
    } else {
        Err(ErrorKind::Overflow)
    }
}

fn float_range(input: &mut Input<'_>) {
    let pick = |input: &mut Input<'_>| -> f64 {
        match input.below(8) {
            0 => f64::from_bits(input.i64() as u64),
            1 => [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1e300][input.below(6)],
            _ => (input.below(41) as f64 - 20.0) / [1.0, 3.0, 10.0, 0.5][input.below(4)],
        }
    };
    let (s, l, d) = (pick(input), pick(input), pick(input));
    let want = float_count(s, l, d);
    let got = range_len(s, l, d).map_err(|e| e.kind());
    assert_eq!(got, want, "{s} {l} {d}");
    let got32 = range_len(s as f32, l as f32, d as f32).map_err(|e| e.kind());
    let want32 = float_count(
        f64::from(s as f32),
        f64::from(l as f32),
        f64::from(d as f32),
    );
    assert_eq!(got32, want32, "{s} {l} {d} as f32");
    if let Ok(n) = want {
        if n <= MAX_BUILT {
            let t = DynTensor::range(s, l, d).unwrap();
            assert_eq!(t.shape(), &[n]);
            let next = s + d;
            for (i, v) in t.iter().enumerate() {
                // numpy's fill: start, start + delta, then start + i * (next - start).
                let want = match i {
                    0 => s,
                    1 => next,
                    _ => s + i as f64 * (next - s),
                };
                assert_eq!(v.to_bits(), want.to_bits(), "{s} {l} {d} at {i}");
            }
        }
    } else {
        assert!(DynTensor::range(s, l, d).is_err());
    }
}

/// The input index of output index `o` along an axis: the kept elements start at `first`
/// and number `kept`, after `before` added ones; `None` for the constant.
fn source(o: usize, before: usize, first: usize, kept: usize, mode: PadMode) -> Option<usize> {
    let mut i = o as i128 - before as i128;
    let n = kept as i128;
    if (0..n).contains(&i) {
        return Some(first + i as usize);
    }
    match mode {
        PadMode::Constant => return None,
        PadMode::Edge => i = i.clamp(0, n - 1),
        PadMode::Wrap => i = i.rem_euclid(n),
        PadMode::Reflect if n == 1 => i = 0,
        PadMode::Reflect => {
            // One mirror at a time, about the first element or the last.
            while !(0..n).contains(&i) {
                i = if i < 0 { -i } else { 2 * (n - 1) - i };
            }
        }
    }
    Some(first + i as usize)
}

fn pad(input: &mut Input<'_>) {
    let shape = input.shape(3, true);
    if shape.len() > shaped::rules::MAX_RANK {
        return;
    }
    let Some(x) = positions(&shape, 256) else {
        return;
    };
    let rank = shape.len();
    let mode = [
        PadMode::Constant,
        PadMode::Reflect,
        PadMode::Edge,
        PadMode::Wrap,
    ][input.below(4)];
    let axes: Option<Vec<i64>> =
        (input.below(3) == 0).then(|| (0..input.below(rank + 2)).map(|_| input.axis()).collect());
    let len = match input.below(12) {
        0 => input.below(7),
        _ => 2 * axes.as_ref().map_or(rank, Vec::len),
    };
    let pads: Vec<i64> = (0..len)
        .map(|_| match input.below(10) {
            0 => input.i64(),
            1 => -(input.below(6) as i64),
            _ => input.below(8) as i64 - 2,
        })
        .collect();
    let rule = pad_shape(&shape, &pads, axes.as_deref(), mode);
    // The rule's answer, by its text: a begin and an end per axis padded, each axis once, the
    // crops within the axis, an emptied axis only in constant mode, and a count that fits.
    if pads.len() != 2 * axes.as_ref().map_or(rank, Vec::len) {
        assert!(matches!(
            rule.unwrap_err().kind(),
            ErrorKind::PadsLength { .. }
        ));
        return;
    }
    // The axes in the order given, the first one out of range or repeated being the error.
    let mut targets = Vec::new();
    for &x in axes.as_deref().unwrap_or(&[]) {
        let Some(a) = resolve(x, rank) else {
            assert_eq!(
                rule.unwrap_err().kind(),
                ErrorKind::BadAxis { axis: x, rank }
            );
            return;
        };
        if targets.contains(&a) {
            assert_eq!(
                rule.unwrap_err().kind(),
                ErrorKind::DuplicateAxis { axis: a }
            );
            return;
        }
        targets.push(a);
    }
    if axes.is_none() {
        targets = (0..rank).collect();
    }
    let k = targets.len();
    let (mut begin, mut end) = (vec![0i64; rank], vec![0i64; rank]);
    for (i, &a) in targets.iter().enumerate() {
        (begin[a], end[a]) = (pads[i], pads[k + i]);
    }
    let mut out = Vec::new();
    let mut plan = Vec::new();
    for a in 0..rank {
        let (b, e) = (begin[a] as i128, end[a] as i128);
        let kept = shape[a] as i128 + b.min(0) + e.min(0);
        if kept < 0 {
            assert!(
                matches!(rule.unwrap_err().kind(), ErrorKind::PadCrop { axis, .. } if axis == a)
            );
            return;
        }
        if kept == 0 && b.max(0) + e.max(0) > 0 && mode != PadMode::Constant {
            assert_eq!(
                rule.unwrap_err().kind(),
                ErrorKind::PadEmptyAxis { axis: a, mode }
            );
            return;
        }
        let dim = kept + b.max(0) + e.max(0);
        if dim > usize::MAX as i128 {
            assert_eq!(rule.unwrap_err().kind(), ErrorKind::Overflow);
            return;
        }
        out.push(dim as usize);
        plan.push((b.max(0) as usize, (-b).max(0) as usize, kept as usize));
    }
    let Some(total) = count(&out) else {
        assert_eq!(rule.unwrap_err().kind(), ErrorKind::Overflow);
        return;
    };
    assert_eq!(&rule.unwrap()[..], &out[..]);
    if total > MAX_BUILT {
        return;
    }
    let got = match &axes {
        None => x.pad(&pads, mode, -1),
        Some(a) => x.pad_axes(&pads, a, mode, -1),
    }
    .unwrap();
    assert_eq!(got.shape(), &out[..]);
    let strides: Vec<usize> = (0..rank).map(|a| shape[a + 1..].iter().product()).collect();
    for (at, index) in indices(&out).iter().enumerate() {
        let mut offset = Some(0);
        for a in 0..rank {
            let (before, first, kept) = plan[a];
            offset = offset.and_then(|o| {
                source(index[a], before, first, kept, mode).map(|i| o + i * strides[a])
            });
        }
        assert_eq!(
            got.as_slice()[at],
            offset.map_or(-1, |o| o as i64),
            "{index:?}"
        );
    }
    // Constant padding by the positive amounts, undone by the same amounts negated.
    let grow: Vec<i64> = pads.iter().map(|&p| p.clamp(0, 3)).collect();
    let shrink: Vec<i64> = grow.iter().map(|&p| -p).collect();
    // Filling an empty axis can make a result of a huge one beside it, or overflow.
    match pad_shape(&shape, &grow, axes.as_deref(), PadMode::Constant) {
        Ok(grown) if count(&grown).is_some_and(|n| n <= MAX_BUILT) => {}
        Ok(_) => return,
        Err(e) => {
            assert_eq!(e.kind(), ErrorKind::Overflow);
            return;
        }
    }
    let (padded, back) = match &axes {
        None => {
            let p = x.pad(&grow, PadMode::Constant, 7).unwrap();
            let b = p.pad(&shrink, PadMode::Constant, 7).unwrap();
            (p, b)
        }
        Some(a) => {
            let p = x.pad_axes(&grow, a, PadMode::Constant, 7).unwrap();
            let b = p.pad_axes(&shrink, a, PadMode::Constant, 7).unwrap();
            (p, b)
        }
    };
    assert!(padded.len() >= x.len());
    assert_eq!(back, x);
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    match input.below(4) {
        0 => {
            let (s, l, d) = (input.i64(), input.i64(), input.i64());
            let small = |v: i64| (v % 300) as i128;
            match input.below(4) {
                0 => int_range(s as i128, l as i128, d as i128, |v| v as i64),
                1 => int_range(small(s), small(l), small(d) % 20, |v| v as i64),
                2 => int_range(
                    (s as i8) as i128,
                    (l as i8) as i128,
                    (d as i8) as i128,
                    |v| v as i8,
                ),
                _ => int_range(
                    (s as u8) as i128,
                    (l as u8) as i128,
                    (d as u8 % 9) as i128,
                    |v| v as u8,
                ),
            }
        }
        1 => float_range(&mut input),
        _ => pad(&mut input),
    }
}
