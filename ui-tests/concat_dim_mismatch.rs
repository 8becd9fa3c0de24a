use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    let b = Tensor::<f32, Shape![4, 4]>::splat(1.0);
    let _ = a.concat::<0, _, _>(&b);
}
