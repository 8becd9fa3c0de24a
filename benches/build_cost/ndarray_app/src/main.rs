//! The program of `../shaped_app` on ndarray, written as an ndarray user would: `Array2` for
//! the matrices (fixed rank, as most ndarray programs are; `IxDyn` would instantiate ndarray's
//! dynamic-rank code and flatter shaped's figures), the same operations in the same order.
use ndarray::{Array1, Array2, Axis};

fn main() {
    let scale = 0.5f32; // EDIT: the build-cost script changes this line
    let (batch, inputs, outputs) = (4, 8, 16);
    let x = Array2::from_shape_vec(
        (batch, inputs),
        (0..batch * inputs).map(|i| i as f32 * 0.1).collect(),
    )
    .unwrap();
    let w = Array2::from_shape_vec(
        (inputs, outputs),
        (0..inputs * outputs)
            .map(|i| (i % 7) as f32 - 3.0)
            .collect(),
    )
    .unwrap();
    let b = Array1::from_elem(outputs, 0.25f32);
    let h = (x.dot(&w) + &b).mapv(|v| v.max(0.0));
    let mean = h.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let centered = &h - &mean;
    let scaled = &centered * scale;
    let total = scaled.sum_axis(Axis(0));
    println!("{:?}", total.as_slice().unwrap());
}
