//! The kernels whose `.text` size `code_size.sh` reports: shaped against the hand-written loop
//! for the same shapes. Each is a `#[no_mangle]`, never-inlined function so its symbol size is
//! the size of that kernel alone. Running it under QEMU checks that both agree.
#![no_std]
#![no_main]
// By-reference operators are what users write for tensors that are used again.
#![allow(clippy::op_ref)]

use core::hint::black_box;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use qemu_tests::{controller, hand_models};

#[allow(dead_code)]
#[path = "../../../examples/residual/network.rs"]
mod residual;
#[allow(dead_code)]
#[path = "../../../examples/sine/network.rs"]
mod sine;
use shaped::{Shape, Tensor};

type A44 = Tensor<f32, Shape![4, 4]>;
type A14 = Tensor<f32, Shape![1, 4]>;
type M234 = Tensor<f32, Shape![2, 3, 4]>;
type M131 = Tensor<f32, Shape![1, 3, 1]>;

/// shaped: `[4, 4] + [1, 4]`.
#[no_mangle]
#[inline(never)]
pub fn shaped_add_4x4_1x4(a: &A44, b: &A14, out: &mut A44) {
    *out = a + b;
}

/// shaped, writing into the caller's tensor: `[4, 4] + [1, 4]`.
#[no_mangle]
#[inline(never)]
pub fn shaped_into_add_4x4_1x4(a: &A44, b: &A14, out: &mut A44) {
    a.broadcast_with_into(b, out, |x, y| x + y);
}

/// By hand: `[4, 4] + [1, 4]`.
#[no_mangle]
#[inline(never)]
pub fn hand_add_4x4_1x4(a: &[[f32; 4]; 4], b: &[[f32; 4]; 1], out: &mut [[f32; 4]; 4]) {
    for i in 0..4 {
        for j in 0..4 {
            out[i][j] = a[i][j] + b[0][j];
        }
    }
}

/// shaped: `[2, 3, 4] * [1, 3, 1]`.
#[no_mangle]
#[inline(never)]
pub fn shaped_mul_2x3x4_1x3x1(a: &M234, b: &M131, out: &mut M234) {
    *out = a * b;
}

/// shaped, writing into the caller's tensor: `[2, 3, 4] * [1, 3, 1]`.
#[no_mangle]
#[inline(never)]
pub fn shaped_into_mul_2x3x4_1x3x1(a: &M234, b: &M131, out: &mut M234) {
    a.broadcast_with_into(b, out, |x, y| x * y);
}

/// By hand: `[2, 3, 4] * [1, 3, 1]`.
#[no_mangle]
#[inline(never)]
pub fn hand_mul_2x3x4_1x3x1(
    a: &[[[f32; 4]; 3]; 2],
    b: &[[[f32; 1]; 3]; 1],
    out: &mut [[[f32; 4]; 3]; 2],
) {
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                out[i][j][k] = a[i][j][k] * b[0][j][0];
            }
        }
    }
}

/// shaped: the dense layers of `examples/dense_layer.rs`, `relu(x w1 + b1) w2 + b2`.
#[no_mangle]
#[inline(never)]
pub fn shaped_mlp_16_32_4(
    x: &qemu_tests::mlp::Input,
    l1: &qemu_tests::mlp::Layer1,
    l2: &qemu_tests::mlp::Layer2,
    out: &mut qemu_tests::mlp::Output,
) {
    *out = qemu_tests::mlp::forward(x, l1, l2);
}

/// By hand: the same network, each sum over `k` in order.
#[no_mangle]
#[inline(never)]
pub fn hand_mlp_16_32_4(
    x: &[[f32; 16]; 2],
    l1: (&[[f32; 32]; 16], &[f32; 32]),
    l2: (&[[f32; 4]; 32], &[f32; 4]),
    out: &mut [[f32; 4]; 2],
) {
    qemu_tests::mlp::hand(x, l1, l2, out);
}

/// shaped: the controller of `qemu_tests::controller`.
#[no_mangle]
#[inline(never)]
pub fn shaped_controller(x: &controller::Input) -> controller::Output {
    controller::forward(x)
}

/// By hand: the same controller.
#[no_mangle]
#[inline(never)]
pub fn hand_controller(x: &[f32; 8], out: &mut [f32; 2]) {
    controller::hand(x, out);
}

