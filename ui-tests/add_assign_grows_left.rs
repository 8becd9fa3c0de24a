use shaped::{Shape, Tensor};

fn main() {
    // `+=` never grows the left side: [1, 3] cannot take a [2, 3].
    let mut a = Tensor::<f32, Shape![1, 3]>::splat(1.0);
    let b = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    a += &b;
}
