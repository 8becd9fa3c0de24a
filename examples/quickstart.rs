//! A tour of shaped's static path: every shape below is checked by the compiler.

// `&a + &b` is the form that works for every element type; clippy prefers `a + b` only
// because tensors of `Copy` elements are themselves `Copy`.
#![allow(clippy::op_ref)]
use shaped::{BroadcastOutput, Broadcasts, Shape, StaticShape, Tensor, TensorView};

/// A function generic over shapes states the rule it needs as a bound.
fn add_bias<S: Broadcasts<B>, B: StaticShape>(
    x: &Tensor<f32, S>,
    bias: &Tensor<f32, B>,
) -> Tensor<f32, BroadcastOutput<S, B>> {
    x + bias
}

fn main() {
    // NUMPY broadcasting (RULES.md P1-P6): (2,1,5) + (4,1) -> (2,4,5), decided at compile time.
    let a = Tensor::<f32, Shape![2, 1, 5]>::from_fn(|[i, _j, k]| (i * 5 + k) as f32);
    let b = Tensor::<f32, Shape![4, 1]>::from([[0.0], [10.0], [20.0], [30.0]]);
    let c: Tensor<f32, Shape![2, 4, 5]> = &a + &b;
    println!("a = {a}\n");
    println!("b = {b}\n");
    println!("a + b, shape {:?} =\n{c}\n", c.shape());

    // Scalars are rank-0 operands.
    let scaled = &c * 0.5;
    println!("(a + b) * 0.5, first row: {:?}\n", &scaled.as_slice()[..5]);

    // numpy's broadcast_to (B5): exactly the target, one-directional.
    let d = a.broadcast_to::<Shape![3, 2, 4, 5]>();
    println!("a.broadcast_to::<[3, 2, 4, 5]>() has shape {:?}", d.shape());

    // Bidirectional (B1-B3): the output may differ from the target.
    let d = a.broadcast_bidirectional::<Shape![3, 2, 4, 5]>();
    println!(
        "a.broadcast_bidirectional::<[3, 2, 4, 5]>() has shape {:?}",
        d.shape()
    );
    let t = Tensor::<i32, Shape![1, 4, 1]>::from([[[1], [2], [3], [4]]]);
    let grown = t.broadcast_bidirectional::<Shape![1, 4]>();
    println!(
        "[1, 4, 1] to target [1, 4] gives {:?} (rule B2):\n{grown}\n",
        grown.shape()
    );

    // NONE (N1-N3): identical shapes only.
    let e = c.zip_map(&c, |x, y| x * y);
    println!("(a + b)^2 at [1, 3, 4] = {}", e[[1, 3, 4]]);

    // Comparisons give bool tensors; logical ops combine them.
    let big = c.gt(20.0);
    let even = c.map(|&x| x as i32 % 2 == 0);
    let both = big.and(&even);
    println!(
        "count of elements > 20 and even: {}",
        both.iter().filter(|x| **x).count()
    );

    // Other elementwise methods.
    let m = a.maximum(&Tensor::<f32, Shape![5]>::splat(3.0));
    println!("maximum(a, 3) = {m}");
    println!("squared_difference(a, 1) = {}", a.squared_difference(1.0));
    println!("pow(a, 2) = {:.1}\n", a.pow(2.0));

    // `+=` and its kin: the right side broadcasts onto the left, which never grows (B5).
    let mut acc = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    acc += &Tensor::<f32, Shape![3]>::from([1.0, 2.0, 3.0]);
    println!("after += [1, 2, 3]:\n{acc}");
    println!(
        "add_bias(acc, [10]) = {}\n",
        add_bias(&acc, &Tensor::<f32, Shape![1]>::from([10.0]))
    );

    // Integers wrap on every path, in debug and release builds alike.
    let small = Tensor::<i8, Shape![2]>::from([127, -128]);
    println!("[127, -128] + 1 = {} (wrapping)\n", &small + 1);

    // Views borrow a buffer with a static shape; the length is checked once.
    let buffer = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let v = TensorView::<f32, Shape![2, 3]>::new(&buffer).expect("6 elements");
    let row = Tensor::<f32, Shape![3]>::from([100.0, 200.0, 300.0]);
    println!("view + row =\n{}", &v + &row);
    match TensorView::<f32, Shape![4, 4]>::new(&buffer) {
        Ok(_) => unreachable!(),
        Err(err) => println!("error: {err}"),
    }

    // This line would not compile: dims 3 and 2 do not broadcast (rule P2).
    // let bad = &Tensor::<f32, Shape![3]>::splat(0.0) + &Tensor::<f32, Shape![2]>::splat(0.0);
}
