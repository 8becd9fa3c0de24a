// B4: (4, 3, 2) cannot be broadcast to (8, 6, 4).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![4, 3, 2]>::splat(0.0);
    let _ = a.broadcast_bidirectional::<Shape![8, 6, 4]>();
}
