//! `cargo run`: a one-line smoke run of shaped on the emulated Cortex-M4.
#![no_std]
#![no_main]
// By-reference operators are what users write for tensors that are used again.
#![allow(clippy::op_ref)]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use panic_semihosting as _;
use shaped::{Shape, Tensor};

#[entry]
fn main() -> ! {
    let a = Tensor::<f32, Shape![2, 1]>::from([[1.0], [2.0]]);
    let b = Tensor::<f32, Shape![1, 3]>::from([[0.5, 0.25, 0.125]]);
    let c = &a + &b;
    hprintln!(
        "shaped on cortex-m4 under qemu: usize is {} bits, [2, 1] + [1, 3] = {:?}",
        usize::BITS,
        c.as_slice()
    );
    debug::exit(debug::EXIT_SUCCESS);
    #[allow(clippy::empty_loop)]
    loop {}
}
