//! shaped on an emulated Cortex-M4: 32-bit `usize`, hard-float f32, no allocator.
//! Static tensors of ranks 0-4 with every op, reductions, shape manipulation, views, the
//! no-alloc runtime kernels in all four modes, the binary primitive, error values (including
//! overflows only a 32-bit `usize` reaches) and `Display` into a fixed buffer.
#![no_std]
#![no_main]
// By-reference operators are what users write for tensors that are used again.
#![allow(clippy::op_ref)]

use cortex_m_rt::entry;
use panic_semihosting as _;
use qemu_tests::{text, Report};
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::rules::{self, BroadcastToMode};
use shaped::runtime::{self, ArrayRef, BinaryPlan};
use shaped::{
    broadcast_shapes, AutoBroadcast, BinaryOp, CompareOp, ErrorKind, LogicalOp, Shape, Tensor,
    TensorView, TensorViewMut,
};

#[entry]
fn main() -> ! {
    let mut r = Report::new();
    target_is_32_bit(&mut r);
    static_ranks_0_to_4(&mut r);
    static_every_op(&mut r);
    static_views(&mut r);
    static_reductions_and_math(&mut r);
    static_shape_manipulation(&mut r);
    static_matmul_and_dense_layer(&mut r);
    dynamic_all_four_modes(&mut r);
    broadcast_op_modes(&mut r);
    select_by_condition(&mut r);
    casts_slices_and_integer_math(&mut r);
    binary_primitive(&mut r);
    blocked_in_place_and_partial_shapes(&mut r);
    errors_and_32_bit_overflow(&mut r);
    display_into_a_fixed_buffer(&mut r);
    weights_in_flash(&mut r);
    serde_without_an_allocator(&mut r);
    quantized_int8_as_on_the_host(&mut r);
    int8_convolutions_as_by_hand(&mut r);
    r.finish()
}

fn target_is_32_bit(r: &mut Report) {
    r.eq("usize is 32 bits", &usize::BITS, &32);
}

fn static_ranks_0_to_4(r: &mut Report) {
    let s = Tensor::<f32, Shape![]>::scalar(2.5) + Tensor::<f32, Shape![]>::scalar(0.25);
    r.eq("rank 0 add", s.as_slice(), &[2.75]);

    let a = Tensor::<f32, Shape![4]>::from([1.0, 2.0, 3.0, 4.0]);
    let one = Tensor::<f32, Shape![1]>::from([10.0]);
    r.eq(
        "rank 1 [4] + [1]",
        (&a + &one).as_slice(),
        &[11.0, 12.0, 13.0, 14.0],
    );

    let m = Tensor::<f32, Shape![4, 4]>::from_fn(|[i, j]| (i * 4 + j) as f32);
    let row = Tensor::<f32, Shape![1, 4]>::from([[0.5, 1.5, 2.5, 3.5]]);
    let sum = &m + &row;
    r.eq(
        "rank 2 [4,4] + [1,4]",
        &(sum[[0, 0]], sum[[3, 3]], sum[[2, 1]]),
        &(0.5, 18.5, 10.5),
    );
    let col = Tensor::<f32, Shape![3, 1]>::from([[1.0], [2.0], [3.0]]);
    let row3 = Tensor::<f32, Shape![1, 3]>::from([[10.0, 20.0, 30.0]]);
    let outer: Tensor<f32, Shape![3, 3]> = &col * &row3;
    r.eq(
        "rank 2 [3,1] * [1,3]",
        outer.as_slice(),
        &[10.0, 20.0, 30.0, 20.0, 40.0, 60.0, 30.0, 60.0, 90.0],
    );

    let x = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
    let y = Tensor::<f32, Shape![1, 3, 1]>::from([[[1.0], [-1.0], [0.5]]]);
    let p = &x * &y;
    r.eq(
        "rank 3 [2,3,4] * [1,3,1]",
        &(p[[0, 0, 3]], p[[1, 1, 2]], p[[1, 2, 3]]),
        &(3.0, -18.0, 11.5),
    );

    let u = Tensor::<i32, Shape![2, 1, 3, 1]>::from_fn(|[i, _, k, _]| (i * 3 + k) as i32);
    let v = Tensor::<i32, Shape![1, 2, 1, 2]>::from_fn(|[_, j, _, l]| (j * 2 + l) as i32 * 100);
    let w: Tensor<i32, Shape![2, 2, 3, 2]> = &u - &v;
    r.eq(
        "rank 4 [2,1,3,1] - [1,2,1,2]",
        &(w[[1, 1, 2, 1]], w[[0, 0, 0, 0]], w.len()),
        &(5 - 300, 0, 24),
    );

    // 1 against 0 gives 0 (P5), at compile time and at run time alike.
    let empty = Tensor::<f32, Shape![0, 3]>::zeros();
    let ones = Tensor::<f32, Shape![1, 3]>::splat(1.0);
    let e: Tensor<f32, Shape![0, 3]> = &empty + &ones;
    r.eq("zero-size dim: [0,3] + [1,3]", &e.shape(), &[0, 3]);
}

fn static_every_op(r: &mut Report) {
    let a = Tensor::<f32, Shape![2, 2]>::from([[1.0, -2.0], [3.0, 4.0]]);
    let b = Tensor::<f32, Shape![1, 2]>::from([[2.0, 0.5]]);
    r.eq("f32 add", (&a + &b).as_slice(), &[3.0, -1.5, 5.0, 4.5]);
    r.eq("f32 sub", (&a - &b).as_slice(), &[-1.0, -2.5, 1.0, 3.5]);
    r.eq("f32 mul", (&a * &b).as_slice(), &[2.0, -1.0, 6.0, 2.0]);
    r.eq("f32 div", (&a / &b).as_slice(), &[0.5, -4.0, 1.5, 8.0]);
    r.eq("f32 rem", (&a % &b).as_slice(), &[1.0, -0.0, 1.0, 0.0]);
    r.eq("maximum", a.maximum(&b).as_slice(), &[2.0, 0.5, 3.0, 4.0]);
    r.eq("minimum", a.minimum(&b).as_slice(), &[1.0, -2.0, 2.0, 0.5]);
    r.eq(
        "squared_difference",
        a.squared_difference(&b).as_slice(),
        &[1.0, 6.25, 1.0, 12.25],
    );
    let pw = a.pow(&b);
    r.check(
        "pow (libm)",
        pw[[0, 0]] == 1.0 && pw[[1, 0]] == 9.0 && (pw[[1, 1]] - 2.0).abs() < 1e-6,
    );
    r.eq(
        "scalar on the right",
        (&a * 2.0).as_slice(),
        &[2.0, -4.0, 6.0, 8.0],
    );
    r.eq(
        "scalar on the left",
        (10.0 - &a).as_slice(),
        &[9.0, 12.0, 7.0, 6.0],
    );
    r.eq(
        "eq_elem",
        a.eq(&b).as_slice(),
        &[false, false, false, false],
    );
    r.eq("ne_elem", a.ne(&b).as_slice(), &[true, true, true, true]);
    r.eq("lt", a.lt(&b).as_slice(), &[true, true, false, false]);
    r.eq("le", a.le(1.0).as_slice(), &[true, true, false, false]);
    r.eq("gt", a.gt(&b).as_slice(), &[false, false, true, true]);
    r.eq("ge", a.ge(3.0).as_slice(), &[false, false, true, true]);

    let i = Tensor::<i32, Shape![3]>::from([7, -7, 12]);
    let j = Tensor::<i32, Shape![1]>::from([5]);
    r.eq("i32 div truncates", (&i / &j).as_slice(), &[1, -1, 2]);
    r.eq("i32 rem", (&i % &j).as_slice(), &[2, -2, 2]);
    r.eq("i32 and", (&i & &j).as_slice(), &[5, 1, 4]);
    r.eq("i32 or", (&i | &j).as_slice(), &[7, -3, 13]);
    r.eq("i32 xor", (&i ^ &j).as_slice(), &[2, -4, 9]);
    let big = Tensor::<i32, Shape![1]>::from([i32::MAX]);
    r.eq("i32 add wraps", (&big + 1).as_slice(), &[i32::MIN]);

    let p = Tensor::<bool, Shape![2, 2]>::from([[true, false], [true, true]]);
    let q = Tensor::<bool, Shape![1, 2]>::from([[true, false]]);
    r.eq("and", p.and(&q).as_slice(), &[true, false, true, false]);
    r.eq("or", p.or(&q).as_slice(), &[true, false, true, true]);
    r.eq("xor", p.xor(&q).as_slice(), &[false, false, false, true]);

    let bt = b.broadcast_bidirectional::<Shape![3, 2, 2]>();
    r.eq(
        "broadcast_bidirectional [1,2] -> [3,2,2]",
        &(bt.shape(), bt[[2, 1, 1]]),
        &([3, 2, 2], 0.5),
    );
    let grown =
        Tensor::<f32, Shape![2, 1]>::from([[1.0], [2.0]]).broadcast_bidirectional::<Shape![1, 3]>();
    r.eq(
        "broadcast_bidirectional may differ from the target (B2)",
        &grown.shape(),
        &[2, 3],
    );
    let z = a.zip_map(&a, |x, y| x * y);
    r.eq("zip_map (NONE)", z.as_slice(), &[1.0, 4.0, 9.0, 16.0]);
    r.eq("map", a.map(|&x| x as i32).as_slice(), &[1, -2, 3, 4]);
    let one_way = b.broadcast_to::<Shape![3, 2, 2]>();
    r.eq(
        "broadcast_to is one-directional (B5)",
        &(one_way.shape(), one_way.as_slice() == bt.as_slice()),
        &([3, 2, 2], true),
    );
    let mut acc = Tensor::<f32, Shape![2, 2]>::splat(1.0);
    acc += &b;
    acc *= 2.0;
    r.eq(
        "+= and *= broadcast onto the left",
        acc.as_slice(),
        &[6.0, 3.0, 6.0, 3.0],
    );
    let n = Tensor::<i8, Shape![2]>::from([i8::MIN, 5]);
    r.eq("neg wraps", (-&n).as_slice(), &[i8::MIN, -5]);
    let mut buf = [1i32, 2, 3, 4, 5, 6];
    let mut view = TensorViewMut::<i32, Shape![_, 3]>::with_shape([2, 3], &mut buf).unwrap();
    view -= &Tensor::<i32, Shape![3]>::from([1, 1, 1]);
    r.eq(
        "-= on a mixed view, no allocator",
        &buf,
        &[0, 1, 2, 3, 4, 5],
    );
}

