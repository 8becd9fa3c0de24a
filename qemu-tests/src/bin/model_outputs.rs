//! TFLM's outputs and the instructions per inference of a `.tflite` model imported by
//! `shaped::include_model!` on the Cortex-M4, for `icount_models.sh`. The model is chosen by a
//! feature `model-<name>` (`src/imported_model.rs`) and runs in its arena in a `static`
//! (`Model::run`, the input and output in the arena too). On each of the first `INPUTS` inputs
//! of the generator of `tests/models/README.md` (built here, at run time) the output is
//! compared with TFLM's, the line for that input in `tests/models/<name>.expected.txt`
//! (embedded, parsed without an allocator), and the inference is timed as in `icount.rs`: QEMU
//! runs with `-icount shift=0`, one nanosecond of virtual time per guest instruction, and
//! SysTick counts that clock, calibrated on a loop of known length. Exits with status 1 when
//! an output differs.
#![no_std]
#![no_main]

use core::hint::black_box;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use qemu_tests::icount::{ticks, Rate};
use qemu_tests::imported::{expected_line, fill_input};
use shaped::model::Arena;

#[allow(dead_code)] // the `models` bin's input
#[path = "../imported_model.rs"]
mod imported;

use imported::model::{Model, EXPECTED, GENERATOR, NAME};

/// The inputs run: `0..INPUTS`.
const INPUTS: u64 = 10;

#[entry]
fn main() -> ! {
    // The whole inference's memory: `.bss` (cortex-m-rt hands `main` a `&'static mut`).
    static mut ARENA: Arena<{ Model::ARENA_WITH_IO_BYTES }> = Arena::new();
    let Some(mut p) = cortex_m::Peripherals::take() else {
        panic!("the peripherals are taken once");
    };
    let syst = &mut p.SYST;
    let rate = Rate::calibrate(syst);
    let name = core::str::from_utf8(NAME).unwrap_or("?");

    let (mut equal, mut total, mut least, mut most) = (0u64, 0.0f64, f64::MAX, 0.0f64);
    for k in 0..INPUTS {
        fill_input(GENERATOR, k, Model::input_mut(ARENA).as_mut_slice());
        let t = ticks(syst, || Model::run(black_box(&mut *ARENA)));
        let instructions = rate.instructions(t);
        total += instructions;
        least = least.min(instructions);
        most = most.max(instructions);
        let got = Model::output(ARENA);
        let got = got.as_slice();
        // Room for the largest output of the models (anomaly detection's 640).
        let mut want = [0i8; 1024];
        let same = match expected_line(EXPECTED, k, &mut want) {
            Some(n) => n == got.len() && want.get(..n) == Some(got),
            None => false,
        };
        if same {
            equal += 1;
        } else {
            // The first outputs of each: enough to see the difference, short enough to read.
            let shown = got.len().min(16);
            hprintln!(
                "{} input {}: output {:?}.., TFLM's {:?}..",
                name,
                k,
                &got[..shown],
                &want[..shown]
            );
        }
    }
    hprintln!(
        "{}: {}/{} outputs equal to TFLM's; instructions per inference: mean {:.0}, min {:.0}, max {:.0} (calibration {:.3} per tick)",
        name,
        equal,
        INPUTS,
        total / INPUTS as f64,
        least,
        most,
        rate.per_tick
    );
    debug::exit(if equal == INPUTS {
        debug::EXIT_SUCCESS
    } else {
        debug::EXIT_FAILURE
    });
    #[allow(clippy::empty_loop)]
    loop {}
}
