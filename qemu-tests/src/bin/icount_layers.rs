//! Instructions per multiply-accumulate of shaped's int8 convolutions on the shapes of TFLM's
//! person detection model (MobileNet v1 0.25, 96x96x1: its first layer as `include_model!`
//! generates it, a 3x3 CONV_2D of one input channel, then the depthwise and pointwise layers
//! by size) on the Cortex-M4, for `icount_layers.sh`: each layer run through
//! `QConv2d::conv2d_array_into` / `depthwise_conv2d_array_into` on generated data (a nonzero
//! input zero point, per-channel weights, a bias, ReLU6's clamp), timed as in `icount.rs`, and
//! checked against the hand-written loop nest of `hand_conv` (TFLM's contract). Where the
//! model's instructions go, layer by layer. Exits with status 1 when an output differs.
#![no_std]
#![no_main]

use cortex_m::peripheral::SYST;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use qemu_tests::hand_conv::{self, biases, bytes, multipliers, scales, Conv, Requant};
use qemu_tests::icount::{ticks, Rate};
use shaped::conv::QConv2d;
use shaped::quant::{Activation, PerAxis, Quant, Rounding};
use shaped::runtime::ArrayRef;

/// The largest input, filter and output of the layers.
const MAX_IN: usize = 48 * 48 * 16;
const MAX_W: usize = 256 * 256;
const MAX_OUT: usize = 48 * 48 * 16;
/// The input's and output's parameters, and the output's clamp (ReLU6 under them).
const INPUT: (f32, i32) = (0.05, 12);
const OUTPUT: (f32, i32) = (0.03, -128);

static X: [i8; MAX_IN] = bytes(0x1234_5678);
static W: [i8; MAX_W] = bytes(0x9abc_def0);
static B: [i32; 256] = biases(0x0bad_f00d, 2_000);
static SCALES: [f32; 256] = scales(0.004);
static ZEROS: [i32; 256] = [0; 256];
static M: [(i32, i32); 256] = multipliers(INPUT.0, &SCALES, OUTPUT.0);

/// One layer: its shapes, whether it is depthwise, and how many such layers the model has.
struct Layer {
    name: &'static str,
    conv: Conv,
    depthwise: bool,
    count: u32,
}

const fn conv(input: [usize; 4], k: usize, out_channels: usize, stride: usize) -> Conv {
    Conv {
        input,
        kernel: [k, k],
        out_channels,
        stride: [stride, stride],
        dilation: [1, 1],
        same: true,
    }
}

