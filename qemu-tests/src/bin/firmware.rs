//! One kernel as a whole firmware, for `code_size.sh`: the kernel is chosen by a feature
//! (`<kernel>-<who>`), and `<kernel>-none` is the same firmware without it (its output a
//! `black_box` of zeros of the same type, printed the same way). A kernel's cost is the
//! `.text` of its firmware minus that of its `none` twin: everything it pulls in (callees,
//! shape resolution, runtime kernels) counts, not one symbol. Inputs come from `static`s
//! through `black_box`, so nothing folds at compile time.
#![no_std]
#![no_main]
#![allow(clippy::op_ref, unused_imports, dead_code)]

use core::hint::black_box;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio};
use panic_semihosting as _;
use qemu_tests::{controller, mlp};
use shaped::{Shape, Tensor};

static A44: [[f32; 4]; 4] = [
    [0.0, 1.0, 2.0, 3.0],
    [4.0, 5.0, 6.0, 7.0],
    [8.0, 9.0, 10.0, 11.0],
    [12.0, 13.0, 14.0, 15.0],
];
static A14: [[f32; 4]; 1] = [[0.5, 1.5, 2.5, 3.5]];
static M234: [[[f32; 4]; 3]; 2] = [
    [
        [0.0, 1.0, 2.0, 3.0],
        [4.0, 5.0, 6.0, 7.0],
        [8.0, 9.0, 10.0, 11.0],
    ],
    [
        [12.0, 13.0, 14.0, 15.0],
        [16.0, 17.0, 18.0, 19.0],
        [20.0, 21.0, 22.0, 23.0],
    ],
];
static M131: [[[f32; 1]; 3]; 1] = [[[2.0], [-1.0], [0.5]]];
static SENSORS: [f32; 8] = [-1.05, -0.75, -0.45, -0.15, 0.15, 0.45, 0.75, 1.05];
static Q44: [[i8; 4]; 4] = [
    [100, -100, 0, 5],
    [127, -128, 64, -64],
    [1, 2, 3, 4],
    [-1, -2, -3, -4],
];
static Q14: [[i8; 4]; 1] = [[50, -100, 127, 0]];

static QX: [[i8; 8]; 1] = [[100, -100, 0, 5, 127, -128, 64, -64]];
static QW: [[i8; 8]; 16] = {
    let mut w = [[0i8; 8]; 16];
    let mut i = 0;
    while i < 128 {
        w[i / 8][i % 8] = ((i * 37 + 11) % 7) as i8 - 3;
        i += 1;
    }
    w
};
static QBIAS: [i32; 16] = [
    100, -200, 300, -400, 500, -600, 700, -800, 900, -1000, 0, 1, -1, 2, -2, 3,
];

/// An int8 dense layer 8 -> 16 with ReLU, TFLM's `FULLY_CONNECTED`: input (0.5, 3), weights
/// (0.375, 0), output (16, -5), so the multiplier is 0.75 * 2^-6.
#[cfg(any(
    feature = "qdense-shaped",
    feature = "qdense-into",
    feature = "qdense-layer",
    feature = "qdense-hand"
))]
const QDENSE: shaped::quant::QMatMul<i8> = match shaped::quant::QMatMul::new(
    shaped::quant::Quant::new_const(0.5, 3),
    shaped::quant::Quant::new_const(0.375, 0),
    shaped::quant::Quant::new_const(16.0, -5),
    shaped::quant::Activation::Relu,
    shaped::quant::Rounding::Double,
) {
    Ok(op) => op,
    Err(_) => panic!("the parameters are valid"),
};

static SINE_INPUT: i8 = -100;
static RESIDUAL_INPUT: [i8; 8] = [-47, 39, -2, 40, -99, 4, 116, -47];

#[cfg(feature = "residual-layer")]
#[allow(dead_code)]
#[path = "../../../examples/residual/network.rs"]
mod residual;
#[cfg(feature = "sine-layer")]
#[allow(dead_code)]
#[path = "../../../examples/sine/network.rs"]
mod sine;

/// What `report` prints: each element as one 32-bit word (its bits), an error as
/// `ffffffff`. No `core::fmt`: with it, LLVM's choices inside `Formatter::pad` (which the
/// kernels never call) moved a firmware by 354 bytes from one kernel to the next, more than
/// a small kernel's whole code.
trait Report {
    fn words(&self, out: &mut dyn FnMut(u32));
}

impl Report for f32 {
    fn words(&self, out: &mut dyn FnMut(u32)) {
        out(self.to_bits())
    }
}

impl Report for i8 {
    fn words(&self, out: &mut dyn FnMut(u32)) {
        out(*self as u8 as u32)
    }
}

