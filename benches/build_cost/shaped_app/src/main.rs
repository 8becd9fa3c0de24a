//! A small program on runtime shapes, as a user's crate would write it: a dense layer with a
//! bias and ReLU, a per-row normalisation and a reduction. `build_cost.sh` times its builds
//! against `../ndarray_app`, the same program on ndarray, and rebuilds both after changing the
//! line marked `EDIT`.
use shaped::DynTensor;

fn main() {
    let scale = 0.5f32; // EDIT: the build-cost script changes this line
    let (batch, inputs, outputs) = (4, 8, 16);
    let x = DynTensor::from_shape_vec(
        [batch, inputs],
        (0..batch * inputs).map(|i| i as f32 * 0.1).collect(),
    )
    .unwrap();
    let w = DynTensor::from_shape_vec(
        [inputs, outputs],
        (0..inputs * outputs)
            .map(|i| (i % 7) as f32 - 3.0)
            .collect(),
    )
    .unwrap();
    let b = DynTensor::from_shape_vec([outputs], vec![0.25; outputs]).unwrap();
    let h = (&x.matmul(&w).unwrap() + &b).relu();
    let mean = h.mean(&[1], true).unwrap();
    let centered = &h - &mean;
    let scaled = &centered * &DynTensor::scalar(scale);
    let total = scaled.sum(&[0], false).unwrap();
    println!("{:?}", total.as_slice());
}
