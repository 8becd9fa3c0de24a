// O4: a post-op operand [2, 3] would grow the destination [1, 3].
use shaped::primitive::{Alg, Binary, PostOp};
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![1, 3]>::splat(0.0);
    let big = Tensor::<f32, Shape![2, 3]>::splat(0.0);
    let prim = Binary::new(Alg::Add).post_op(PostOp::binary(Alg::Mul, &big));
    let _ = prim.apply(&a, &a);
}
