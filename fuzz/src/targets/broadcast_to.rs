//! The Broadcast op's modes (numpy, explicit with any axes_mapping, bidirectional, pdpd with
//! any axis): shapes against RULES.md's text, and values through `broadcast_into` with an
//! output buffer of any length.
use super::super::{indices, reference_shape, reference_to, small, Input};
use shaped::rules::broadcast_to_shape;
use shaped::runtime::{broadcast_into, ArrayRef};
use shaped::{AutoBroadcast, BroadcastToMode};

/// One fuzz input.
pub fn run(bytes: &[u8]) {
    let mut input = Input::new(bytes);
    let data = input.shape(6, true);
    let target = input.shape(6, true);
    let mapping: Vec<usize> = (0..input.below(7)).map(|_| input.below(8)).collect();
    let mode = match input.below(4) {
        0 => BroadcastToMode::Numpy,
        1 => BroadcastToMode::Explicit {
            axes_mapping: &mapping,
        },
        2 => BroadcastToMode::Bidirectional,
        _ => BroadcastToMode::Pdpd { axis: input.axis() },
    };
    let got = broadcast_to_shape(&data, &target, mode);
    let too_deep = data.len().max(target.len()) > shaped::rules::MAX_RANK;
    // Each data dim's output axis by the reference, and the output shape.
    let want: Option<(Vec<usize>, Vec<usize>)> = if too_deep {
        None
    } else if let BroadcastToMode::Bidirectional = mode {
        reference_shape(&data, &target, AutoBroadcast::Numpy)
            .map(|r| (r.out, (0..data.len()).map(|i| r.a_at + i).collect()))
    } else {
        reference_to(&data, &target, mode).map(|axes| (target.clone(), axes))
    };
    match (&got, &want) {
        (Ok(s), Some((out, _))) => {
            assert_eq!(s.as_slice(), &out[..], "{data:?} -> {target:?} {mode:?}")
        }
        (Err(e), None) => {
            let _ = e.to_string();
        }
        _ => panic!(
            "{data:?} -> {target:?} {mode:?}: got {:?}, reference {:?}",
            got.map(|s| s.to_vec()),
            want
        ),
    }
    // Values, for small shapes: output buffer of the right length, or a wrong one.
    let Some((out_shape, axes)) = want else {
        return;
    };
    if !small(&data, 64) || !small(&out_shape, 256) {
        return;
    }
    let n: usize = data.iter().product();
    let values: Vec<u16> = (0..n as u16).collect();
    let out_len: usize = out_shape.iter().product();
    let len = if input.below(4) == 0 {
        input.below(300)
    } else {
        out_len
    };
    let mut out = vec![u16::MAX; len];
    let r = broadcast_into(
        ArrayRef::new(&data, &values).unwrap(),
        &target,
        mode,
        &mut out,
    );
    if len != out_len {
        assert!(
            r.is_err(),
            "a buffer of {len} for {out_len} elements was accepted"
        );
        return;
    }
    r.unwrap();
    for (k, idx) in indices(&out_shape).iter().enumerate() {
        let mut off = 0;
        for (i, &d) in data.iter().enumerate() {
            off = off * d + if d == 1 { 0 } else { idx[axes[i]] };
        }
        assert_eq!(
            out[k], values[off],
            "{data:?} -> {target:?} {mode:?} at {idx:?}"
        );
    }
}
