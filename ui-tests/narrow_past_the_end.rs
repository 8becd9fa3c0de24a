use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![2, 5]>::splat(1.0);
    let _ = x.narrow::<1, 4, 2>();
}
