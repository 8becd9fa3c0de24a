//! Instructions per multiply-accumulate of shaped's int8 convolutions (TFLM's contract) on
//! the Cortex-M4, for `icount_conv.sh`: the three layers of `qemu_tests::hand_conv::layers`
//! run through `QConv2d::conv2d_array_into` / `depthwise_conv2d_array_into` on `ArrayRef`s of `static`
//! data, each timed and its output checked against the hand-written loop nest of the same
//! contract (also timed). QEMU runs with `-icount shift=0`, so its virtual clock advances one
//! nanosecond per guest instruction, and SysTick counts that clock; a loop of a known
//! instruction count calibrates instructions per tick (as the `icount` bin). Exits with
//! status 1 when an output differs from the hand loop's.
#![no_std]
#![no_main]

use core::hint::black_box;
use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use qemu_tests::hand_conv::{self, layers, Conv, Requant};
use qemu_tests::icount::{ticks, Rate};
use shaped::conv::QConv2d;
use shaped::runtime::ArrayRef;

/// The largest output of the three layers.
const MAX_OUT: usize = 48 * 48 * 8;

/// One layer's data, shaped's prepared operation and the hand loop's multipliers.
struct Layer<const N: usize> {
    name: &'static str,
    conv: Conv,
    depthwise: bool,
    x: &'static [i8],
    w: &'static [i8],
    bias: &'static [i32],
    op: QConv2d<'static, N>,
    multipliers: &'static [(i32, i32)],
    output_zero: i32,
}

/// Times shaped's kernel and the hand loop on `l`; prints both and returns whether they agree.
fn run<const N: usize>(syst: &mut SYST, rate: &Rate, l: &Layer<N>) -> bool {
    let len = l.conv.output_len();
    let (mut got, mut want) = ([0i8; MAX_OUT], [0i8; MAX_OUT]);
    let (x, w, bias) = (black_box(l.x), black_box(l.w), black_box(l.bias));
    let q = Requant {
        input_zero: layers::INPUT.1,
        multipliers: l.multipliers,
        output_zero: l.output_zero,
        clamp: (-128, 127),
        single: false,
    };
    let hand = ticks(syst, || {
        if l.depthwise {
            hand_conv::depthwise_conv2d(&l.conv, x, w, bias, &q, &mut want[..len]);
        } else {
            hand_conv::conv2d(&l.conv, x, w, bias, &q, &mut want[..len]);
        }
    });
    let filter = l.conv.filter(l.depthwise);
    let (Ok(xa), Ok(wa)) = (ArrayRef::new(&l.conv.input, x), ArrayRef::new(&filter, w)) else {
        hprintln!("{}: the arrays do not match their shapes", l.name);
        return false;
    };
    let params = l.conv.params();
    let mut result = Ok([0; 4]);
    let shaped = ticks(syst, || {
        result = if l.depthwise {
            l.op.depthwise_conv2d_array_into(xa, wa, Some(bias), &params, &mut got[..len])
        } else {
            l.op.conv2d_array_into(xa, wa, Some(bias), &params, &mut got[..len])
        };
    });
    let macs = l.conv.macs(l.depthwise) as f64;
    let (s, h) = (rate.instructions(shaped), rate.instructions(hand));
    hprintln!(
        "{}: shaped {:.0} instructions ({:.3} per MAC), hand loop {:.0} ({:.3} per MAC), {} MACs",
        l.name,
        s,
        s / macs,
        h,
        h / macs,
        macs
    );
    let clamped = want[..len]
        .iter()
        .filter(|&&v| v == -128 || v == 127)
        .count();
    let same = result == Ok(l.conv.output()) && got[..len] == want[..len];
    if !same {
        let first = (0..len).find(|&i| got[i] != want[i]);
        hprintln!(
            "{}: differs from the hand loop ({:?}, first at {:?})",
            l.name,
            result,
            first
        );
    } else if clamped * 10 > len {
        // Mostly clamped outputs would check little of the requantization.
        hprintln!("{}: {} of {} outputs clamped", l.name, clamped, len);
        return false;
    }
    same
}

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

    let mut failed = 0u32;
    {
        use layers::conv3x3 as l;
        let layer = Layer {
            name: "3x3 CONV_2D 24x24x16 -> 24x24x32",
            conv: l::CONV,
            depthwise: false,
            x: &l::X,
            w: &l::W,
            bias: &l::B,
            op: l::OP,
            multipliers: &l::M,
            output_zero: l::OUTPUT.1,
        };
        failed += !run(syst, &rate, &layer) as u32;
    }
    {
        use layers::conv1x1 as l;
        let layer = Layer {
            name: "1x1 CONV_2D 6x6x128 -> 6x6x128",
            conv: l::CONV,
            depthwise: false,
            x: &l::X,
            w: &l::W,
            bias: &l::B,
            op: l::OP,
            multipliers: &l::M,
            output_zero: l::OUTPUT.1,
        };
        failed += !run(syst, &rate, &layer) as u32;
    }
    {
        use layers::depthwise3x3 as l;
        let layer = Layer {
            name: "3x3 DEPTHWISE_CONV_2D 48x48x8",
            conv: l::CONV,
            depthwise: true,
            x: &l::X,
            w: &l::W,
            bias: &l::B,
            op: l::OP,
            multipliers: &l::M,
            output_zero: l::OUTPUT.1,
        };
        failed += !run(syst, &rate, &layer) as u32;
    }

    if failed == 0 {
        debug::exit(debug::EXIT_SUCCESS);
    } else {
        hprintln!("{} layers differ from the hand loop", failed);
        debug::exit(debug::EXIT_FAILURE);
    }
    #[allow(clippy::empty_loop)]
    loop {}
}
