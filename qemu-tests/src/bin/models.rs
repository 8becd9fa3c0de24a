//! A whole firmware running one int8 model (feature `model-<name>`; `model-none` runs nothing),
//! for `model_size.sh`: a model of `examples/` (`sine`, `residual`), or a `.tflite` imported by
//! `shaped::include_model!` (`speech`, `person`, `kws`, `resnet8`, and TFLM's own
//! `shared-speech` and `shared-person`; see `src/imported_model.rs`). Its sections give the
//! flash and static RAM, and it measures its own stack high-water mark. The stack is painted
//! with a pattern from its lowest address up to just below the current stack pointer, the
//! model runs on inputs read from a `static` through `black_box`, and the lowest word no longer
//! holding the pattern marks the deepest the stack went, counted from its top (so the reset
//! handler's and `main`'s frames are in). Output goes through semihosting as raw bytes, so
//! `core::fmt` is not linked: `name stack <bytes> checksum <n> activations <bytes> arena
//! <bytes>` (the example model's `ACTIVATION_BYTES`, 0 for an imported one; the imported
//! model's `ARENA_WITH_IO_BYTES`, 0 for the others).
//!
//! An imported model runs in the form that takes the least RAM: one arena in a `static`
//! (`.bss`) holds its input, output and intermediate tensors (`Model::run`); the input, input 0
//! of the generator of `tests/models/README.md` in a `static`, is copied through `black_box`
//! into the arena's input (`Model::input_mut`), and the checksum is that of the output
//! (`Model::output`).
#![no_std]
#![no_main]

use core::hint::black_box;
use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hio};
#[allow(unused_imports)]
use shaped::model::Arena;

#[allow(dead_code)]
#[path = "../imported_model.rs"]
mod imported;
#[cfg(feature = "model-residual")]
#[allow(dead_code)]
#[path = "../../../examples/residual/network.rs"]
mod residual;
#[cfg(feature = "model-sine")]
#[allow(dead_code)]
#[path = "../../../examples/sine/network.rs"]
mod sine;

#[cfg(feature = "imported-model")]
use imported::model::{Model, GENERATOR};

/// A panic exits QEMU with status 1 and prints nothing, as `panic-halt` would stop a deployed
/// firmware: a handler that prints the message (`panic-semihosting`) links `core::fmt` into any
/// firmware with a panic path left, which would count here as the model's.
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    #[allow(clippy::empty_loop)]
    loop {}
}

const PATTERN: u32 = 0xA5C3_5A3C;

extern "C" {
    /// The top of the stack (cortex-m-rt's linker script: the end of RAM).
    static _stack_start: u32;
    /// The lowest address the stack may reach (the end of `.bss`).
    static _stack_end: u32;
}

/// The current stack pointer.
#[inline(always)]
fn stack_pointer() -> usize {
    let sp: usize;
    // SAFETY: reads a register into another; no memory, no stack.
    unsafe { core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack)) };
    sp
}

/// The inputs each model runs on (every one through `black_box`, so nothing folds).
#[cfg(feature = "model-sine")]
static SINE_INPUTS: [i8; 8] = [-128, -100, -64, -20, 0, 37, 90, 127];
#[cfg(feature = "model-residual")]
static RESIDUAL_INPUTS: [[i8; 8]; 2] = [
    [120, 66, 62, 79, 19, -102, 109, -107],
    [14, -9, -42, 61, -40, 117, 81, 19],
];

/// The model on its inputs, summed into a checksum.
#[cfg(not(feature = "imported-model"))]
#[inline(never)]
fn run() -> i32 {
    #[allow(unused_mut)] // `model-none` adds nothing
    let mut sum = 0i32;
    #[cfg(feature = "model-sine")]
    for &x in black_box(&SINE_INPUTS) {
        sum = sum
            .wrapping_mul(31)
            .wrapping_add(sine::forward(x).map_or(-1000, i32::from));
    }
    #[cfg(feature = "model-residual")]
    for &x in black_box(&RESIDUAL_INPUTS) {
        for y in residual::forward(x).unwrap_or([0; 4]) {
            sum = sum.wrapping_mul(31).wrapping_add(i32::from(y));
        }
    }
    black_box(sum)
}