const LAYERS: [Layer; 19] = [
    Layer {
        name: "3x3 CONV_2D s2 96x96x1 -> 8",
        conv: conv([1, 96, 96, 1], 3, 8, 2),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW 48x48x8",
        conv: conv([1, 48, 48, 8], 3, 8, 1),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 48x48 8 -> 16",
        conv: conv([1, 48, 48, 8], 1, 16, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW s2 48x48x16",
        conv: conv([1, 48, 48, 16], 3, 16, 2),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 24x24 16 -> 32",
        conv: conv([1, 24, 24, 16], 1, 32, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW 24x24x32",
        conv: conv([1, 24, 24, 32], 3, 32, 1),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 24x24 32 -> 32",
        conv: conv([1, 24, 24, 32], 1, 32, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW s2 24x24x32",
        conv: conv([1, 24, 24, 32], 3, 32, 2),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 12x12 32 -> 64",
        conv: conv([1, 12, 12, 32], 1, 64, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW 12x12x64",
        conv: conv([1, 12, 12, 64], 3, 64, 1),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 12x12 64 -> 64",
        conv: conv([1, 12, 12, 64], 1, 64, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW s2 12x12x64",
        conv: conv([1, 12, 12, 64], 3, 64, 2),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 6x6 64 -> 128",
        conv: conv([1, 6, 6, 64], 1, 128, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW 6x6x128",
        conv: conv([1, 6, 6, 128], 3, 128, 1),
        depthwise: true,
        count: 5,
    },
    Layer {
        name: "1x1 6x6 128 -> 128",
        conv: conv([1, 6, 6, 128], 1, 128, 1),
        depthwise: false,
        count: 5,
    },
    Layer {
        name: "3x3 DW s2 6x6x128",
        conv: conv([1, 6, 6, 128], 3, 128, 2),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 3x3 128 -> 256",
        conv: conv([1, 3, 3, 128], 1, 256, 1),
        depthwise: false,
        count: 1,
    },
    Layer {
        name: "3x3 DW 3x3x256",
        conv: conv([1, 3, 3, 256], 3, 256, 1),
        depthwise: true,
        count: 1,
    },
    Layer {
        name: "1x1 3x3 256 -> 256",
        conv: conv([1, 3, 3, 256], 1, 256, 1),
        depthwise: false,
        count: 1,
    },
];

/// Times shaped's kernel on `l` (`N` output channels) and checks it against the hand loop;
/// returns its instructions, `None` when it differs.
fn run<const N: usize>(syst: &mut SYST, rate: &Rate, l: &Layer) -> Option<f64> {
    let c = &l.conv;
    let filter = c.filter(l.depthwise);
    let (n_in, n_w, len) = (
        c.input.iter().product::<usize>(),
        filter.iter().product::<usize>(),
        c.output_len(),
    );
    let (x, w, bias) = (X.get(..n_in)?, W.get(..n_w)?, B.get(..N)?);
    let weights = PerAxis::new(SCALES.first_chunk::<N>()?, ZEROS.first_chunk::<N>()?).ok()?;
    let (input, output) = (
        Quant::new(INPUT.0, INPUT.1).ok()?,
        Quant::new(OUTPUT.0, OUTPUT.1).ok()?,
    );
    let op = QConv2d::new(input, weights, output, Activation::Relu6, Rounding::Double).ok()?;
    let (mut got, mut want) = ([0i8; MAX_OUT], [0i8; MAX_OUT]);
    let (xa, wa) = (
        ArrayRef::new(&c.input, x).ok()?,
        ArrayRef::new(&filter, w).ok()?,
    );
    let params = c.params();
    let mut result = Ok([0; 4]);
    let t = ticks(syst, || {
        result = if l.depthwise {
            op.depthwise_conv2d_array_into(xa, wa, Some(bias), &params, &mut got[..len])
        } else {
            op.conv2d_array_into(xa, wa, Some(bias), &params, &mut got[..len])
        };
    });
    // ReLU6 under the output's parameters: `zero point + round(6 / scale)` at most.
    let q = Requant {
        input_zero: INPUT.1,
        multipliers: M.get(..N)?,
        output_zero: OUTPUT.1,
        clamp: (-128, OUTPUT.1 + 200),
        single: false,
    };
    if l.depthwise {
        hand_conv::depthwise_conv2d(c, x, w, bias, &q, &mut want[..len]);
    } else {
        hand_conv::conv2d(c, x, w, bias, &q, &mut want[..len]);
    }
    (result == Ok(c.output()) && got[..len] == want[..len]).then(|| rate.instructions(t))
}

#[entry]
fn main() -> ! {
    let Some(mut p) = cortex_m::Peripherals::take() else {
        panic!("the peripherals are taken once");
    };
    let syst = &mut p.SYST;
    let rate = Rate::calibrate(syst);
    hprintln!("| layer (MACs) | count | instructions | per MAC |");
    hprintln!("|---|---|---|---|");
    let (mut failed, mut total, mut macs) = (0u32, 0.0, 0usize);
    for l in &LAYERS {
        let m = l.conv.macs(l.depthwise);
        let timed = match l.conv.out_channels {
            8 => run::<8>(syst, &rate, l),
            16 => run::<16>(syst, &rate, l),
            32 => run::<32>(syst, &rate, l),
            64 => run::<64>(syst, &rate, l),
            128 => run::<128>(syst, &rate, l),
            _ => run::<256>(syst, &rate, l),
        };
        match timed {
            Some(i) => {
                hprintln!(
                    "| {} ({}) | {} | {:.0} | {:.2} |",
                    l.name,
                    m,
                    l.count,
                    i,
                    i / m as f64
                );
                total += i * l.count as f64;
                macs += m * l.count as usize;
            }
            None => {
                hprintln!("{}: differs from the hand loop", l.name);
                failed += 1;
            }
        }
    }
    hprintln!(
        "| all ({}) | | {:.0} | {:.2} |",
        macs,
        total,
        total / macs as f64
    );
    if failed == 0 {
        debug::exit(debug::EXIT_SUCCESS);
    } else {
        debug::exit(debug::EXIT_FAILURE);
    }
    #[allow(clippy::empty_loop)]
    loop {}
}