impl<T: Report, const N: usize> Report for [T; N] {
    fn words(&self, out: &mut dyn FnMut(u32)) {
        for x in self {
            x.words(out)
        }
    }
}

impl Report for u32 {
    fn words(&self, out: &mut dyn FnMut(u32)) {
        out(*self)
    }
}

/// An int8 convolution's output as one word (FNV-1a over its bytes).
fn fnv(bytes: &[i8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h, &b| {
        (h ^ b as u8 as u32).wrapping_mul(0x0100_0193)
    })
}

/// One of the convolution layers of `icount_conv.sh` (`qemu_tests::hand_conv::layers`),
/// through `QConv2d::conv2d_array_into` / `depthwise_conv2d_array_into` or the hand loop nest.
#[cfg(any(
    feature = "qconv-shaped",
    feature = "qconv-hand",
    feature = "qdwconv-shaped",
    feature = "qdwconv-hand"
))]
fn conv_layer<const N: usize, const DEPTHWISE: bool, const HAND: bool>(
    conv: &qemu_tests::hand_conv::Conv,
    (x, w, bias): (&[i8], &[i8], &[i32]),
    op: &shaped::conv::QConv2d<'static, N>,
    multipliers: &[(i32, i32)],
    output_zero: i32,
) -> Result<u32, shaped::Error> {
    let (depthwise, hand) = (DEPTHWISE, HAND);
    use qemu_tests::hand_conv;
    let mut out = [0i8; 48 * 48 * 8];
    let out = &mut out[..conv.output_len()];
    if hand {
        let q = hand_conv::Requant {
            input_zero: hand_conv::layers::INPUT.1,
            multipliers,
            output_zero,
            clamp: (-128, 127),
            single: false,
        };
        if depthwise {
            hand_conv::depthwise_conv2d(conv, x, w, bias, &q, out);
        } else {
            hand_conv::conv2d(conv, x, w, bias, &q, out);
        }
    } else {
        let filter = conv.filter(depthwise);
        let xa = shaped::runtime::ArrayRef::new(&conv.input, x)?;
        let wa = shaped::runtime::ArrayRef::new(&filter, w)?;
        if depthwise {
            op.depthwise_conv2d_array_into(xa, wa, Some(bias), &conv.params(), out)?;
        } else {
            op.conv2d_array_into(xa, wa, Some(bias), &conv.params(), out)?;
        }
    }
    Ok(fnv(out))
}

impl<T: Report> Report for Result<T, shaped::Error> {
    fn words(&self, out: &mut dyn FnMut(u32)) {
        match self {
            Ok(x) => x.words(out),
            Err(_) => out(u32::MAX),
        }
    }
}

