// NONE with mixed shapes: a rank mismatch does not compile (N2). rustc reports it as a type
// mismatch ("expected a tuple with 2 elements, found one with 1"): with one pairing impl per
// rank it infers the operand type from the impl before any diagnostic trait is consulted.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 3], vec![0.0; 6]).unwrap();
    let b = Tensor::<f32, Shape![3]>::zeros();
    let _ = a.try_zip_map(&b, |x, y| x + y);
}
