//! The program of `../shaped_app` on ndarray: the same operations in the same order.
use ndarray::{Array, Axis, IxDyn};

fn main() {
    let scale = 0.5f32; // EDIT: the build-cost script changes this line
    let (batch, inputs, outputs) = (4, 8, 16);
    let x = Array::from_shape_vec(
        IxDyn(&[batch, inputs]),
        (0..batch * inputs).map(|i| i as f32 * 0.1).collect(),
    )
    .unwrap();
    let w = Array::from_shape_vec(
        IxDyn(&[inputs, outputs]),
        (0..inputs * outputs)
            .map(|i| (i % 7) as f32 - 3.0)
            .collect(),
    )
    .unwrap();
    let b = Array::from_shape_vec(IxDyn(&[outputs]), vec![0.25; outputs]).unwrap();
    let x2 = x.into_dimensionality::<ndarray::Ix2>().unwrap();
    let w2 = w.into_dimensionality::<ndarray::Ix2>().unwrap();
    let h = (x2.dot(&w2).into_dyn() + &b).mapv(|v| v.max(0.0));
    let mean = h.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let centered = &h - &mean;
    let scaled = &centered * &ndarray::arr0(scale);
    let total = scaled.sum_axis(Axis(0));
    println!("{:?}", total.as_slice().unwrap());
}
