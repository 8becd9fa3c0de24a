use shaped::{Shape, Tensor};

fn main() {
    // numpy's broadcast_to is one-directional: the 3 cannot shrink to the target's 1 (B5).
    let a = Tensor::<f32, Shape![3, 1]>::splat(1.0);
    let _ = a.broadcast_to::<Shape![2, 1, 4]>();
}
