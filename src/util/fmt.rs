//! numpy-style text: nested brackets, elements right-aligned to a common width. Shared by
//! static, mixed and runtime tensors and the binary primitive's memory.

use core::fmt::{self, Write};

/// Counts the characters written through it, to measure an element's width without allocating.
struct Width(usize);

impl Write for Width {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.chars().count();
        Ok(())
    }
}

type ElemFmt<T> = fn(&T, &mut dyn Write, Option<usize>) -> fmt::Result;

pub(crate) fn display_elem<T: fmt::Display>(
    x: &T,
    w: &mut dyn Write,
    precision: Option<usize>,
) -> fmt::Result {
    match precision {
        Some(p) => write!(w, "{x:.p$}"),
        None => write!(w, "{x}"),
    }
}

pub(crate) fn debug_elem<T: fmt::Debug>(
    x: &T,
    w: &mut dyn Write,
    precision: Option<usize>,
) -> fmt::Result {
    match precision {
        Some(p) => write!(w, "{x:.p$?}"),
        None => write!(w, "{x:?}"),
    }
}

/// Writes `data` (row-major, of shape `dims`) as nested brackets, numpy style:
/// `[[1 2]` / ` [3 4]]`, a blank line between blocks of rank 3 and more, `[]` when empty.
pub(crate) fn write_nested<T>(
    f: &mut fmt::Formatter<'_>,
    dims: &[usize],
    data: &[T],
    elem: ElemFmt<T>,
) -> fmt::Result {
    let precision = f.precision();
    if dims.is_empty() {
        return match data.first() {
            Some(x) => elem(x, f, precision),
            None => f.write_str("[]"),
        };
    }
    if data.is_empty() {
        return f.write_str("[]");
    }
    let mut width = 0;
    for x in data {
        let mut w = Width(0);
        elem(x, &mut w, precision)?;
        width = width.max(w.0);
    }
    write_block(f, dims, data, 0, width, elem, precision)
}

fn write_block<T>(
    f: &mut fmt::Formatter<'_>,
    dims: &[usize],
    data: &[T],
    depth: usize,
    width: usize,
    elem: ElemFmt<T>,
    precision: Option<usize>,
) -> fmt::Result {
    f.write_char('[')?;
    let rest = &dims[depth + 1..];
    let block = rest.iter().product::<usize>();
    for i in 0..dims[depth] {
        if i > 0 {
            if rest.is_empty() {
                f.write_char(' ')?;
            } else {
                for _ in 0..rest.len() {
                    f.write_char('\n')?;
                }
                for _ in 0..=depth {
                    f.write_char(' ')?;
                }
            }
        }
        if rest.is_empty() {
            let mut w = Width(0);
            elem(&data[i], &mut w, precision)?;
            for _ in w.0..width {
                f.write_char(' ')?;
            }
            elem(&data[i], f, precision)?;
        } else {
            let sub = &data[i * block..(i + 1) * block];
            write_block(f, dims, sub, depth + 1, width, elem, precision)?;
        }
    }
    f.write_char(']')
}