fn static_reductions_and_math(r: &mut Report) {
    let x = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
    let m = x.mean_keepdims::<2>();
    r.eq("mean_keepdims shape", &m.shape(), &[2, 3, 1]);
    let centered = &x - &m;
    r.eq("x - mean broadcasts back", &centered[[1, 2, 0]], &-1.5);
    r.eq("sum_axis::<1>", &x.sum_axis::<1>()[[0, 0]], &12.0);
    r.eq("max_axis::<0>", &x.max_axis::<0>()[[2, 3]], &23.0);
    r.eq("argmin_axis::<2>", x.argmin_axis::<2>().as_slice(), &[0; 6]);
    let big = Tensor::<i32, Shape![3, 1]>::from([[1], [2], [3]]).broadcast_to::<Shape![2, 3, 4]>();
    r.eq(
        "sum_to undoes broadcast_to",
        big.sum_to::<Shape![3, 1]>().as_slice(),
        &[8, 16, 24],
    );
    let b = x.gt(10.0);
    r.eq(
        "any_axis / all_axis",
        &(b.any_axis::<2>()[[0, 2]], b.all_axis::<2>()[[0, 2]]),
        &(true, false),
    );
    let v = Tensor::<f32, Shape![3]>::from([-1.0, 0.25, 4.0]);
    r.eq(
        "relu, abs, clip",
        &(v.relu()[[0]], v.abs()[[0]], v.clip(0.0, 1.0)[[2]]),
        &(0.0, 1.0, 1.0),
    );
    r.eq(
        "sqrt, exp, ln (libm)",
        &(v.sqrt()[[2]], (v.exp().ln()[[2]] - 4.0).abs() < 1e-6),
        &(2.0, true),
    );
    r.eq(
        "sigmoid(0)",
        &Tensor::<f32, Shape![1]>::from([0.0]).sigmoid()[[0]],
        &0.5,
    );
}

fn static_shape_manipulation(r: &mut Report) {
    let x = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as i32);
    let rows = x.reshape::<Shape![6, 4]>();
    r.eq(
        "reshape is a view",
        &(rows.shape(), rows[[5, 3]]),
        &([6, 4], 23),
    );
    r.check(
        "reshape shares the elements",
        core::ptr::eq(rows.as_slice(), x.as_slice()),
    );
    r.eq(
        "flatten",
        &(x.flatten().shape(), x.flatten()[[13]]),
        &([24], 13),
    );
    let col = x.sum_keepdims::<2>();
    let sq = col.squeeze::<2>();
    r.eq(
        "squeeze a kept axis",
        &(sq.shape(), sq[[1, 2]]),
        &([2, 3], 12 + 13 + 14 + 15 + 32),
    );
    r.eq("insert_axis", &x.insert_axis::<1>().shape(), &[2, 1, 3, 4]);
    let p = x.permute::<shaped::Axes![2, 0, 1]>();
    r.eq("permute", &(p.shape(), p[[3, 1, 2]]), &([4, 2, 3], 23));
    let t = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32).transpose();
    r.eq("transpose", t.as_slice(), &[0, 3, 1, 4, 2, 5]);
    let n = x.narrow::<2, 1, 2>();
    r.eq("narrow", &(n.shape(), n[[1, 2, 1]]), &([2, 3, 2], 22));
    let c = x.concat::<1, _, _>(&n.narrow::<2, 0, 1>().broadcast_to::<Shape![2, 3, 4]>());
    r.eq("concat", &(c.shape(), c[[1, 5, 0]]), &([2, 6, 4], 21));
    let s = Tensor::stack::<0, 3>([&x, &x, &x]);
    r.eq("stack", &(s.shape(), s[[2, 1, 2, 3]]), &([3, 2, 3, 4], 23));
    // A view takes part in an operation with the static checks.
    let bias = Tensor::<i32, Shape![4]>::from([100, 200, 300, 400]);
    r.eq("view + tensor after reshape", &(rows + bias)[[5, 3]], &423);
}

fn static_matmul_and_dense_layer(r: &mut Report) {
    let a = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32);
    let b = Tensor::<i32, Shape![3, 2]>::from([[1, 0], [0, 1], [1, 1]]);
    r.eq(
        "matmul [2, 3] x [3, 2]",
        a.matmul(&b).as_slice(),
        &[2, 3, 8, 9],
    );
    let v = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    r.eq("matmul rank-1 row", v.matmul(&b).as_slice(), &[4, 5]);
    let q = Tensor::<f32, Shape![2, 1, 2, 3]>::splat(1.0);
    let k = Tensor::<f32, Shape![3, 3, 2]>::splat(0.5);
    let s = q.matmul(&k);
    r.eq(
        "batched matmul broadcasts",
        &(s.shape(), s[[1, 2, 1, 1]]),
        &([2, 3, 2, 2], 1.5),
    );
    let (x, l1, l2) = qemu_tests::mlp::parameters();
    let y = qemu_tests::mlp::forward(&x, &l1, &l2);
    r.eq(
        "dense layer 16 -> 32 -> 4 matches the example bit for bit",
        y.as_slice(),
        &qemu_tests::mlp::EXPECTED,
    );
    // The same networks as fused layers (G7): the same bits.
    let y = qemu_tests::mlp::layers(&x, &l1, &l2);
    r.eq(
        "fused dense layers 16 -> 32 -> 4 match the example bit for bit",
        y.as_slice(),
        &qemu_tests::mlp::EXPECTED,
    );
    let c = qemu_tests::controller::input();
    let bits = |t: [f32; 2]| t.map(f32::to_bits);
    r.eq(
        "the controller as fused layers gives its operators' bits",
        &bits(qemu_tests::controller::layers(&c).into_inner()),
        &bits(qemu_tests::controller::forward(&c).into_inner()),
    );
}

