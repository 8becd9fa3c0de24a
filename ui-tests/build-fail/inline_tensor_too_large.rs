// A static tensor too large to be stored inline (3 MiB of f32) is a compile error that names its
// size, the limit and HeapTensor, never a stack overflow at run time.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![2, 512, 768]>::zeros();
    let _ = &x + &x;
}
