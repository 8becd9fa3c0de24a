//! `DynTensor::from_shape_vec` with any shape and buffer length, then `binary`, `compare`,
//! `broadcast_to` and `reshape`, checked against index-by-index references.
use super::super::{count, indices, read_offset, reference_shape, Input};
use shaped::{BinaryOp, BroadcastToMode, CompareOp, DynTensor, ErrorKind};

fn tensor(input: &mut Input<'_>) -> Option<DynTensor<i32>> {
    let shape = input.shape(5, true);
    let total = count(&shape);
    // Mostly the right length; sometimes a wrong one, which must be an error.
    let len = match total {
        Some(n) if n <= 64 && input.below(5) != 0 => n,
        _ => input.below(70),
    };
    let data: Vec<i32> = (0..len).map(|_| input.byte() as i32 - 128).collect();
    let t = DynTensor::from_shape_vec(&shape, data);
    match (total, &t) {
        (_, Err(e)) if shape.len() > shaped::rules::MAX_RANK => {
            assert_eq!(
                e.kind(),
                ErrorKind::RankLimit {
                    max: shaped::rules::MAX_RANK
                }
            )
        }
        (Some(n), Ok(_)) => assert_eq!(n, len),
        (Some(n), Err(e)) if n != len || shape.len() > shaped::rules::MAX_RANK => {
            let _ = e.to_string();
        }
        (None, Err(e)) => assert_eq!(e.kind(), ErrorKind::Overflow),
        _ => panic!(
            "from_shape_vec({shape:?}, {len} elements): {:?}",
            t.as_ref().err()
        ),
    }
    t.ok()
}

fn element(op: BinaryOp, x: i32, y: i32) -> Option<i32> {
    Some(match op {
        BinaryOp::Add => x.wrapping_add(y),
        BinaryOp::Sub => x.wrapping_sub(y),
        BinaryOp::Mul => x.wrapping_mul(y),
        BinaryOp::Div => x
            .checked_div(y)
            .or_else(|| (y == -1).then(|| x.wrapping_neg()))?,
        BinaryOp::Maximum => x.max(y),
        BinaryOp::Minimum => x.min(y),
        BinaryOp::SquaredDifference => x.wrapping_sub(y).wrapping_mul(x.wrapping_sub(y)),
        _ => return None, // Power, Mod, FloorMod: checked for not panicking only
    })
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let (Some(a), Some(b)) = (tensor(&mut input), tensor(&mut input)) else {
        return;
    };
    let mode = input.mode();
    let op = input.binary_op();
    let got = a.binary(&b, op, mode);
    let want = reference_shape(a.shape(), b.shape(), mode);
    match (&got, &want) {
        (Ok(t), Some(r)) => {
            assert_eq!(t.shape(), &r.out[..]);
            for (k, idx) in indices(&r.out).iter().enumerate() {
                let x = a.as_slice()[read_offset(a.shape(), r.a_at, idx)];
                let y = b.as_slice()[read_offset(b.shape(), r.b_at, idx)];
                if let Some(v) = element(op, x, y) {
                    assert_eq!(t.as_slice()[k], v, "{op:?} {x} {y} at {idx:?}");
                }
            }
        }
        // Division by zero and negative powers are value errors on accepted shapes; so is an
        // output whose non-zero dims overflow.
        (Err(e), Some(r)) => assert!(
            matches!(
                e.kind(),
                ErrorKind::DivisionByZero | ErrorKind::NegativeExponent
            ) || (e.kind() == ErrorKind::Overflow && count(&r.out).is_none()),
            "{:?} {:?} {mode:?}: {e}",
            a.shape(),
            b.shape()
        ),
        (Err(e), None) => {
            let _ = e.to_string();
        }
        (Ok(t), None) => panic!(
            "{:?} {:?} {mode:?} accepted as {:?}",
            a.shape(),
            b.shape(),
            t.shape()
        ),
    }

    let cmp = a.compare(&b, CompareOp::Lt, mode);
    let cmp_ok = want.as_ref().is_some_and(|r| count(&r.out).is_some());
    assert_eq!(cmp.is_ok(), cmp_ok);
    if let (Ok(c), Some(r)) = (&cmp, &want) {
        for (k, idx) in indices(&r.out).iter().enumerate() {
            let x = a.as_slice()[read_offset(a.shape(), r.a_at, idx)];
            let y = b.as_slice()[read_offset(b.shape(), r.b_at, idx)];
            assert_eq!(c.as_slice()[k], x < y);
        }
    }

    let target = input.shape(5, true);
    let reference = reference_shape(a.shape(), &target, shaped::AutoBroadcast::Numpy);
    let out_count = reference.as_ref().map(|r| count(&r.out));
    let too_deep = target.len() > shaped::rules::MAX_RANK;
    // A valid but huge output is not built here (it would only exhaust memory).
    if !matches!(out_count, Some(Some(n)) if n > 1 << 16) {
        let to = a.broadcast(&target, BroadcastToMode::Bidirectional);
        match (&to, &reference, out_count) {
            (Err(_), _, _) if too_deep => {}
            (Ok(t), Some(r), Some(Some(_))) => assert_eq!(t.shape(), &r.out[..]),
            (Err(e), Some(_), Some(None)) => assert_eq!(e.kind(), ErrorKind::Overflow),
            (Err(_), None, _) => {}
            _ => panic!(
                "broadcast_to {:?} -> {target:?}: {:?}",
                a.shape(),
                to.map(|t| t.shape().to_vec())
            ),
        }
    }

    // Runtime reshape targets; `usize::MAX` is `INFER`, so it is kept out here.
    let new_shape: Vec<usize> = input
        .shape(5, true)
        .into_iter()
        .map(|d| d.min(usize::MAX - 1))
        .collect();
    let same = count(&new_shape).is_some() && count(a.shape()) == count(&new_shape);
    let reshaped = a.clone().into_shape(&new_shape);
    assert_eq!(
        reshaped.is_ok(),
        same && new_shape.len() <= shaped::rules::MAX_RANK,
        "{:?} -> {new_shape:?}",
        a.shape()
    );
    if let Ok(t) = reshaped {
        assert_eq!(t.as_slice(), a.as_slice());
    }
}
