//! Instructions counted under QEMU's `-icount shift=0` (one nanosecond of virtual time per
//! guest instruction), through SysTick: what the `icount`, `icount_conv` and `model_outputs`
//! bins time with. SysTick runs off the core clock, which QEMU derives from that virtual time.

use core::hint::black_box;
use cortex_m::peripheral::{syst::SystClkSource, SYST};

/// SysTick ticks taken by `f` (at most 2^24 - 1 of them).
pub fn ticks(syst: &mut SYST, f: impl FnOnce()) -> u32 {
    syst.set_reload(0x00ff_ffff);
    syst.clear_current();
    syst.enable_counter();
    let start = SYST::get_current();
    f();
    let end = SYST::get_current();
    syst.disable_counter();
    (start.wrapping_sub(end)) & 0x00ff_ffff
}

/// `2 * n + 1` instructions: `n` turns of a two-instruction loop, and the move before it.
#[inline(never)]
fn known_loop(n: u32) {
    // SAFETY: touches only the register it declares; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            "subs {0}, #1",
            "bne 2b",
            inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

/// Instructions of one timing: ticks times the calibrated rate, less the timing's own cost.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    /// Instructions per SysTick tick.
    pub per_tick: f64,
    /// The fixed cost of one timing, in instructions.
    pub overhead: f64,
}

impl Rate {
    /// SysTick set to the core clock and calibrated on two runs of a loop of known length, so
    /// that the constant cost of timing cancels.
    pub fn calibrate(syst: &mut SYST) -> Rate {
        syst.set_clock_source(SystClkSource::Core);
        let (n1, n2) = (100_000u32, 1_100_000u32);
        let t1 = ticks(syst, || known_loop(black_box(n1)));
        let t2 = ticks(syst, || known_loop(black_box(n2)));
        let per_tick = (2.0 * (n2 - n1) as f64) / (t2 - t1) as f64;
        let overhead = t1 as f64 * per_tick - (2.0 * n1 as f64 + 1.0);
        Rate { per_tick, overhead }
    }

    /// The instructions of a timing of `t` ticks.
    pub fn instructions(&self, t: u32) -> f64 {
        t as f64 * self.per_tick - self.overhead
    }
}
