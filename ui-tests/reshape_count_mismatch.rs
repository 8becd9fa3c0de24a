use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![2, 3, 4]>::splat(1.0);
    let _ = x.reshape::<Shape![5, 5]>();
}
