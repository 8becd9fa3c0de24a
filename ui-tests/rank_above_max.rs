use shaped::{Shape, Tensor};

fn main() {
    let _ = Tensor::<f32, Shape![1, 1, 1, 1, 1, 1, 1, 1, 2]>::splat(0.0);
}
