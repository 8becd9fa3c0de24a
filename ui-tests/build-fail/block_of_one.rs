// O7: a block of 1 (or 0, or above 1024) is refused where the format is made.
use shaped::primitive::Blocking;

fn main() {
    let _ = Blocking::blocked::<1, 1>();
}