/// Prints the kernel's output in hexadecimal and exits QEMU.
fn report(out: &impl Report) -> ! {
    if let Ok(mut stdout) = hio::hstdout() {
        out.words(&mut |w| {
            let mut hex = [b' '; 9];
            for (i, h) in hex[..8].iter_mut().enumerate() {
                let nibble = (w >> (28 - 4 * i)) & 0xf;
                *h = b"0123456789abcdef"[nibble as usize];
            }
            let _ = stdout.write_all(&hex);
        });
        let _ = stdout.write_all(b"\n");
    }
    debug::exit(debug::EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}

#[entry]
fn main() -> ! {
    #[cfg(feature = "add-none")]
    report(&black_box([[0.0f32; 4]; 4]));
    #[cfg(feature = "add-shaped")]
    report(&{
        let (a, b) = (Tensor::from(black_box(A44)), Tensor::from(black_box(A14)));
        (&a + &b).into_inner()
    });
    #[cfg(feature = "add-into")]
    report(&{
        let (a, b) = (Tensor::from(black_box(A44)), Tensor::from(black_box(A14)));
        let mut out = Tensor::<f32, Shape![4, 4]>::zeros();
        a.broadcast_with_into(&b, &mut out, |x, y| x + y);
        out.into_inner()
    });
    #[cfg(feature = "add-hand")]
    report(&{
        let (a, b) = (black_box(A44), black_box(A14));
        let mut out = [[0.0f32; 4]; 4];
        for i in 0..4 {
            for j in 0..4 {
                out[i][j] = a[i][j] + b[0][j];
            }
        }
        out
    });

    #[cfg(feature = "qadd-none")]
    report(&black_box(Ok::<_, shaped::Error>([[0i8; 4]; 4])));
    #[cfg(any(feature = "qadd-shaped", feature = "qadd-into"))]
    const QADD: shaped::quant::QAdd<i8> = match shaped::quant::QAdd::new(
        shaped::quant::Quant::new_const(0.02, -5),
        shaped::quant::Quant::new_const(0.03, 7),
        shaped::quant::Quant::new_const(0.05, 3),
        shaped::quant::Activation::None,
        shaped::quant::Rounding::Double,
    ) {
        Ok(op) => op,
        Err(_) => panic!("the parameters are valid"),
    };
    #[cfg(feature = "qadd-shaped")]
    report(&{
        let a = Tensor::from(black_box(Q44)).quantized(QADD.inputs().0);
        let b = Tensor::from(black_box(Q14)).quantized(QADD.inputs().1);
        QADD.run(&a, &b).map(|c| c.into_parts().0.into_inner())
    });
    #[cfg(feature = "qadd-into")]
    report(&{
        let a = Tensor::from(black_box(Q44)).quantized(QADD.inputs().0);
        let b = Tensor::from(black_box(Q14)).quantized(QADD.inputs().1);
        let mut out = Tensor::<i8, Shape![4, 4]>::zeros();
        QADD.run_into(&a, &b, &mut out).map(|()| out.into_inner())
    });
    #[cfg(feature = "qadd-hand")]
    report(&{
        let (a, b) = (black_box(Q44), black_box(Q14));
        let mut out = [[0i8; 4]; 4];
        for i in 0..4 {
            for j in 0..4 {
                out[i][j] = qemu_tests::hand_qadd(a[i][j], b[0][j]);
            }
        }
        Ok::<_, shaped::Error>(out)
    });

    #[cfg(feature = "mul-none")]
    report(&black_box([[[0.0f32; 4]; 3]; 2]));
    #[cfg(feature = "mul-shaped")]
    report(&{
        let (a, b) = (Tensor::from(black_box(M234)), Tensor::from(black_box(M131)));
        (&a * &b).into_inner()
    });
    #[cfg(feature = "mul-into")]
    report(&{
        let (a, b) = (Tensor::from(black_box(M234)), Tensor::from(black_box(M131)));
        let mut out = Tensor::<f32, Shape![2, 3, 4]>::zeros();
        a.broadcast_with_into(&b, &mut out, |x, y| x * y);
        out.into_inner()
    });
    #[cfg(feature = "mul-hand")]
    report(&{
        let (a, b) = (black_box(M234), black_box(M131));
        let mut out = [[[0.0f32; 4]; 3]; 2];
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    out[i][j][k] = a[i][j][k] * b[0][j][0];
                }
            }
        }
        out
    });

    #[cfg(feature = "controller-none")]
    report(&black_box([0.0f32; 2]));
    #[cfg(feature = "controller-shaped")]
    report(&controller::forward(&Tensor::from(black_box(SENSORS))).into_inner());
    #[cfg(feature = "controller-layer")]
    report(&controller::layers(&Tensor::from(black_box(SENSORS))).into_inner());
    #[cfg(feature = "controller-hand")]
    report(&{
        let mut out = [0.0f32; 2];
        controller::hand(&black_box(SENSORS), &mut out);
        out
    });

    #[cfg(feature = "mlp-none")]
    report(&{
        // The parameters are made at run time by every mlp firmware, this one too.
        black_box(black_box(mlp::parameters()));
        black_box([[0.0f32; 4]; 2])
    });
    #[cfg(feature = "mlp-shaped")]
    report(&{
        let (x, l1, l2) = black_box(mlp::parameters());
        mlp::forward(&x, &l1, &l2).into_inner()
    });
    #[cfg(feature = "mlp-layer")]
    report(&{
        let (x, l1, l2) = black_box(mlp::parameters());
        mlp::layers(&x, &l1, &l2).into_inner()
    });
    #[cfg(feature = "mlp-hand")]
    report(&{
        let (x, l1, l2) = black_box(mlp::parameters());
        let mut out = [[0.0f32; 4]; 2];
        mlp::hand(
            &x.into_inner(),
            (&l1.0.into_inner(), &l1.1.into_inner()),
            (&l2.0.into_inner(), &l2.1.into_inner()),
            &mut out,
        );
        out
    });

    #[cfg(feature = "qdense-none")]
    report(&black_box(Ok::<_, shaped::Error>([[0i8; 16]; 1])));
    #[cfg(feature = "qdense-shaped")]
    report(&{
        let x = Tensor::from(black_box(QX)).quantized(QDENSE.inputs().0);
        let w = shaped::TensorView::from(black_box(&QW)).quantized(QDENSE.inputs().1);
        // The bias as the hand loops get it, an array of known length behind `black_box`.
        let bias: &[i32; 16] = black_box(&QBIAS);
        QDENSE
            .fully_connected(&x, &w, Some(bias))
            .map(|y| y.into_parts().0.into_inner())
    });
    #[cfg(feature = "qdense-into")]
    report(&{
        let x = Tensor::from(black_box(QX)).quantized(QDENSE.inputs().0);
        let w = shaped::TensorView::from(black_box(&QW)).quantized(QDENSE.inputs().1);
        let bias: &[i32; 16] = black_box(&QBIAS);
        let mut out = Tensor::<i8, Shape![1, 16]>::zeros();
        QDENSE
            .fully_connected_into(&x, &w, Some(bias), &mut out)
            .map(|()| out.into_inner())
    });
    #[cfg(feature = "qdense-layer")]
    report(&{
        const LAYER: shaped::layer::QDense<'static, i8, 8, 16> =
            shaped::layer::QDense::new(QDENSE, &QW, Some(&QBIAS));
        let x = Tensor::from(black_box(QX)).quantized(LAYER.input());
        LAYER.forward(&x).map(|y| y.into_parts().0.into_inner())
    });
    #[cfg(feature = "qdense-hand")]
    report(&{
        // The same arithmetic fused by hand: sums from the bias, the zero points taken off,
        // the multiplier 0.75 * 2^-6 (Q31 3 * 2^29, then a rounding shift by 6), the output
        // zero point, ReLU.
        let (x, w, bias) = (black_box(QX), black_box(&QW), black_box(&QBIAS));
        let mut out = [[0i8; 16]; 1];
        for j in 0..16 {
            let mut acc = bias[j];
            for k in 0..8 {
                acc = acc.wrapping_add((x[0][k] as i32 - 3) * w[j][k] as i32);
            }
            let high = ((acc as i64 * 1_610_612_736 + (1 << 30)) >> 31) as i32;
            let (mask, threshold) = (63, 31 + (high < 0) as i32);
            let scaled = (high >> 6) + ((high & mask) > threshold) as i32;
            out[0][j] = (scaled - 5).clamp(-5, 127) as i8;
        }
        Ok::<_, shaped::Error>(out)
    });

    #[cfg(feature = "sine-none")]
    report(&black_box(Ok::<_, shaped::Error>(0i8)));
    #[cfg(feature = "sine-layer")]
    report(&sine::forward(black_box(SINE_INPUT)));
    #[cfg(feature = "sine-hand")]
    report(&Ok::<_, shaped::Error>(
        qemu_tests::hand_models::sine::forward(black_box(SINE_INPUT)),
    ));

    #[cfg(feature = "residual-none")]
    report(&black_box(Ok::<_, shaped::Error>([0i8; 4])));
    #[cfg(feature = "residual-layer")]
    report(&residual::forward(black_box(RESIDUAL_INPUT)));
    #[cfg(feature = "residual-hand")]
    report(&Ok::<_, shaped::Error>(
        qemu_tests::hand_models::residual::forward(black_box(RESIDUAL_INPUT)),
    ));

    #[cfg(feature = "qconv-none")]
    report(&black_box(Ok::<_, shaped::Error>(0u32)));
    #[cfg(any(feature = "qconv-shaped", feature = "qconv-hand"))]
    report(&{
        use qemu_tests::hand_conv::layers::conv3x3 as l;
        let data = (
            black_box(&l::X[..]),
            black_box(&l::W[..]),
            black_box(&l::B[..]),
        );
        const HAND: bool = cfg!(feature = "qconv-hand");
        conv_layer::<32, false, HAND>(&l::CONV, data, &l::OP, &l::M, l::OUTPUT.1)
    });

    #[cfg(feature = "qdwconv-none")]
    report(&black_box(Ok::<_, shaped::Error>(0u32)));
    #[cfg(any(feature = "qdwconv-shaped", feature = "qdwconv-hand"))]
    report(&{
        use qemu_tests::hand_conv::layers::depthwise3x3 as l;
        let data = (
            black_box(&l::X[..]),
            black_box(&l::W[..]),
            black_box(&l::B[..]),
        );
        const HAND: bool = cfg!(feature = "qdwconv-hand");
        conv_layer::<8, true, HAND>(&l::CONV, data, &l::OP, &l::M, l::OUTPUT.1)
    });

    #[allow(unreachable_code)]
    {
        if let Ok(mut stdout) = hio::hstdout() {
            let _ = stdout.write_all(b"build with one feature <kernel>-<who>\n");
        }
        debug::exit(debug::EXIT_FAILURE);
        #[allow(clippy::empty_loop)]
        loop {}
    }
}
