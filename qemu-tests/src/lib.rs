//! A tiny test report for bare-metal runs: each check prints `test NAME ... ok|FAILED` over
//! semihosting; `finish` prints `N passed, M failed` and exits QEMU with the matching status.
#![no_std]

use core::fmt;
use cortex_m_semihosting::{debug, hprintln};

/// Counts and prints checks.
pub struct Report {
    passed: u32,
    failed: u32,
}

impl Report {
    /// An empty report.
    pub const fn new() -> Self {
        Report {
            passed: 0,
            failed: 0,
        }
    }

    /// Records one named check.
    pub fn check(&mut self, name: &str, ok: bool) {
        if ok {
            self.passed += 1;
            hprintln!("test {} ... ok", name);
        } else {
            self.failed += 1;
            hprintln!("test {} ... FAILED", name);
        }
    }

    /// Records that `got` equals `want`, printing both when they differ.
    pub fn eq<T: PartialEq + fmt::Debug + ?Sized>(&mut self, name: &str, got: &T, want: &T) {
        let ok = got == want;
        if !ok {
            hprintln!("  {}: got {:?}, want {:?}", name, got, want);
        }
        self.check(name, ok);
    }

    /// Prints the totals and exits QEMU: status 0 when nothing failed, 1 otherwise.
    pub fn finish(self) -> ! {
        hprintln!("{} passed, {} failed", self.passed, self.failed);
        debug::exit(if self.failed == 0 {
            debug::EXIT_SUCCESS
        } else {
            debug::EXIT_FAILURE
        });
        #[allow(clippy::empty_loop)]
        loop {}
    }
}

impl Default for Report {
    fn default() -> Self {
        Report::new()
    }
}

/// A fixed-capacity string for `Display` output, no allocator.
pub struct FixedBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> FixedBuf<N> {
    /// An empty buffer.
    pub const fn new() -> Self {
        FixedBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("<invalid utf-8>")
    }
}

impl<const N: usize> Default for FixedBuf<N> {
    fn default() -> Self {
        FixedBuf::new()
    }
}

impl<const N: usize> fmt::Write for FixedBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self
            .len
            .checked_add(s.len())
            .filter(|&e| e <= N)
            .ok_or(fmt::Error)?;
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `value` formatted into a fresh buffer.
pub fn text<const N: usize>(value: impl fmt::Display) -> FixedBuf<N> {
    let mut buf = FixedBuf::new();
    // Overflow leaves the buffer truncated, which the comparison then reports.
    let _ = fmt::write(&mut buf, format_args!("{value}"));
    buf
}
