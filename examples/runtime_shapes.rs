//! Runtime shapes: all four broadcast modes, the Broadcast op's modes, and errors that explain
//! themselves. Shapes here come from "a model file" (a list below), so nothing is checked at
//! compile time and every operation returns a `Result`.

use shaped::rules::BroadcastToMode;
use shaped::runtime::{binary_into, ArrayRef};
use shaped::{broadcast_shapes, AutoBroadcast, BinaryOp, CompareOp, DynTensor};

fn main() -> Result<(), shaped::Error> {
    // PDPD: B is placed onto A starting at `axis`; trailing 1s of B are ignored.
    let s = broadcast_shapes(&[2, 3, 4, 5], &[3, 1], AutoBroadcast::Pdpd { axis: 1 })?;
    println!("pdpd [2, 3, 4, 5] with [3, 1] at axis 1 -> {s}");

    let a = DynTensor::from_shape_vec([2, 3, 2], (0..12).map(|x| x as f32).collect())?;
    let bias = DynTensor::from_shape_vec([3], vec![100.0, 200.0, 300.0])?;
    let c = a.binary(&bias, BinaryOp::Add, AutoBroadcast::Pdpd { axis: 1 })?;
    println!("a + bias (pdpd, axis 1) =\n{c}\n");

    // NUMPY, with comparisons.
    let x = DynTensor::from_shape_vec([2, 1, 5], (0..10).map(|v| v as f32).collect())?;
    let y = DynTensor::from_shape_vec([4, 1], vec![1.0, 3.0, 5.0, 7.0])?;
    let sum = x.binary(&y, BinaryOp::Add, AutoBroadcast::Numpy)?;
    let less = x.compare(&y, CompareOp::Lt, AutoBroadcast::Numpy)?;
    println!("numpy [2, 1, 5] + [4, 1] -> {:?}", sum.shape());
    println!("x < y has {} true of {}\n", less.iter_true(), less.len());

    // The Broadcast op's own modes.
    let d = DynTensor::from_shape_vec([3, 1], vec![1, 2, 3])?;
    let explicit = d.broadcast(
        [2, 3, 1],
        BroadcastToMode::Explicit {
            axes_mapping: &[1, 2],
        },
    )?;
    println!("broadcast_to explicit [3, 1] -> [2, 3, 1], axes {{1, 2}}:\n{explicit}\n");

    // No allocator needed: slices in, a caller's buffer out.
    let (p, q) = ([1i32, 2, 3, 4, 5, 6], [10i32, 20]);
    let mut out = [0i32; 6];
    binary_into(
        ArrayRef::new(&[2, 3], &p)?,
        ArrayRef::new(&[2, 1], &q)?,
        BinaryOp::Mul,
        AutoBroadcast::Numpy,
        &mut out,
    )?;
    println!("no-alloc [2, 3] * [2, 1] = {out:?}\n");

    // Errors name the mode, both shapes and what failed.
    let cases: [(&[usize], &[usize], AutoBroadcast); 5] = [
        (&[3, 1, 5], &[4, 4, 5], AutoBroadcast::Numpy),
        (&[2, 3, 4, 5], &[4, 5, 1], AutoBroadcast::Pdpd { axis: -1 }),
        (&[2, 3], &[1, 2, 3], AutoBroadcast::Pdpd { axis: -1 }),
        (&[2, 3], &[3], AutoBroadcast::Pdpd { axis: -2 }),
        (&[2, 3], &[2, 1], AutoBroadcast::None),
    ];
    for (a, b, mode) in cases {
        if let Err(e) = broadcast_shapes(a, b, mode) {
            println!("error: {e}");
        }
    }
    let zero = DynTensor::from_shape_vec([1], vec![0i32])?;
    if let Err(e) = d.binary(&zero, BinaryOp::Div, AutoBroadcast::Numpy) {
        println!("error: {e}");
    }
    Ok(())
}

/// Counting helper for the printout.
trait CountTrue {
    fn iter_true(&self) -> usize;
}

impl CountTrue for DynTensor<bool> {
    fn iter_true(&self) -> usize {
        self.as_slice().iter().filter(|&&b| b).count()
    }
}
