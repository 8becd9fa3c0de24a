// O2 on memory in a blocked format: nChw4c data of 6 channels with a bias of 5 channels.
use shaped::primitive::{Alg, Binary, Blocking, Layout, MemMut, MemRef};
use shaped::{Shape, Tensor};

fn main() {
    let nchw4c = Layout::Blocked(Blocking::blocked::<1, 4>());
    let data = [0.0f32; 32];
    let x = MemRef::new([1, 6, 2, 2], &data, nchw4c).unwrap();
    let x = x.into_static::<Shape![1, 6, 2, 2]>().unwrap();
    let bias = Tensor::<f32, Shape![1, 5, 1, 1]>::splat(0.0);
    let mut out = [0.0f32; 32];
    let dst = MemMut::new([1, 6, 2, 2], &mut out, nchw4c).unwrap();
    let mut dst = dst.into_static::<Shape![1, 6, 2, 2]>().unwrap();
    let _ = Binary::<f32>::new(Alg::Add).apply_mem(&x, &bias, &mut dst);
}