/// The imported model on input 0, in the arena, its output summed into a checksum. The input
/// is generated where the model reads it, as a sensor's driver would write it: the firmware
/// holds no test image (person detection's would be 9.2 kB of flash).
#[cfg(feature = "imported-model")]
#[inline(never)]
fn run_imported(arena: &mut Arena<{ Model::ARENA_WITH_IO_BYTES }>) -> i32 {
    let mut input = Model::input_mut(arena);
    qemu_tests::imported::fill_input(black_box(GENERATOR), 0, input.as_mut_slice());
    Model::run(arena);
    let mut sum = 0i32;
    for &y in Model::output(arena).as_slice() {
        sum = sum.wrapping_mul(31).wrapping_add(i32::from(y));
    }
    black_box(sum)
}

/// `n` in decimal into `buf`, returning the digits.
fn decimal(mut n: u32, buf: &mut [u8; 10]) -> &[u8] {
    // Ten digits hold any `u32`. No indexing, so no panic path: `buf[at]` kept a bounds
    // check, whose panic linked `core::fmt` into every firmware of this bin (2.3 kB).
    let mut at = buf.len();
    for digit in buf.iter_mut().rev() {
        *digit = b'0' + (n % 10) as u8;
        n /= 10;
        at -= 1;
        if n == 0 {
            break;
        }
    }
    buf.get(at..).unwrap_or_default()
}

#[entry]
fn main() -> ! {
    // The imported model's arena: `.bss` (cortex-m-rt hands `main` a `&'static mut`).
    #[cfg(feature = "imported-model")]
    static mut ARENA: Arena<{ Model::ARENA_WITH_IO_BYTES }> = Arena::new();
    // The linker script defines both symbols; only their addresses are taken.
    let (top, bottom) = (
        core::ptr::addr_of!(_stack_start) as usize,
        core::ptr::addr_of!(_stack_end) as usize,
    );
    // Paint from the bottom to 64 bytes below the stack pointer: this loop makes no call and
    // keeps its state in registers, so nothing live is below the stack pointer.
    let limit = stack_pointer() - 64;
    let mut at = bottom;
    while at < limit {
        // SAFETY: `[bottom, limit)` is RAM below the live stack, word aligned (both
        // symbols are 4-byte aligned, checked by the linker script).
        unsafe { core::ptr::write_volatile(at as *mut u32, PATTERN) };
        at += 4;
    }
    #[cfg(not(feature = "imported-model"))]
    let checksum = run();
    #[cfg(feature = "imported-model")]
    let checksum = run_imported(ARENA);
    let mut deepest = limit;
    let mut at = bottom;
    while at < limit {
        // SAFETY: as above; the words were painted, reading them back is in bounds.
        if unsafe { core::ptr::read_volatile(at as *const u32) } != PATTERN {
            deepest = at;
            break;
        }
        at += 4;
    }
    let used = (top - deepest) as u32;
    #[allow(unused_mut, unused_assignments)]
    let (mut name, mut activations, mut arena): (&[u8], usize, usize) = (b"none", 0, 0);
    #[cfg(feature = "model-sine")]
    {
        (name, activations) = (b"sine", sine::ACTIVATION_BYTES);
    }
    #[cfg(feature = "model-residual")]
    {
        (name, activations) = (b"residual", residual::ACTIVATION_BYTES);
    }
    #[cfg(feature = "imported-model")]
    {
        (name, arena) = (imported::model::NAME, Model::ARENA_WITH_IO_BYTES);
    }
    if let Ok(mut out) = hio::hstdout() {
        let mut buf = [0u8; 10];
        let _ = out.write_all(name);
        let _ = out.write_all(b" stack ");
        let _ = out.write_all(decimal(used, &mut buf));
        let _ = out.write_all(b" checksum ");
        let _ = out.write_all(decimal(checksum as u32, &mut buf));
        let _ = out.write_all(b" activations ");
        let _ = out.write_all(decimal(activations as u32, &mut buf));
        let _ = out.write_all(b" arena ");
        let _ = out.write_all(decimal(arena as u32, &mut buf));
        let _ = out.write_all(b"\n");
    }
    debug::exit(debug::EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}
