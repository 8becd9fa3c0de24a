use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3]>::splat(1.0);
    let _ = a.gt(0);
}
