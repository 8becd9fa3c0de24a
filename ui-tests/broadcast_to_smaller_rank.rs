use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    let _ = a.broadcast_to::<Shape![3]>();
}
