use shaped::{Shape, Tensor};

fn main() {
    // [4, 1] does not broadcast to [2, 3, 4]: 4 meets 3.
    let x = Tensor::<f32, Shape![2, 3, 4]>::splat(1.0);
    let _ = x.sum_to::<Shape![4, 1]>();
}
