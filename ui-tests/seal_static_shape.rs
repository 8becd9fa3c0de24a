// A complete user impl whose `LEN` (4097) lies about `DIMS` ([4096]): if it compiled, an
// in-place kernel would claim an element it never wrote. `Shape` is sealed, so it does not.
use shaped::typed::dim::StaticKind;
use shaped::{Shape, StaticShape};

#[derive(Clone, Copy, Debug, Default)]
struct Liar;

impl Shape for Liar {
    const RANK: usize = 1;
    type Index = [usize; 1];
    type Buffer<T> = Vec<T>;
    type Kind = StaticKind;
    const STATIC_DIMS: &'static [Option<usize>] = &[Some(4096)];
    type IntoIter<T> = std::vec::IntoIter<T>;
    fn dims(&self) -> [usize; 1] {
        [4096]
    }
    fn element_count(&self) -> usize {
        4097
    }
    fn from_dims(_: &[usize]) -> Option<Self> {
        Some(Liar)
    }
    fn buffer_into_iter<T>(buffer: Vec<T>) -> Self::IntoIter<T> {
        buffer.into_iter()
    }
    fn buffer_as_slice<T>(buffer: &Vec<T>) -> &[T] {
        buffer
    }
    fn buffer_as_mut_slice<T>(buffer: &mut Vec<T>) -> &mut [T] {
        buffer
    }
    fn buffer_from_vec<T>(&self, elements: Vec<T>) -> Option<Vec<T>> {
        Some(elements)
    }
    fn default_shape() -> Self {
        Liar
    }
    fn buffer_default<T: Default>(&self) -> Vec<T> {
        Vec::new()
    }
}

fn main() {
    fn is_static<S: StaticShape>() {}
    is_static::<Liar>();
}
