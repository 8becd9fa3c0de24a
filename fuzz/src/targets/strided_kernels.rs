//! The no-alloc slice kernels with arbitrary strides and buffer lengths: every accepted input
//! is checked against a gather by the reference; bad strides, lengths and shapes are errors.
use super::super::{count, indices, reference_shape, small, Input};
use shaped::runtime::{binary_into, ArrayRef, BinaryPlan};
use shaped::{BinaryOp, ErrorKind};

/// A shape, strides (sometimes huge), a buffer, and whether every offset is inside it.
fn operand(input: &mut Input<'_>) -> (Vec<usize>, Vec<usize>, Vec<i16>) {
    let dims = input.shape(4, true);
    let strides: Vec<usize> = (0..dims.len() + usize::from(input.below(8) == 0))
        .map(|_| match input.below(10) {
            9 => usize::MAX / (1 + input.below(3)),
            s => s,
        })
        .collect();
    let len = input.below(80);
    let data = (0..len).map(|i| i as i16 * 3 - 50).collect();
    (dims, strides, data)
}

/// The largest offset the strides address, if it fits `usize`.
fn span(dims: &[usize], strides: &[usize]) -> Option<usize> {
    if dims.contains(&0) {
        return Some(0);
    }
    dims.iter().zip(strides).try_fold(0usize, |acc, (&d, &s)| {
        (d - 1).checked_mul(s)?.checked_add(acc)
    })
}

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let (ad, as_, av) = operand(&mut input);
    let (bd, bs, bv) = operand(&mut input);
    let mode = input.mode();
    let a = ArrayRef::with_strides(&ad, &as_, &av);
    let b = ArrayRef::with_strides(&bd, &bs, &bv);
    for (r, d, s, v) in [(&a, &ad, &as_, &av), (&b, &bd, &bs, &bv)] {
        let ok = d.len() <= shaped::rules::MAX_RANK
            && s.len() == d.len()
            && count(d).is_some()
            && span(d, s).is_some_and(|last| d.contains(&0) || last < v.len());
        assert_eq!(r.is_ok(), ok, "dims {d:?} strides {s:?} len {}", v.len());
    }
    let (Ok(a), Ok(b)) = (a, b) else { return };
    let Some(r) = reference_shape(&ad, &bd, mode) else {
        let mut out = vec![0i16; 4];
        assert!(binary_into(a, b, BinaryOp::Add, mode, &mut out).is_err());
        return;
    };
    if !small(&r.out, 512) {
        return;
    }
    let n: usize = r.out.iter().product();
    let len = if input.below(4) == 0 {
        input.below(600)
    } else {
        n
    };
    let mut out = vec![i16::MIN; len];
    let got = binary_into(a, b, BinaryOp::Sub, mode, &mut out);
    if len != n {
        assert!(matches!(
            got.map_err(|e| e.kind()),
            Err(ErrorKind::LengthMismatch { .. })
        ));
        return;
    }
    got.unwrap();
    let read = |dims: &[usize], strides: &[usize], data: &[i16], at: usize, idx: &[usize]| {
        let mut off = 0;
        for (i, (&d, &s)) in dims.iter().zip(strides).enumerate() {
            if d != 1 && at + i < idx.len() {
                off += idx[at + i] * s;
            }
        }
        data[off]
    };
    for (k, idx) in indices(&r.out).iter().enumerate() {
        let x = read(&ad, &as_, &av, r.a_at, idx);
        let y = read(&bd, &bs, &bv, r.b_at, idx);
        assert_eq!(
            out[k],
            x.wrapping_sub(y),
            "{ad:?}/{as_:?} - {bd:?}/{bs:?} {mode:?} at {idx:?}"
        );
    }
    // The prepared plan agrees on row-major copies.
    if let Ok(plan) = BinaryPlan::new(&ad, &bd, mode) {
        let dense = |dims: &[usize], strides: &[usize], data: &[i16]| -> Vec<i16> {
            indices(dims)
                .iter()
                .map(|i| read(dims, strides, data, 0, i))
                .collect()
        };
        let (da, db) = (dense(&ad, &as_, &av), dense(&bd, &bs, &bv));
        let mut again = vec![0i16; n];
        plan.binary(&da, &db, BinaryOp::Sub, &mut again).unwrap();
        assert_eq!(again, out);
    }
}
