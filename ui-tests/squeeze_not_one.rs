use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    let _ = x.squeeze::<1>();
}