fn static_views(r: &mut Report) {
    static DATA: [f32; 6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let v = TensorView::<f32, Shape![2, 3]>::new(&DATA).unwrap();
    let col = Tensor::<f32, Shape![2, 1]>::from([[100.0], [200.0]]);
    let s = &v + &col;
    r.eq(
        "view + tensor",
        s.as_slice(),
        &[101.0, 102.0, 103.0, 204.0, 205.0, 206.0],
    );
    r.check(
        "view of the wrong length is an error",
        TensorView::<f32, Shape![4]>::new(&DATA).is_err(),
    );
    let mut out_buf = [0.0f32; 6];
    let mut out = TensorViewMut::<f32, Shape![2, 3]>::new(&mut out_buf).unwrap();
    v.broadcast_with_into(&col, &mut out, |x, y| x - y);
    r.eq(
        "broadcast_with_into a view",
        &out_buf,
        &[-99.0, -98.0, -97.0, -196.0, -195.0, -194.0],
    );
    // A mixed shape over a borrowed buffer: the batch is a runtime dim, the 3 is static.
    let m = TensorView::<f32, Shape![_, 3]>::with_shape([2, 3], &DATA).unwrap();
    r.eq("mixed-shape view", &(m.shape(), m[[1, 2]]), &([2, 3], 6.0));
    r.check(
        "mixed-shape view of the wrong length is an error",
        TensorView::<f32, Shape![_, 3]>::with_shape([3, 3], &DATA).is_err(),
    );
}

fn dynamic_all_four_modes(r: &mut Report) {
    let a_data = [1i32, 2, 3, 4, 5, 6];
    let b_data = [10i32, 20, 30];
    let a = ArrayRef::new(&[2, 3], &a_data).unwrap();
    let b = ArrayRef::new(&[3], &b_data).unwrap();
    let mut out = [0i32; 6];
    runtime::binary_into(a, b, BinaryOp::Add, AutoBroadcast::Numpy, &mut out).unwrap();
    r.eq("numpy [2,3] + [3]", &out, &[11, 22, 33, 14, 25, 36]);

    let e = runtime::binary_into(a, b, BinaryOp::Add, AutoBroadcast::None, &mut out).unwrap_err();
    r.eq(
        "none rejects [2,3] with [3]",
        &e.kind(),
        &ErrorKind::RankMismatch,
    );
    let same = ArrayRef::new(&[2, 3], &a_data).unwrap();
    runtime::binary_into(a, same, BinaryOp::Mul, AutoBroadcast::None, &mut out).unwrap();
    r.eq("none [2,3] * [2,3]", &out, &[1, 4, 9, 16, 25, 36]);

    // PDPD with an axis: B [2] placed at axis 0 of A [2, 3].
    let c_data = [100i32, 200];
    let c = ArrayRef::new(&[2], &c_data).unwrap();
    runtime::binary_into(
        a,
        c,
        BinaryOp::Add,
        AutoBroadcast::Pdpd { axis: 0 },
        &mut out,
    )
    .unwrap();
    r.eq(
        "pdpd axis 0 [2,3] + [2]",
        &out,
        &[101, 102, 103, 204, 205, 206],
    );
    let bad = runtime::binary_into(
        a,
        c,
        BinaryOp::Add,
        AutoBroadcast::Pdpd { axis: -1 },
        &mut out,
    );
    r.check("pdpd axis -1 [2,3] + [2] is an error", bad.is_err());
    let shape = broadcast_shapes(&[2, 3, 4, 5], &[3, 1], AutoBroadcast::Pdpd { axis: 1 }).unwrap();
    r.eq(
        "pdpd shape, trailing 1 ignored",
        shape.as_slice(),
        &[2, 3, 4, 5][..],
    );

    let col_data = [1i32, 2];
    let col = ArrayRef::new(&[2, 1], &col_data).unwrap();
    let row = ArrayRef::new(&[1, 3], &b_data).unwrap();
    runtime::binary_into(
        col,
        row,
        BinaryOp::Sub,
        AutoBroadcast::Bidirectional,
        &mut out,
    )
    .unwrap();
    r.eq(
        "bidirectional [2,1] - [1,3]",
        &out,
        &[-9, -19, -29, -8, -18, -28],
    );

    let mut flags = [false; 6];
    runtime::compare_into(a, b, CompareOp::Gt, AutoBroadcast::Numpy, &mut flags).unwrap();
    r.eq("compare_into", &flags, &[false; 6]);
    let t = [true, false];
    let tl = ArrayRef::new(&[2, 1], &t).unwrap();
    let tr = ArrayRef::new(&[1, 2], &t).unwrap();
    let mut lo = [false; 4];
    runtime::logical_into(tl, tr, LogicalOp::And, AutoBroadcast::Numpy, &mut lo).unwrap();
    r.eq("logical_into", &lo, &[true, false, false, false]);

    // Transposed input through strides.
    let t_in = ArrayRef::with_strides(&[3, 2], &[1, 3], &a_data).unwrap();
    let zero = [0i32];
    let z = ArrayRef::new(&[1], &zero).unwrap();
    runtime::binary_into(t_in, z, BinaryOp::Add, AutoBroadcast::Numpy, &mut out).unwrap();
    r.eq("strided (transposed) input", &out, &[1, 4, 2, 5, 3, 6]);

    let plan = BinaryPlan::new(&[2, 3], &[3], AutoBroadcast::Numpy).unwrap();
    let fa = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let fb = [0.5f32, 0.25, 0.125];
    let mut fo = [0.0f32; 6];
    plan.binary(&fa, &fb, BinaryOp::Mul, &mut fo).unwrap();
    r.eq("BinaryPlan f32", &fo, &[0.5, 0.5, 0.375, 2.0, 1.25, 0.75]);
}

fn broadcast_op_modes(r: &mut Report) {
    let d = [1i32, 2, 3];
    let data = ArrayRef::new(&[3], &d).unwrap();
    let mut out = [0i32; 6];
    runtime::broadcast_into(data, &[2, 3], BroadcastToMode::Numpy, &mut out).unwrap();
    r.eq("broadcast_to numpy", &out, &[1, 2, 3, 1, 2, 3]);
    let col = ArrayRef::new(&[3], &d).unwrap();
    let mut out2 = [0i32; 6];
    runtime::broadcast_into(
        col,
        &[3, 2],
        BroadcastToMode::Explicit { axes_mapping: &[0] },
        &mut out2,
    )
    .unwrap();
    r.eq("broadcast_to explicit", &out2, &[1, 1, 2, 2, 3, 3]);
    runtime::broadcast_into(col, &[3, 2], BroadcastToMode::Pdpd { axis: 0 }, &mut out2).unwrap();
    r.eq("broadcast_to pdpd axis 0", &out2, &[1, 1, 2, 2, 3, 3]);
    let shape =
        rules::broadcast_to_shape(&[2, 1], &[1, 3], BroadcastToMode::Bidirectional).unwrap();
    r.eq(
        "broadcast_to bidirectional shape",
        shape.as_slice(),
        &[2, 3][..],
    );
    let e = rules::broadcast_to_shape(&[2, 3], &[3], BroadcastToMode::Numpy).unwrap_err();
    r.eq(
        "broadcast_to numpy: target rank too small",
        &e.kind(),
        &ErrorKind::TargetRankTooSmall,
    );
}

/// Selection by a condition (W1, W2) without an allocator: the runtime kernels into a buffer
/// and the static methods.
fn select_by_condition(r: &mut Report) {
    let mut out = [0i32; 6];
    runtime::where_into(
        ArrayRef::new(&[3], &[true, false, true]).unwrap(),
        ArrayRef::new(&[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap(),
        ArrayRef::new(&[], &[0]).unwrap(),
        &mut out,
    )
    .unwrap();
    r.eq("where_into broadcasts all three", &out, &[1, 0, 3, 4, 0, 6]);
    let mut out = [0i32; 3];
    let e = runtime::select_into(
        ArrayRef::new(&[2, 3], &[true; 6]).unwrap(),
        ArrayRef::new(&[3], &[1, 2, 3]).unwrap(),
        ArrayRef::new(&[1], &[0]).unwrap(),
        AutoBroadcast::Numpy,
        &mut out,
    )
    .unwrap_err();
    r.eq(
        "select_into: the condition may not grow",
        &e.kind(),
        &ErrorKind::ConditionGrows,
    );
    let mask = Tensor::<bool, Shape![2, 1]>::from([[true], [false]]);
    let a = Tensor::<f32, Shape![2, 2]>::from([[1.0, 2.0], [3.0, 4.0]]);
    let b = Tensor::<f32, Shape![]>::splat(-1.0);
    r.eq(
        "static where_cond and select",
        &(
            mask.where_cond(&a, &b).into_inner(),
            mask.select(&a, &b).into_inner(),
        ),
        &([[1.0, 2.0], [-1.0, -1.0]], [[1.0, 2.0], [-1.0, -1.0]]),
    );
}

/// Casts (C1-C3), static slices (M8), integer math and reductions from an initial value (R3,
/// R6), with no allocator and a 32-bit `usize`.
fn casts_slices_and_integer_math(r: &mut Report) {
    let x = Tensor::<f32, Shape![4]>::from([-1.7, 300.2, f32::NAN, 2.5]);
    r.eq(
        "cast f32 to i8 and u8 (C1), saturating (C2)",
        &(
            x.cast::<i8>().into_inner(),
            x.cast_saturating::<u8>().into_inner(),
        ),
        &([-1, 127, 0, 2], [0, 255, 0, 2]),
    );
    r.eq(
        "try_cast names the first element with no value (C3)",
        &x.try_cast::<i16>().unwrap_err().kind(),
        &ErrorKind::CastOutOfRange { index: 2 },
    );
    let i = Tensor::<i32, Shape![4]>::from([300, -1, 7, i32::MIN]);
    r.eq(
        "cast i32 to u8 wraps, i32 to f32 rounds",
        &(i.cast::<u8>().into_inner(), i.cast::<f32>().into_inner()),
        &([44, 255, 7, 0], [300.0, -1.0, 7.0, -2147483648.0]),
    );
    r.eq(
        "integer abs, relu, sign",
        &(
            i.abs().into_inner(),
            i.relu().into_inner(),
            i.sign().into_inner(),
        ),
        &([300, 1, 7, i32::MIN], [300, 0, 7, 0], [1, -1, 1, -1]),
    );
    let m = Tensor::<i16, Shape![2, 5]>::from_fn(|[a, b]| (a * 5 + b) as i16 - 4);
    r.eq(
        "static step and flip (M8)",
        &m.step::<1, 2>().flip::<0>().into_inner(),
        &[[1, 3, 5], [-4, -2, 0]],
    );
    r.eq(
        "integer mean truncates, max from an initial value",
        &(
            m.mean_axis::<1>().into_inner(),
            m.max_axis_initial::<1>(3).into_inner(),
        ),
        &([-2, 3], [3, 5]),
    );
    let t = Tensor::<u8, Shape![4]>::from([2, 9, 9, 1]);
    r.eq(
        "argmax first and last (R6)",
        &(
            t.argmax_axis::<0>().into_inner(),
            t.argmax_last_axis::<0>().into_inner(),
        ),
        &(1, 2),
    );
}

fn binary_primitive(r: &mut Report) {
    // NCHW [1, 2, 2, 2], bias and scale per channel, no allocator.
    let x = [-3.0f32, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, 4.0];
    let bias = [1.0f32, -1.0];
    let scale = [10.0f32, 100.0];
    let src = MemRef::new([1, 2, 2, 2], &x, Layout::RowMajor).unwrap();
    let b = MemRef::new([1, 2, 1, 1], &bias, Layout::RowMajor).unwrap();
    let s = MemRef::new([1, 2, 1, 1], &scale, Layout::RowMajor).unwrap();
    let prim = Binary::new(Alg::Add)
        .post_op(PostOp::Eltwise(Eltwise::Relu))
        .post_op(PostOp::binary(Alg::Mul, &s));
    let mut buf = [0.0f32; 8];
    let mut dst = MemMut::any([1, 2, 2, 2], &mut buf).unwrap();
    prim.run_into(&src, &b, &mut dst).unwrap();
    r.eq(
        "binary add+relu+mul",
        &buf,
        &[0.0, 0.0, 20.0, 40.0, 0.0, 0.0, 100.0, 300.0],
    );
    let mut cmp = [0.0f32; 8];
    let mut dst = MemMut::new([1, 2, 2, 2], &mut cmp, Layout::ChannelsLast).unwrap();
    Binary::new(Alg::Gt).run_into(&src, &b, &mut dst).unwrap();
    // Row-major [[0, 0, 0, 1], [0, 1, 1, 1]], stored (h, w, c).
    r.eq(
        "binary gt into channels-last",
        &cmp,
        &[0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 1.0],
    );
    let t = Tensor::<f32, Shape![2, 2]>::from([[1.0, 4.0], [9.0, 16.0]]);
    let z = Tensor::<f32, Shape![1, 1]>::from([[0.0]]);
    let rt = Binary::new(Alg::Add)
        .post_op(Eltwise::Sqrt)
        .apply(&t, &z)
        .unwrap();
    r.eq(
        "binary static apply + sqrt (libm)",
        rt.as_slice(),
        &[1.0, 2.0, 3.0, 4.0],
    );
}

/// Issue 40's rules without an allocator: an nChw4c run with its padding, an `any`
/// destination choosing the blocked format, a run in place, an `s32` store, stretched axes,
/// and symbols and the Broadcast op on partial shapes.
fn blocked_in_place_and_partial_shapes(r: &mut Report) {
    use shaped::primitive::{reorder, Blocking};
    use shaped::rules::partial::{
        broadcast_partial, broadcast_to_partial, Interval, PartialShape, Symbol,
    };
    let nchw4c = Layout::Blocked(Blocking::blocked::<1, 4>());
    // [1, 6, 1, 2]: channels 0-3 then 4-5 and two channels of padding.
    let plain = [
        0.0f32, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0,
    ];
    r.eq(
        "blocked buffer length",
        &nchw4c.buffer_len([1, 6, 1, 2]),
        &Ok(16),
    );
    let mut x = [-1.0f32; 16];
    let src = MemRef::new([1, 6, 1, 2], &plain, Layout::RowMajor).unwrap();
    let reordered = reorder(
        &src,
        &mut MemMut::new([1, 6, 1, 2], &mut x, nchw4c).unwrap(),
    );
    r.eq(
        "reorder into nChw4c",
        &reordered.map_err(|e| e.kind()),
        &Ok(()),
    );
    r.eq(
        "nChw4c memory order",
        &x,
        &[
            0.0, 2.0, 4.0, 6.0, 1.0, 3.0, 5.0, 7.0, 8.0, 10.0, -1.0, -1.0, 9.0, 11.0, -1.0, -1.0,
        ],
    );
    let bias = [100.0f32, 200.0, 300.0, 400.0, 500.0, 600.0];
    let b = MemRef::new([1, 6, 1, 1], &bias, Layout::RowMajor).unwrap();
    let a = MemRef::new([1, 6, 1, 2], &x, nchw4c).unwrap();
    let mut out = [-7.0f32; 16];
    let mut dst = MemMut::new([1, 6, 1, 2], &mut out, nchw4c).unwrap();
    let ran = Binary::new(Alg::Add).run_into(&a, &b, &mut dst);
    r.eq("nChw4c add runs", &ran.map_err(|e| e.kind()), &Ok(()));
    r.eq(
        "nChw4c add at c=5, w=1",
        &dst.get(&[0, 5, 0, 1]).copied(),
        &Some(611.0),
    );
    r.eq(
        "nChw4c padding untouched",
        &(out[10], out[15]),
        &(-7.0, -7.0),
    );
    let (layout, len) = Binary::<f32>::new(Alg::Add).dst_for(&a, &b).unwrap();
    r.eq("any picks nChw4c", &(layout == nchw4c, len), &(true, 16));
    // In place over the plain tensor.
    let mut y = plain;
    let mut m = MemMut::new([1, 6, 1, 2], &mut y, Layout::RowMajor).unwrap();
    let ran = Binary::new(Alg::Mul).run_in_place(&mut m, &b);
    r.eq("in place runs", &ran.map_err(|e| e.kind()), &Ok(()));
    r.eq("in place values", &(y[0], y[11]), &(0.0, 6600.0));
    // s32 destination: ties to even, saturation.
    let halves = [2.5f32, 3.5, -2.5, 3e9];
    let zero = [0.0f32];
    let mut ints = [0i32; 4];
    let ran = Binary::new(Alg::Add).run_mixed_into(
        &MemRef::new([4], &halves, Layout::RowMajor).unwrap(),
        &MemRef::new([1], &zero, Layout::RowMajor).unwrap(),
        &mut MemMut::new([4], &mut ints, Layout::RowMajor).unwrap(),
    );
    r.eq("s32 store runs", &ran.map_err(|e| e.kind()), &Ok(()));
    r.eq("s32 store", &ints, &[2, 4, -2, i32::MAX]);
    // Stretched axes: the compile-time constant and the runtime answer.
    const BIAS_AXES: rules::AxisSet =
        shaped::typed::rules::Stretched::<Shape![1, 6, 1, 1], Shape![2, 6, 3, 3]>::AXES;
    let runtime_axes =
        rules::stretched_axes_to(&[1, 6, 1, 1], &[2, 6, 3, 3], BroadcastToMode::Numpy);
    r.eq("stretched axes", &runtime_axes, &Ok(BIAS_AXES));
    r.eq(
        "stretched axes text",
        text::<16>(BIAS_AXES).as_str(),
        "{0, 2, 3}",
    );
    // Symbols through a broadcast, and the Broadcast op on an unknown target.
    let batch = Symbol::new(1);
    let data = PartialShape::new(&[Interval::DYNAMIC, Interval::fixed(3)])
        .unwrap()
        .with_symbols(&[batch, None])
        .unwrap();
    let out = broadcast_partial(
        &data,
        &PartialShape::fixed(&[1, 3]).unwrap(),
        AutoBroadcast::Numpy,
    );
    r.eq("symbol kept", &out.map(|o| o.symbol(0)), &Ok(batch));
    let to = broadcast_to_partial(
        &data,
        &PartialShape::dynamic(3).unwrap(),
        BroadcastToMode::Numpy,
    );
    r.eq(
        "broadcast op onto an unknown target",
        text::<32>(to.unwrap()).as_str(),
        "{-1,-1,-1}",
    );
}

fn errors_and_32_bit_overflow(r: &mut Report) {
    let e = broadcast_shapes(&[3, 1, 5], &[4, 4, 5], AutoBroadcast::Numpy).unwrap_err();
    r.eq(
        "error text",
        text::<128>(e).as_str(),
        "cannot broadcast [3, 1, 5] with [4, 4, 5] (numpy): axis 0 has 3 vs 4",
    );
    // 65536 * 65536 = 2^32: fine on a 64-bit host, an overflow here.
    r.eq(
        "element count 2^32 overflows",
        &rules::checked_element_count(&[65536, 65536]),
        &None,
    );
    let e = ArrayRef::<f32>::new(&[65536, 65536], &[]).unwrap_err();
    r.eq(
        "ArrayRef 2^32 elements: Overflow",
        &e.kind(),
        &ErrorKind::Overflow,
    );
    let e = BinaryPlan::new(&[65536, 1], &[1, 65536], AutoBroadcast::Numpy).unwrap_err();
    r.eq(
        "plan output of 2^32 elements: Overflow",
        &e.kind(),
        &ErrorKind::Overflow,
    );
    // 2^29 f32 = 2^31 bytes: past isize::MAX on this target.
    let e = MemRef::<f32>::new([1 << 29], &[], Layout::RowMajor).unwrap_err();
    r.eq(
        "2^31 bytes past isize::MAX: Overflow",
        &e.kind(),
        &ErrorKind::Overflow,
    );
    let e = ArrayRef::<u8>::with_strides(&[2, 2], &[usize::MAX, 1], &[0; 4]).unwrap_err();
    r.eq("huge stride: Overflow", &e.kind(), &ErrorKind::Overflow);
    let mut out = [0i32; 2];
    let zero = [0i32];
    let a = ArrayRef::new(&[2], &[1i32, 2]).unwrap();
    let z = ArrayRef::new(&[1], &zero).unwrap();
    let e = runtime::binary_into(a, z, BinaryOp::Div, AutoBroadcast::Numpy, &mut out).unwrap_err();
    r.eq(
        "integer division by zero is an error",
        &e.kind(),
        &ErrorKind::DivisionByZero,
    );
    let e = broadcast_shapes(&[2, 3], &[3], AutoBroadcast::Pdpd { axis: -2 }).unwrap_err();
    r.eq("pdpd axis -2", &e.kind(), &ErrorKind::NegativeAxis);
    let e = broadcast_shapes(&[2, 3], &[3], AutoBroadcast::Pdpd { axis: i64::MAX }).unwrap_err();
    r.eq(
        "pdpd huge axis",
        &e.kind(),
        &ErrorKind::AxisOutOfRange { max: 1 },
    );
    let too_deep = [1usize; 17];
    let e = broadcast_shapes(&too_deep, &[1], AutoBroadcast::Numpy).unwrap_err();
    r.eq(
        "rank 17 without alloc",
        &e.kind(),
        &ErrorKind::RankLimit { max: 16 },
    );
    let mut small = [0i32; 5];
    let b = ArrayRef::new(&[3], &[1i32, 2, 3]).unwrap();
    let ab = ArrayRef::new(&[2, 3], &[1i32, 2, 3, 4, 5, 6]).unwrap();
    let e =
        runtime::binary_into(ab, b, BinaryOp::Add, AutoBroadcast::Numpy, &mut small).unwrap_err();
    r.check(
        "output buffer too short",
        matches!(e.kind(), ErrorKind::LengthMismatch { .. }),
    );
}

fn display_into_a_fixed_buffer(r: &mut Report) {
    let t = Tensor::<i32, Shape![2, 3]>::from([[1, -20, 3], [40, 5, 600]]);
    r.eq(
        "Display 2x3",
        text::<64>(&t).as_str(),
        "[[  1 -20   3]\n [ 40   5 600]]",
    );
    let f = Tensor::<f32, Shape![2]>::from([0.5, -1.25]);
    r.eq(
        "Display precision",
        text::<32>(format_args!("{f:.1}")).as_str(),
        "[ 0.5 -1.2]",
    );
    let s = Tensor::<f32, Shape![]>::scalar(3.5);
    r.eq("Display rank 0", text::<16>(&s).as_str(), "3.5");
}

/// `examples/weights_in_flash.rs` on the target: the MLP's parameters as bytes in flash, read
/// through typed views (feature `bytemuck`), give the dense-layer outputs bit for bit.
fn weights_in_flash(r: &mut Report) {
    #[repr(C, align(4))]
    struct Flash<const N: usize>([u8; N]);
    static PARAMS: Flash<2704> = Flash(*include_bytes!("../../examples/data/mlp_f32le.bin"));
    let p = &PARAMS.0;
    let (Ok(w1), Ok(b1), Ok(w2), Ok(b2)) = (
        TensorView::<f32, Shape![16, 32]>::from_bytes(&p[..2048]),
        TensorView::<f32, Shape![32]>::from_bytes(&p[2048..2176]),
        TensorView::<f32, Shape![32, 4]>::from_bytes(&p[2176..2688]),
        TensorView::<f32, Shape![4]>::from_bytes(&p[2688..]),
    ) else {
        r.eq("weights views", &false, &true);
        return;
    };
    r.eq(
        "the views read flash in place",
        &w1.as_bytes().as_ptr(),
        &p.as_ptr(),
    );
    let (x, _, _) = qemu_tests::mlp::parameters();
    let y = (x.matmul(&w1) + b1).relu().matmul(&w2) + b2;
    r.eq(
        "MLP on views of flash bytes matches the example bit for bit",
        y.as_slice(),
        &qemu_tests::mlp::EXPECTED,
    );
    let short = TensorView::<f32, Shape![4]>::from_bytes(&p[..12]).map(|_| ());
    r.eq(
        "short bytes are an error",
        &short.map_err(|e| e.kind()),
        &Err(ErrorKind::ByteLength {
            expected: 16,
            actual: 12,
        }),
    );
    let misaligned = TensorView::<f32, Shape![4]>::from_bytes(&p[1..17]).map(|_| ());
    r.eq(
        "misaligned bytes are an error",
        &misaligned.map_err(|e| e.kind()),
        &Err(ErrorKind::Misaligned { align: 4 }),
    );
}

/// Feature `serde` with no allocator: a static tensor written to and read from a stack buffer
/// (postcard), and a wrong shape refused.
fn serde_without_an_allocator(r: &mut Report) {
    let t = Tensor::<i16, Shape![2, 3]>::from([[1, -2, 3], [400, 5, -600]]);
    let mut buf = [0u8; 64];
    let Ok(bytes) = postcard::to_slice(&t, &mut buf) else {
        r.eq("postcard writes", &false, &true);
        return;
    };
    let bytes: &[u8] = bytes;
    r.eq(
        "postcard header: rank, dims, count",
        &bytes[..4],
        &[2, 2, 3, 6],
    );
    let back = postcard::from_bytes::<Tensor<i16, Shape![2, 3]>>(bytes);
    r.eq("postcard round trip", &back.ok(), &Some(t));
    let wrong = postcard::from_bytes::<Tensor<i16, Shape![3, 2]>>(bytes);
    r.eq("a wrong static shape is refused", &wrong.is_err(), &true);
    let short = postcard::from_bytes::<Tensor<i16, Shape![2, 3]>>(&bytes[..bytes.len() - 1]);
    r.eq("truncated input is refused", &short.is_err(), &true);
}

include!("../../tests/common/quant_pairs.rs");

/// Quantized int8 arithmetic (rules Q1-Q14) with no allocator: eight prepared operations over
/// every pair of inputs hash to the values the host computes (`tests/common/quant_pairs.rs`, whose
/// operations are held to TFLM's bytes), and a static broadcast add written into a stack
/// buffer.
fn quantized_int8_as_on_the_host(r: &mut Report) {
    use shaped::quant::{Activation, QAdd, Quant, Rounding};
    r.eq(
        "quantized int8 over every input pair, as on the host",
        &all_pairs_hashes().map_err(|e| e.kind()),
        &Ok(QUANT_HASHES),
    );
    let (a, b, o) = (
        Quant::<i8>::new_const(0.02, -5),
        Quant::new_const(0.03, 7),
        Quant::new_const(0.05, 3),
    );
    let Ok(add1) = QAdd::new(a, b, o, Activation::None, Rounding::Double) else {
        r.eq("a quantized add prepares", &false, &true);
        return;
    };
    let x = Tensor::<i8, Shape![2, 3]>::from([[100, -100, 0], [127, -128, 5]]).quantized(a);
    let y = Tensor::<i8, Shape![3]>::from([50, -100, 127]).quantized(b);
    let mut buf = [0i8; 6];
    let ran = TensorViewMut::<i8, Shape![2, 3]>::new(&mut buf)
        .and_then(|mut out| add1.run_into(&x, &y, &mut out));
    r.eq(
        "a static broadcast add runs",
        &ran.map_err(|e| e.kind()),
        &Ok(()),
    );
    r.eq(
        "a static broadcast add into a stack buffer",
        &buf,
        &[71, -99, 77, 82, -110, 79],
    );
    let other = Tensor::<i8, Shape![3]>::from([50, -100, 127]).quantized(a);
    r.eq(
        "operands of other parameters are refused",
        &add1.run(&x, &other).map(|_| ()).map_err(|e| e.kind()),
        &Err(ErrorKind::Quant(shaped::error::QuantProblem::NotPrepared)),
    );
    // oneDNN's contract (Q15) in the primitive, with no allocator: u8 and i8 sources, a
    // per-channel scale post-op in f32, an i8 destination rounded half to even.
    let src = [10u8, 20, 30, 40];
    let bias = [-4i8, 6];
    let scale = [1.0f32, -0.5];
    let s = MemRef::new([2, 1], &scale, Layout::RowMajor).unwrap();
    let prim = Binary::new(Alg::Add)
        .scales(0.25, 1.0)
        .post_op(PostOp::binary(Alg::Mul, &s));
    let mut out = [0i8; 4];
    let ran = prim.run_mixed_into(
        &MemRef::new([2, 2], &src, Layout::RowMajor).unwrap(),
        &MemRef::new([2, 1], &bias, Layout::RowMajor).unwrap(),
        &mut MemMut::new([2, 2], &mut out, Layout::RowMajor).unwrap(),
    );
    r.eq(
        "an int8 primitive runs",
        &ran.map_err(|e| e.kind()),
        &Ok(()),
    );
    // 2.5 - 4 = -1.5 -> -2; 5 - 4 = 1; (7.5 + 6) * -0.5 = -6.75 -> -7; (10 + 6) * -0.5 = -8.
    r.eq(
        "an int8 primitive into a stack buffer",
        &out,
        &[-2, 1, -7, -8],
    );
    per_axis_in_flash(r);
    quantized_dense(r);
    sine_model(r);
    residual_model(r);
}

// Shared with the host's example and test, which use the items this suite does not.
#[allow(dead_code)]
#[path = "../../examples/sine/network.rs"]
mod sine;

#[allow(dead_code)]
#[path = "../../examples/residual/network.rs"]
mod residual;

/// The int8 residual network of `examples/residual.rs` on all 1000 of its inputs, as on the
/// host: TFLM's outputs, no allocator.
fn residual_model(r: &mut Report) {
    let (mut same, mut count) = (0, 0);
    for (x, want) in residual::expected() {
        same += (residual::forward(x) == Ok(want)) as u32;
        count += 1;
    }
    r.eq(
        "the residual network gives TFLM's outputs",
        &(same, count),
        &(1000, 1000),
    );
}

/// The int8 sine model of `examples/sine.rs` on all 1000 of its inputs, as on the host: TFLM's
/// outputs, no allocator.
fn sine_model(r: &mut Report) {
    let (mut same, mut count) = (0, 0);
    for (_, input, want) in sine::expected() {
        same += (sine::forward(input) == Ok(want)) as u32;
        count += 1;
    }
    r.eq(
        "the sine model gives TFLM's outputs",
        &(same, count),
        &(1000, 1000),
    );
}

/// A quantized dense layer (Q17, Q18) on static tensors, no allocator: the per-tensor and
/// per-channel products of the host's doc examples, into stack buffers.
fn quantized_dense(r: &mut Report) {
    use shaped::quant::{Activation, PerAxis, QMatMul, QMatMulPerChannel, Quant, Rounding};
    const OP: QMatMul<i8> = match QMatMul::new(
        Quant::new_const(0.5, 1),
        Quant::new_const(0.25, 0),
        Quant::new_const(0.125, -3),
        Activation::None,
        Rounding::Double,
    ) {
        Ok(op) => op,
        Err(_) => panic!("valid parameters"),
    };
    let (qa, qb) = OP.inputs();
    let x = Tensor::<i8, Shape![1, 2]>::from([[3, 5]]).quantized(qa);
    let w = Tensor::<i8, Shape![3, 2]>::from([[4, 0], [0, 4], [4, 4]]).quantized(qb);
    let mut out = Tensor::<i8, Shape![1, 3]>::zeros();
    let ran = OP.fully_connected_into(&x, &w, None, &mut out);
    r.eq(
        "an int8 dense layer runs",
        &ran.map_err(|e| e.kind()),
        &Ok(()),
    );
    r.eq("an int8 dense layer", out.as_slice(), &[5i8, 13, 21][..]);
    static SCALES: [f32; 2] = [0.5, 0.25];
    static ZEROS: [i32; 2] = [0, 0];
    const W: PerAxis<'static, i8, 2> = PerAxis::new_const(&SCALES, &ZEROS);
    let q1 = Quant::<i8>::new_const(1.0, 0);
    let Ok(op) = QMatMulPerChannel::new(q1, W, q1, Activation::Relu, Rounding::Double) else {
        r.eq("a per-channel product prepares", &false, &true);
        return;
    };
    let x = Tensor::<i8, Shape![1, 2]>::from([[2, -4]]).quantized(q1);
    let w = Tensor::<i8, Shape![2, 2]>::from([[4, 2], [4, -2]]).quantized_per_axis::<0, 2>(W);
    let y = op
        .fully_connected(&x, &w, Some(&[0, 0]))
        .map(|y| *y.values());
    r.eq(
        "a per-channel int8 dense layer",
        &y.map(|t| t.into_inner()).map_err(|e| e.kind()),
        &Ok([[0i8, 4]]),
    );
}

/// Per-axis parameters (Q16) as `static` tables, length checked at compile time, on the stack.
fn per_axis_in_flash(r: &mut Report) {
    use shaped::quant::PerAxis;
    static W_SCALES: [f32; 2] = [0.5, 0.25];
    static W_ZEROS: [i32; 2] = [0, 10];
    const W: PerAxis<'static, i8, 2> = PerAxis::new_const(&W_SCALES, &W_ZEROS);
    static X_SCALES: [f32; 3] = [0.1, 0.01, 1.0];
    static X_ZEROS: [i32; 3] = [0, 0, -3];
    const X: PerAxis<'static, i8, 3> = PerAxis::new_const(&X_SCALES, &X_ZEROS);
    let w =
        Tensor::<i8, Shape![2, 3]>::from([[2, 4, 6], [10, 14, 18]]).quantized_per_axis::<0, 2>(W);
    r.eq(
        "per-axis dequantize",
        w.dequantize().as_slice(),
        &[1.0f32, 2.0, 3.0, 0.0, 1.0, 2.0][..],
    );
    let x = Tensor::<f32, Shape![2, 3]>::from([[0.25, 0.25, 0.25], [-1.0, 2.0, 300.0]]);
    r.eq(
        "per-axis quantize",
        x.quantize_per_axis::<1, i8, 3>(X).values().as_slice(),
        &[3i8, 25, -3, -10, 127, 127][..],
    );
}

/// A convolution of pseudo-random data through `QConv2d` (`conv2d_array_into` or
/// `depthwise_conv2d_array_into`), against the hand loop nest of `qemu_tests::hand_conv`: weights
/// scaled by `wscale` per channel (over 1 for a left shift), the output `(0.5, zy)`.
#[allow(clippy::too_many_arguments)]
fn conv_case<const N: usize>(
    r: &mut Report,
    name: &str,
    l: qemu_tests::hand_conv::Conv,
    depthwise: bool,
    (zx, zy): (i32, i32),
    activation: shaped::quant::Activation,
    rounding: shaped::quant::Rounding,
    wscale: f32,
) {
    use qemu_tests::hand_conv;
    use shaped::conv::QConv2d;
    use shaped::quant::{multiplier::quantize_multiplier, PerAxis, Quant};
    let (xs, ys) = (0.05f32, 0.5f32);
    let scales: [f32; N] = core::array::from_fn(|j| wscale * (1.0 + (j % 5) as f32 * 0.25));
    let zeros = [0i32; N];
    let Ok(op) = QConv2d::new(
        Quant::new_const(xs, zx),
        PerAxis::new_const(&scales, &zeros),
        Quant::new_const(ys, zy),
        activation,
        rounding,
    ) else {
        r.check(name, false);
        return;
    };
    let multipliers: [(i32, i32); N] = core::array::from_fn(|j| {
        quantize_multiplier(xs as f64 * scales[j] as f64 / ys as f64, rounding).unwrap_or((0, 0))
    });
    let mut state = 0x1234_5678u32 ^ (N as u32 * 0x9e37_79b9);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    let [n, h, w, c] = l.input;
    let filter = l.filter(depthwise);
    let (xl, wl) = (n * h * w * c, filter.iter().product::<usize>());
    let mut x = [0i8; 8192];
    let mut wt = [0i8; 8192];
    x[..xl].iter_mut().for_each(|v| *v = (next() >> 8) as i8);
    wt[..wl].iter_mut().for_each(|v| *v = (next() >> 8) as i8);
    let bias: [i32; N] = core::array::from_fn(|_| (next() % 40_000) as i32 - 20_000);
    let len = l.output_len();
    let (mut got, mut want) = ([0i8; 8192], [0i8; 8192]);
    let clamp = activation
        .range(op.output(), -128, 127)
        .unwrap_or((-128, 127));
    let q = hand_conv::Requant {
        input_zero: zx,
        multipliers: &multipliers,
        output_zero: zy,
        clamp,
        single: rounding == shaped::quant::Rounding::Single,
    };
    let (Ok(xa), Ok(wa)) = (
        ArrayRef::new(&l.input, &x[..xl]),
        ArrayRef::new(&filter, &wt[..wl]),
    ) else {
        r.check(name, false);
        return;
    };
    let dims = if depthwise {
        hand_conv::depthwise_conv2d(&l, &x[..xl], &wt[..wl], &bias, &q, &mut want[..len]);
        op.depthwise_conv2d_array_into(xa, wa, Some(&bias), &l.params(), &mut got[..len])
    } else {
        hand_conv::conv2d(&l, &x[..xl], &wt[..wl], &bias, &q, &mut want[..len]);
        op.conv2d_array_into(xa, wa, Some(&bias), &l.params(), &mut got[..len])
    };
    let same = dims == Ok(l.output()) && got[..len] == want[..len];
    if !same {
        let first = (0..len).find(|&i| got[i] != want[i]);
        cortex_m_semihosting::hprintln!("  {}: {:?}, first difference at {:?}", name, dims, first);
    }
    r.check(name, same);
}

/// int8 CONV_2D and DEPTHWISE_CONV_2D (TFLM's contract) equal to plain loop nests over shapes
/// that reach every path of the kernels: input channels not a multiple of four, pixel and
/// channel counts that are not multiples of four (down to one), rows longer than the
/// gathered column (chunks) and more channels than a block, strides, dilations, SAME and
/// VALID, a batch of two, an activation, single rounding, multipliers over one; for the
/// depthwise kernel, channel counts that are and are not multiples of four, fewer than four
/// (down to one), multipliers of two and three, 3x3 and other kernels, more taps than the
/// kernel unpacks.
fn int8_convolutions_as_by_hand(r: &mut Report) {
    use qemu_tests::hand_conv::Conv;
    use shaped::quant::{Activation, Rounding};
    let conv = |input, kernel, out_channels, stride, dilation, same| Conv {
        input,
        kernel,
        out_channels,
        stride,
        dilation,
        same,
    };
    let (none, double) = (Activation::None, Rounding::Double);
    let z = (12, -3);
    conv_case::<32>(
        r,
        "conv2d int8 3x3 SAME 6x6x16 -> 32",
        conv([1, 6, 6, 16], [3, 3], 32, [1, 1], [1, 1], true),
        false,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<3>(
        r,
        "conv2d int8 3x3 SAME 5x5x16 -> 3 (25 pixels, 3 channels)",
        conv([1, 5, 5, 16], [3, 3], 3, [1, 1], [1, 1], true),
        false,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<8>(
        r,
        "conv2d int8 3x3 VALID stride 2 9x7x3 -> 8 (3 input channels)",
        conv([1, 9, 7, 3], [3, 3], 8, [2, 2], [1, 1], false),
        false,
        (-128, 5),
        none,
        double,
        0.004,
    );
    conv_case::<5>(
        r,
        "conv2d int8 5x5 dilation 2 SAME 8x8x8 -> 5, ReLU",
        conv([1, 8, 8, 8], [5, 5], 5, [1, 1], [2, 2], true),
        false,
        z,
        Activation::Relu,
        double,
        0.004,
    );
    conv_case::<20>(
        r,
        "conv2d int8 3x3 SAME 4x5x40 -> 20 (rows of 360, two blocks)",
        conv([1, 4, 5, 40], [3, 3], 20, [1, 1], [1, 1], true),
        false,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<7>(
        r,
        "conv2d int8 3x3 SAME 3x3x30 -> 7 (rows of 270, two chunks)",
        conv([1, 3, 3, 30], [3, 3], 7, [1, 1], [1, 1], true),
        false,
        z,
        none,
        Rounding::Single,
        0.004,
    );
    conv_case::<1>(
        r,
        "conv2d int8 1x1 1x1x1 -> 1",
        conv([1, 1, 1, 1], [1, 1], 1, [1, 1], [1, 1], false),
        false,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<6>(
        r,
        "conv2d int8 1x1 batch 2 3x3x12 -> 6, multipliers over one",
        conv([2, 3, 3, 12], [1, 1], 6, [1, 1], [1, 1], false),
        false,
        z,
        none,
        double,
        8.0,
    );
    // The paths of the kernels outside a build for size: a pointwise layer's channels read in
    // place (two blocks, six pixels over a batch of two), one input channel gathered tap row
    // by tap row (stride 2, TFLM's first layers' shapes), dilated rows of values.
    let relu6 = Activation::Relu6;
    conv_case::<19>(
        r,
        "conv2d int8 1x1 pointwise 5x7x8 -> 19, ReLU6",
        conv([1, 5, 7, 8], [1, 1], 19, [1, 1], [1, 1], false),
        false,
        (-128, -128),
        relu6,
        double,
        0.004,
    );
    conv_case::<5>(
        r,
        "conv2d int8 1x1 pointwise batch 2 3x1x4 -> 5 (6 pixels)",
        conv([2, 3, 1, 4], [1, 1], 5, [1, 1], [1, 1], true),
        false,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<8>(
        r,
        "conv2d int8 3x3 SAME stride 2 11x9x1 -> 8 (one input channel), ReLU6",
        conv([1, 11, 9, 1], [3, 3], 8, [2, 2], [1, 1], true),
        false,
        (-128, -128),
        relu6,
        double,
        0.004,
    );
    conv_case::<8>(
        r,
        "conv2d int8 10x8 SAME stride 2 13x12x1 -> 8 (micro_speech's window)",
        conv([1, 13, 12, 1], [10, 8], 8, [2, 2], [1, 1], true),
        false,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<4>(
        r,
        "conv2d int8 3x3 dilation 2 SAME 7x7x2 -> 4 (dilated rows of values)",
        conv([1, 7, 7, 2], [3, 3], 4, [1, 1], [2, 2], true),
        false,
        z,
        none,
        Rounding::Single,
        0.004,
    );
    // The depthwise kernel's edge windows: inputs smaller than the window (every window cut),
    // stride 2, a batch of two, and TFLM's person detection's 6x6x128 with its zero point.
    conv_case::<16>(
        r,
        "depthwise int8 3x3 SAME 3x3x16 (every window at an edge)",
        conv([1, 3, 3, 16], [3, 3], 16, [1, 1], [1, 1], true),
        true,
        z,
        relu6,
        double,
        0.004,
    );
    conv_case::<8>(
        r,
        "depthwise int8 3x3 SAME 2x5x8",
        conv([1, 2, 5, 8], [3, 3], 8, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<4>(
        r,
        "depthwise int8 3x3 SAME 1x1x4",
        conv([1, 1, 1, 4], [3, 3], 4, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        0.004,
    );
    conv_case::<12>(
        r,
        "depthwise int8 3x3 SAME stride 2 6x6x12, ReLU6",
        conv([1, 6, 6, 12], [3, 3], 12, [2, 2], [1, 1], true),
        true,
        (-128, -128),
        relu6,
        double,
        0.004,
    );
    conv_case::<8>(
        r,
        "depthwise int8 3x3 SAME batch 2 6x7x8, single rounding",
        conv([2, 6, 7, 8], [3, 3], 8, [1, 1], [1, 1], true),
        true,
        z,
        none,
        Rounding::Single,
        0.004,
    );
    conv_case::<128>(
        r,
        "depthwise int8 3x3 SAME 6x6x128, zero point -128",
        conv([1, 6, 6, 128], [3, 3], 128, [1, 1], [1, 1], true),
        true,
        (-128, -128),
        relu6,
        double,
        0.004,
    );
    conv_case::<8>(
        r,
        "depthwise int8 3x3 SAME 9x9x8",
        conv([1, 9, 9, 8], [3, 3], 8, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        0.01,
    );
    conv_case::<6>(
        r,
        "depthwise int8 3x3 VALID stride 2 9x8x6 (6 channels)",
        conv([1, 9, 8, 6], [3, 3], 6, [2, 2], [1, 1], false),
        true,
        (-128, 0),
        Activation::Relu6,
        double,
        0.01,
    );
    conv_case::<4>(
        r,
        "depthwise int8 5x5 dilation 2 SAME 7x9x4, single rounding",
        conv([1, 7, 9, 4], [5, 5], 4, [1, 1], [2, 2], true),
        true,
        z,
        none,
        Rounding::Single,
        0.01,
    );
    conv_case::<12>(
        r,
        "depthwise int8 3x3 dilation 2 SAME batch 2 4x70x12 (rows of 70)",
        conv([2, 4, 70, 12], [3, 3], 12, [1, 1], [2, 2], true),
        true,
        z,
        none,
        double,
        0.01,
    );
    conv_case::<3>(
        r,
        "depthwise int8 3x3 SAME 5x5x3 (3 channels)",
        conv([1, 5, 5, 3], [3, 3], 3, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        0.01,
    );
    conv_case::<8>(
        r,
        "depthwise int8 3x3 SAME 5x5x4 multiplier 2",
        conv([1, 5, 5, 4], [3, 3], 8, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        0.01,
    );
    conv_case::<3>(
        r,
        "depthwise int8 3x3 VALID 6x6x1 multiplier 3 (3 output channels)",
        conv([1, 6, 6, 1], [3, 3], 3, [1, 1], [1, 1], false),
        true,
        z,
        none,
        double,
        0.01,
    );
    conv_case::<8>(
        r,
        "depthwise int8 9x9 SAME 10x10x8 (81 taps)",
        conv([1, 10, 10, 8], [9, 9], 8, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        0.01,
    );
    conv_case::<8>(
        r,
        "depthwise int8 3x3 SAME 4x4x8, multipliers over one",
        conv([1, 4, 4, 8], [3, 3], 8, [1, 1], [1, 1], true),
        true,
        z,
        none,
        double,
        20.0,
    );
}
