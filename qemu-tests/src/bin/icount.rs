//! Instructions per element of the int8 add (TFLM's contract) on the Cortex-M4, for
//! `icount.sh`: QEMU runs with `-icount shift=0`, so its virtual clock advances one nanosecond
//! per guest instruction, and SysTick (on the processor clock) counts that clock. A loop of a
//! known instruction count calibrates instructions per tick; each kernel is then timed on
//! inputs read from `static`s through `black_box`, and its output checked against the
//! hand-written loop's.
#![no_std]
#![no_main]

use core::hint::black_box;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use qemu_tests::icount::{ticks, Rate};
use shaped::quant::{Activation, QAdd, Quant};
use shaped::{Shape, Tensor, TensorView};

#[allow(dead_code)]
#[path = "../../../examples/residual/network.rs"]
mod residual;
#[allow(dead_code)]
#[path = "../../../examples/sine/network.rs"]
mod sine;

const N: usize = 256;

/// `N x N` pseudo-random bytes (xorshift32 from `seed`), built at compile time.
const fn bytes(seed: u32) -> [[i8; N]; N] {
    let mut out = [[0i8; N]; N];
    let mut x = seed;
    let mut i = 0;
    while i < N * N {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out[i / N][i % N] = x as u8 as i8;
        i += 1;
    }
    out
}

static A: [[i8; N]; N] = bytes(0x1234_5678);
static B: [[i8; N]; N] = bytes(0x9abc_def0);
/// The first row of `B`, as a `[1, N]` array.
static ROW: [[i8; N]; 1] = [B[0]];
/// A column: the first element of each row of `A`.
static COL: [[i8; 1]; N] = {
    let mut out = [[0i8; 1]; N];
    let mut i = 0;
    while i < N {
        out[i][0] = A[i][0];
        i += 1;
    }
    out
};

const QADD: QAdd<i8> = match QAdd::new(
    Quant::new_const(0.02, -5),
    Quant::new_const(0.03, 7),
    Quant::new_const(0.05, 3),
    Activation::None,
    shaped::quant::Rounding::Double,
) {
    Ok(op) => op,
    Err(_) => panic!("the parameters are valid"),
};

#[entry]
fn main() -> ! {
    let Some(mut p) = cortex_m::Peripherals::take() else {
        panic!("the peripherals are taken once");
    };
    let syst = &mut p.SYST;
    let rate = Rate::calibrate(syst);
    hprintln!(
        "calibration: {:.3} instructions per tick, {:.0} per timing",
        rate.per_tick,
        rate.overhead
    );
    let per_element = |t: u32, elements: usize| rate.instructions(t) / elements as f64;

    let (qa, qb) = QADD.inputs();
    let mut out = Tensor::<i8, Shape![256, 256]>::zeros();
    let mut want = [[0i8; N]; N];
    let mut failed = 0u32;
    let mut record = |name: &str, hand: u32, shaped: u32, same: bool| {
        hprintln!(
            "{}: shaped {:.2}, hand loop {:.2} instructions per element",
            name,
            per_element(shaped, N * N),
            per_element(hand, N * N)
        );
        failed += (!same) as u32;
    };

    // Same shape.
    let (a, b) = (black_box(&A), black_box(&B));
    let hand = ticks(syst, || {
        for i in 0..N {
            for j in 0..N {
                want[i][j] = qemu_tests::hand_qadd(a[i][j], b[i][j]);
            }
        }
    });
    let x = TensorView::<i8, Shape![256, 256]>::from(a).quantized(qa);
    let y = TensorView::<i8, Shape![256, 256]>::from(b).quantized(qb);
    let shaped = ticks(syst, || {
        let _ = QADD.run_into(&x, &y, &mut out);
    });
    record(
        "[256, 256] + [256, 256]",
        hand,
        shaped,
        out.as_slice() == want.as_flattened(),
    );

    // A row broadcast down the rows.
    let row = black_box(&B[0]);
    let hand = ticks(syst, || {
        for i in 0..N {
            for j in 0..N {
                want[i][j] = qemu_tests::hand_qadd(a[i][j], row[j]);
            }
        }
    });
    let y = TensorView::<i8, Shape![1, 256]>::from(black_box(&ROW)).quantized(qb);
    let shaped = ticks(syst, || {
        let _ = QADD.run_into(&x, &y, &mut out);
    });
    record(
        "[256, 256] + [1, 256]",
        hand,
        shaped,
        out.as_slice() == want.as_flattened(),
    );

    // A column against a row: the outer broadcast.
    let col = black_box(&COL);
    let hand = ticks(syst, || {
        for i in 0..N {
            for j in 0..N {
                want[i][j] = qemu_tests::hand_qadd(col[i][0], row[j]);
            }
        }
    });
    let x = TensorView::<i8, Shape![256, 1]>::from(col).quantized(qa);
    let shaped = ticks(syst, || {
        let _ = QADD.run_into(&x, &y, &mut out);
    });
    record(
        "[256, 1] + [1, 256]",
        hand,
        shaped,
        out.as_slice() == want.as_flattened(),
    );

    // Whole inferences of the models of `examples/` and of their hand-fused twins
    // (`qemu_tests::hand_models`), each checked against TFLM's output.
    let (mut count, mut total, mut hand) = (0u32, 0u32, 0u32);
    for (_, input, want) in sine::expected().step_by(100) {
        let (mut got, mut by_hand) = (Ok(0), 0);
        total += ticks(syst, || got = sine::forward(black_box(input)));
        hand += ticks(syst, || {
            by_hand = qemu_tests::hand_models::sine::forward(black_box(input))
        });
        failed += (got != Ok(want) || by_hand != want) as u32;
        count += 1;
    }
    hprintln!(
        "sine model: {:.0} instructions per inference, hand-fused {:.0}",
        per_element(total, count as usize),
        per_element(hand, count as usize)
    );
    let (mut count, mut total, mut hand) = (0u32, 0u32, 0u32);
    for (x, want) in residual::expected().step_by(100) {
        let (mut got, mut by_hand) = (Ok([0; 4]), [0; 4]);
        total += ticks(syst, || got = residual::forward(black_box(x)));
        hand += ticks(syst, || {
            by_hand = qemu_tests::hand_models::residual::forward(black_box(x))
        });
        failed += (got != Ok(want) || by_hand != want) as u32;
        count += 1;
    }
    hprintln!(
        "residual network: {:.0} instructions per inference, hand-fused {:.0}",
        per_element(total, count as usize),
        per_element(hand, count as usize)
    );

    if failed == 0 {
        debug::exit(debug::EXIT_SUCCESS);
    } else {
        hprintln!("{} kernels differ from the hand loop", failed);
        debug::exit(debug::EXIT_FAILURE);
    }
    #[allow(clippy::empty_loop)]
    loop {}
}
