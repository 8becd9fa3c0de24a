// Each kind of operation whose result is too large to be stored inline is reported at the
// caller's line: a different result shape on each line, so one error for each.
use shaped::primitive::{Alg, Binary};
use shaped::{Axes, HeapTensor, Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![128, 1]>::zeros();
    let b = Tensor::<f32, Shape![1, 130]>::zeros();
    let _ = a + &b;
    let _ = a.broadcast_to::<Shape![128, 132]>();
    let _ = a.try_add(&Tensor::<f32, Shape![1, 133]>::zeros());
    let _ = Binary::new(Alg::Add).apply(&a, &Tensor::<f32, Shape![1, 134]>::zeros());
    let _ = Tensor::<f32, Shape![135, 128]>::splat(1.0);
    let _ = a.matmul_t::<false, true, _, _>(&Tensor::<f32, Shape![137, 1]>::zeros());
    let x = HeapTensor::<f32, Shape![139, 128]>::zeros();
    let _ = x.view().layer_norm::<1>(1e-5);
    let x = HeapTensor::<f32, Shape![140, 128]>::zeros();
    let _ = x.view().map(|v| v * 2.0);
    let x = HeapTensor::<f32, Shape![141, 128]>::zeros();
    let _ = -x.view();
    let x = HeapTensor::<f32, Shape![142, 128]>::zeros();
    let _ = 2.0 - &x.view();
    let x = HeapTensor::<f32, Shape![2, 143, 128]>::zeros();
    let _ = x.view().sum_axis::<0>();
    let x = HeapTensor::<f32, Shape![144, 128]>::zeros();
    let _ = x.view().permute::<Axes![1, 0]>();
    let x = HeapTensor::<f32, Shape![145, 64]>::zeros();
    let _ = x.view().cast::<f64>();
    let x = HeapTensor::<f32, Shape![73, 128]>::zeros();
    let _ = x.view().concat::<0, _, _>(&x.view());
    let x = HeapTensor::<f32, Shape![147, 128]>::zeros();
    let _ = x.to_stack();
}