#[entry]
fn main() -> ! {
    let a = A44::from_fn(|[i, j]| (i * 4 + j) as f32);
    let b = A14::from([[0.5, 1.5, 2.5, 3.5]]);
    let mut s = A44::zeros();
    let mut h = [[0.0f32; 4]; 4];
    shaped_add_4x4_1x4(black_box(&a), black_box(&b), &mut s);
    hand_add_4x4_1x4(
        black_box(&a.into_inner()),
        black_box(&b.into_inner()),
        &mut h,
    );
    let mut si = A44::zeros();
    shaped_into_add_4x4_1x4(black_box(&a), black_box(&b), &mut si);
    let add_ok = s.into_inner() == h && si.into_inner() == h;

    let x = M234::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
    let y = M131::from([[[2.0], [-1.0], [0.5]]]);
    let mut s = M234::zeros();
    let mut h = [[[0.0f32; 4]; 3]; 2];
    shaped_mul_2x3x4_1x3x1(black_box(&x), black_box(&y), &mut s);
    hand_mul_2x3x4_1x3x1(
        black_box(&x.into_inner()),
        black_box(&y.into_inner()),
        &mut h,
    );
    let mut si = M234::zeros();
    shaped_into_mul_2x3x4_1x3x1(black_box(&x), black_box(&y), &mut si);
    let mul_ok = s.into_inner() == h && si.into_inner() == h;

    let (x, l1, l2) = qemu_tests::mlp::parameters();
    let mut s = qemu_tests::mlp::Output::zeros();
    shaped_mlp_16_32_4(black_box(&x), black_box(&l1), black_box(&l2), &mut s);
    let mut h = [[0.0f32; 4]; 2];
    let (w1, b1, w2, b2) = (
        l1.0.into_inner(),
        l1.1.into_inner(),
        l2.0.into_inner(),
        l2.1.into_inner(),
    );
    hand_mlp_16_32_4(black_box(&x.into_inner()), (&w1, &b1), (&w2, &b2), &mut h);
    let mlp_ok = s.into_inner() == h;

    let x = controller::input();
    let s = shaped_controller(black_box(&x));
    let mut h = [0.0f32; 2];
    hand_controller(black_box(&x.into_inner()), &mut h);
    // Equal to the bit (`==` would let -0.0 equal 0.0).
    let controller_ok = s.into_inner().map(f32::to_bits) == h.map(f32::to_bits);

    // The fused layers: the same bits as the operators and the hand loops.
    let layers_ok = controller::layers(black_box(&x))
        .into_inner()
        .map(f32::to_bits)
        == h.map(f32::to_bits)
        && {
            let (x, l1, l2) = qemu_tests::mlp::parameters();
            let y = qemu_tests::mlp::layers(black_box(&x), &l1, &l2).into_inner();
            let mut h = [[0.0f32; 4]; 2];
            hand_mlp_16_32_4(&x.into_inner(), (&w1, &b1), (&w2, &b2), &mut h);
            y.map(|r| r.map(f32::to_bits)) == h.map(|r| r.map(f32::to_bits))
        };

    // The int8 models, shaped's and the hand-written ones, against TFLM's outputs.
    let sine_ok = sine::expected().all(|(_, x, y)| {
        sine::forward(black_box(x)) == Ok(y) && hand_models::sine::forward(x) == y
    });
    let residual_ok = residual::expected().all(|(x, y)| {
        residual::forward(black_box(x)) == Ok(y) && hand_models::residual::forward(x) == y
    });

    hprintln!(
        "add agrees: {}, mul agrees: {}, mlp agrees: {}, controller agrees: {} ({:?}), layers \
         agree: {}, sine models give TFLM's outputs: {}, residual models: {}",
        add_ok,
        mul_ok,
        mlp_ok,
        controller_ok,
        h,
        layers_ok,
        sine_ok,
        residual_ok
    );
    debug::exit(
        if add_ok && mul_ok && mlp_ok && controller_ok && layers_ok && sine_ok && residual_ok {
            debug::EXIT_SUCCESS
        } else {
            debug::EXIT_FAILURE
        },
    );
    #[allow(clippy::empty_loop)]
    loop {}
}
